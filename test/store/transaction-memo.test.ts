/**
 * What a transaction keeps from its own reads (transaction-memo.ts) never outlives its truth:
 * positions stay unique and in order when appends, front and middle inserts (with the shift of
 * a crowded spot) mix in one transaction, a record deleted in the transaction is no longer a
 * link target there, links and lookup keys held back are there for whatever reads them, and a
 * node moved in the transaction is not taken for where it was inserted.
 */
import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';
import { createRecord, deleteRecord, updateRecord } from '../../src/records/write';
import { lookupHash, lookupValue } from '../../src/records/keys';
import { RecordQueries } from '../../src/store/records';
import { holdDerivedRows } from '../../src/store/transaction-memo';
import { prepareRecord } from '../../src/validation';
import type { Obj } from '../../src/json';
import fs from 'node:fs';
import { connect } from '../../src/store/connect';

describe(`what a transaction keeps from its own reads (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'MEMO');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(async () => t.close());

  const create = (trx: any, typeName: string, body: Obj) => {
    const s = t.services;
    const prepared = prepareRecord(s.registry, s.enums, typeName, body);
    return createRecord(s, { username: 'admin' } as any, { type: s.registry.type(typeName), repoId: repo }, prepared.record, prepared.warnings, { trx });
  };

  it('appends, inserts at the front and into a crowded spot, then appends again: every sibling in its place', async () => {
    const resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo))).body.uri as string;
    const expected: string[] = [];
    const child = (trx: any, title: string, position?: number) => {
      if (position === undefined) expected.push(title);
      else expected.splice(Math.min(position, expected.length), 0, title);
      return create(trx, 'archival_object', { title, level: 'file', resource: { ref: resource }, ...(position === undefined ? {} : { position }) });
    };
    await t.services.db.transaction(async (trx) => {
      for (let i = 0; i < 5; i++) await child(trx, `A${i}`);
      await child(trx, 'Front', 0);
      // Twelve at the same spot: the gap closes and the siblings after it are shifted up.
      for (let i = 0; i < 12; i++) await child(trx, `M${i}`, 3);
      await child(trx, 'Z0');
      await child(trx, 'Z1');
    });
    const rows = await t.services.db.knex('records').where({ root_uri: resource }).whereNotNull('parent_key').orderBy('position').select('json');
    assert.deepEqual(rows.map((r: any) => JSON.parse(r.json).title), expected);
  });

  it('records created in one transaction get consecutive ids, and the next create after it the one after them', async () => {
    const s = t.services;
    const made = await s.db.transaction(async (trx) => {
      const ids: number[] = [];
      for (let i = 0; i < 40; i++) ids.push((await create(trx, 'accession', { id_0: 'IDS', id_1: `${Date.now()}-${i}`, title: `Id ${i}`, accession_date: '2020-01-01' })).id);
      return ids;
    });
    assert.deepEqual(made, made.map((_, i) => made[0] + i), 'consecutive (clients count on it, as with ArchivesSpace)');
    const after = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'IDS', id_1: `after-${Date.now()}`, title: 'After', accession_date: '2020-01-01' });
    assert.equal(after.status, 200, after.text);
    assert.equal(after.body.id, made[made.length - 1] + 1);
  });

  it('ids taken in reserve by a transaction never clash with a record created with a fixed id, and are given back', async () => {
    const s = t.services;
    const createWithId = (trx: any, id: number, title: string) => {
      const prepared = prepareRecord(s.registry, s.enums, 'accession', { id_0: 'FIX', id_1: `${Date.now()}-${title}`, title, accession_date: '2020-01-01' });
      return createRecord(s, { username: 'admin' } as any, { type: s.registry.type('accession'), repoId: repo }, prepared.record, prepared.warnings, { trx, id });
    };
    const made = await s.db.transaction(async (trx) => {
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await create(trx, 'accession', { id_0: 'FIX', id_1: `${Date.now()}-a${i}`, title: `A ${i}`, accession_date: '2020-01-01' })).id);
      ids.push((await createWithId(trx, ids[2] + 10, 'fixed')).id);
      for (let i = 0; i < 3; i++) ids.push((await create(trx, 'accession', { id_0: 'FIX', id_1: `${Date.now()}-b${i}`, title: `B ${i}`, accession_date: '2020-01-01' })).id);
      return ids;
    });
    const first = made[0];
    assert.deepEqual(made, [first, first + 1, first + 2, first + 12, first + 13, first + 14, first + 15]);
    const after = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'FIX', id_1: `after-${Date.now()}`, title: 'After', accession_date: '2020-01-01' });
    assert.equal(after.body.id, first + 16, 'the next id after the transaction: none lost');
  });

  it("a transaction's change-log entries are written at its commit, in the order of its writes, and not at all when it fails", async () => {
    const s = t.services;
    const stamp = Date.now();
    const uris = await s.db.transaction(async (trx) => {
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await create(trx, 'accession', { id_0: 'LOG', id_1: `${stamp}-${i}`, title: `Log ${i}`, accession_date: '2020-01-01' })).uri);
      return made;
    });
    const logged = await s.db.knex('change_log').whereIn('uri', uris).orderBy('seq').select('uri', 'op');
    assert.deepEqual(logged, uris.map((uri) => ({ uri, op: 'upsert' })));
    const failed = await s.db.transaction(async (trx) => {
      await create(trx, 'accession', { id_0: 'LOG', id_1: `${stamp}-failed`, title: 'Rolled back', accession_date: '2020-01-01' });
      throw new Error('refused on purpose');
    }).catch((err: Error) => err.message);
    assert.equal(failed, 'refused on purpose');
    const uri = `/repositories/${repo}/accessions/`;
    const strays = await s.db.knex('change_log').where('uri', 'like', `${uri}%`).andWhere('seq', '>', (await s.db.knex('change_log').whereIn('uri', uris).max('seq as m').first())!.m).select('uri');
    assert.deepEqual(strays, [], 'nothing of the failed transaction is in the change log');
  });

  it('reaches MySQL/MariaDB through its Unix socket with ?socket=', async function () {
    const socket = '/run/mysqld/mysqld.sock';
    if (STORE !== 'mariadb' || !fs.existsSync(socket)) this.skip();
    const db = await connect(`mysql://root@localhost/art_socket_test?socket=${socket}`);
    try {
      assert.match(db.describe, /through \/run\/mysqld\/mysqld\.sock/);
      const [rows] = await db.knex.raw('SELECT DATABASE() AS name');
      assert.equal(rows[0].name, 'art_socket_test');
      await db.knex.raw('DROP DATABASE art_socket_test');
    } finally {
      await db.close();
    }
  });

  it('a record deleted in the transaction is not a link target in it any more', async () => {
    const s = t.services;
    const subject = (await t.http.post('/subjects').set(H).send({ source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `Memo ${Date.now()}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] })).body;
    const accession = (n: number) => ({ id_0: 'MEMO', id_1: `${Date.now()}-${n}`, title: `Links ${n}`, accession_date: '2020-01-01', subjects: [{ ref: subject.uri }] });
    const outcome = await s.db.transaction(async (trx) => {
      await create(trx, 'accession', accession(1));
      await deleteRecord(s, { type: s.registry.type('subject') }, subject.id, { trx });
      await create(trx, 'accession', accession(2));
      return 'written';
    }).catch((err: { body?: unknown }) => JSON.stringify(err.body));
    assert.match(outcome, /subjects|not found|does not exist/i, `the second accession links a deleted subject: ${outcome}`);
    assert.equal((await t.http.get(`/subjects/${subject.id}`).set(H)).status, 200, 'the transaction rolled back as a whole');
    assert.equal((await s.db.knex('records').where({ type: 'accession' }).andWhere('json', 'like', '%"Links 1"%')).length, 0, 'with the record written before the deletion');
  });

  it('links and lookup keys held back by a transaction are written before anything in it reads or deletes them, and at its commit', async () => {
    const s = t.services;
    const resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo))).body.uri as string;
    const subject = (term: string) => t.http.post('/subjects').set(H).send({ source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `${term} ${Date.now()}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const kept = (await subject('Held')).body.uri as string;
    const dropped = (await subject('Dropped')).body.uri as string;
    const stamp = Date.now();
    const node = (i: number, linked = kept) => ({ title: `Held ${i}`, level: 'file', resource: { ref: resource }, ref_id: `held-${stamp}-${i}`, subjects: [{ ref: linked }] });
    const rule = s.registry.type('archival_object').lookup!.ref_id;
    const made = await s.db.transaction(async (trx) => {
      holdDerivedRows(trx);
      const uris: string[] = [];
      const linksWritten = async () => Number((await trx('record_refs').where({ to_uri: kept }).count({ n: '*' }).first() as any).n);
      for (let i = 0; i < 150; i++) uris.push((await create(trx, 'archival_object', node(i))).uri);
      assert.equal(await linksWritten(), 0, 'the links are held back');
      // A thousand held rows of a table are written at once, the rest stays held.
      for (let i = 150; i < 1050; i++) uris.push((await create(trx, 'archival_object', node(i))).uri);
      assert.equal(await linksWritten(), 1000, 'a thousand written, fifty held');
      // A find_by_id match (as an import makes) sees the records written before it.
      const found = await new RecordQueries(trx).findByLookup('archival_object', repo, 'ref_id', [lookupHash(lookupValue(rule.format, [`held-${stamp}-1049`]))]);
      assert.deepEqual(found, [uris[1049]]);
      assert.equal(await linksWritten(), 1050, 'written for the read');
      // A node written and deleted in the transaction leaves no link behind.
      const gone = await create(trx, 'archival_object', node(1050, dropped));
      await deleteRecord(s, { type: s.registry.type('archival_object'), repoId: repo }, gone.id, { trx });
      uris.push((await create(trx, 'archival_object', node(1051))).uri);
      return uris;
    });
    const rids = (await s.db.knex('records').whereIn('uri', made).pluck('rid')).map(Number);
    assert.equal(rids.length, 1051);
    const linked = await s.db.knex('record_refs').whereIn('from_rid', rids).andWhere({ to_uri: kept }).count({ n: '*' }).first() as any;
    assert.equal(Number(linked.n), 1051, 'every link written by the commit');
    const keys = await s.db.knex('lookup_keys').whereIn('rid', rids).andWhere({ param: 'ref_id' }).count({ n: '*' }).first() as any;
    assert.equal(Number(keys.n), 1051, 'every lookup key written by the commit');
    assert.equal(Number((await s.db.knex('record_refs').where({ to_uri: dropped }).count({ n: '*' }).first() as any).n), 0, 'no link of the deleted node');
    const found = await t.http.get(`/repositories/${repo}/find_by_id/archival_objects`).query({ 'ref_id[]': `held-${stamp}-1051` }).set(H);
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.archival_objects.map((r: Obj) => r.ref), [made[1050]]);
    // A transaction that fails writes none of what it held.
    const failing = (await subject('Failing')).body.uri as string;
    await assert.rejects(s.db.transaction(async (trx) => {
      holdDerivedRows(trx);
      for (let i = 0; i < 3; i++) await create(trx, 'archival_object', { ...node(200 + i, failing), ref_id: `fail-${stamp}-${i}` });
      throw new Error('refused on purpose');
    }), /refused on purpose/);
    assert.equal(Number((await s.db.knex('record_refs').where({ to_uri: failing }).count({ n: '*' }).first() as any).n), 0);
  });

  it('a node moved to another resource in the transaction that inserted it is not a parent under its first resource', async () => {
    const s = t.services;
    const first = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo))).body.uri as string;
    const second = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo))).body.uri as string;
    const outcome = await s.db.transaction(async (trx) => {
      const parent = await create(trx, 'archival_object', { title: 'Moves', level: 'series', resource: { ref: first } });
      const prepared = prepareRecord(s.registry, s.enums, 'archival_object', { title: 'Moves', level: 'series', resource: { ref: second }, lock_version: 0 });
      await updateRecord(s, { username: 'admin' } as any, { type: s.registry.type('archival_object'), repoId: repo }, parent.id, prepared.record, prepared.warnings, { trx });
      await create(trx, 'archival_object', { title: 'Child', level: 'file', resource: { ref: first }, parent: { ref: parent.uri } });
      return 'written';
    }).catch((err: { body?: unknown }) => JSON.stringify(err.body));
    assert.match(outcome, /must belong to the same resource/, outcome);
  });
});
