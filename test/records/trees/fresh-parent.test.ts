import assert from 'node:assert/strict';
import { sampleRecord } from '../../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../../helpers';
import { createRecord } from '../../../src/records/write';
import { prepareRecord } from '../../../src/validation';
import { place } from '../../../src/store/positions';
import { treeRowOfUri } from '../../../src/store/trees';
import type { Tx } from '../../../src/store/database';

/**
 * The first child of a parent inserted in the same transaction is placed without reading its
 * sibling group (positions.ts placeIn): only where the transaction placed nothing in that group.
 */
describe(`tree placement under a parent the transaction inserted (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let resource: string;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t);
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo))).body.uri;
  });
  after(() => t.close());

  const create = async (trx: Tx, title: string, parent?: string) => {
    const s = t.services;
    const body = { title, level: 'file', resource: { ref: resource }, ...(parent ? { parent: { ref: parent } } : {}) };
    const prepared = prepareRecord(s.registry, s.enums, 'archival_object', body);
    const where = { type: s.registry.type('archival_object'), repoId: repo };
    return (await createRecord(s, { username: 'admin' } as never, where, prepared.record, prepared.warnings, { trx })).uri;
  };
  const positionOf = async (trx: Tx, uri: string) => Number((await trx('records').where({ uri }).first('position')).position);

  it('places the children of a new parent in order, the first at 0', async () => {
    await t.services.db.transaction(async (trx) => {
      const parent = await create(trx, 'Parent');
      const a = await create(trx, 'A', parent);
      const b = await create(trx, 'B', parent);
      assert.equal(await positionOf(trx, a), 0);
      assert.ok(await positionOf(trx, b) > 0);
    });
    const parent = (await t.services.db.knex('records').where({ type: 'archival_object', repo_id: repo }).whereNull('parent_rid').first('uri')).uri;
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const children = await t.http.get(`${parent}/children`).set(H);
    assert.equal(children.status, 200, children.text);
    assert.deepEqual(children.body.map((c: { title: string }) => c.title), ['A', 'B']);
  });

  it('reads the group where the transaction already put a node in it (a move), and places the new child after it', async () => {
    await t.services.db.transaction(async (trx) => {
      const moved = await create(trx, 'Moved');
      const parent = await create(trx, 'Parent 2');
      const parentRid = (await treeRowOfUri(trx, parent))!.rid;
      await place(trx, (await treeRowOfUri(trx, moved))!.rid, resource, parentRid, 0);
      const child = await create(trx, 'Child', parent);
      assert.ok(await positionOf(trx, child) > await positionOf(trx, moved));
    });
  });
});
