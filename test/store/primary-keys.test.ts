/**
 * record_refs, lookup_keys and job_records have primary keys (migration 023: Galera certifies and
 * applies a row event by its primary key): a store holding rows, copies included, is migrated; a
 * link or lookup written twice (a record listing the same link twice) is one row, never an error;
 * a job's records keep the order it noted them in.
 */
import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';
import { migrate } from '../../src/store/migrations';
import { KEYED_TABLES, primaryKeys } from '../../src/store/migrations/primary-keys';
import { addJobRecords, jobRecordUris } from '../../src/store/jobs';
import { isUniqueViolation } from '../../src/store/store-errors';

describe(`primary keys of record_refs, lookup_keys, job_records (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  let resource: string;
  const subjects: string[] = [];

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'PKEYS');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), id_0: 'PK', id_1: '1' })).body.uri;
    for (const term of ['Keyed one', 'Keyed two', 'Keyed three']) {
      const res = await t.http.post('/subjects').set(H).send({ source: 'local', vocabulary: '/vocabularies/1', terms: [{ term, term_type: 'topical', vocabulary: '/vocabularies/1' }] });
      assert.equal(res.status, 200, res.text);
      subjects.push(res.body.uri);
    }
  });
  after(async () => t.close());

  const knex = () => t.services.db.knex;
  const ridOf = async (uri: string) => Number((await knex()('records').where({ uri }).first('rid')).rid);
  const rowsOf = async (table: string, where: Record<string, unknown>) =>
    (await knex()(table).where(where).select(KEYED_TABLES.find((k) => k.table === table)!.key))
      .map((r: Record<string, unknown>) => JSON.stringify(r)).sort();
  const createComponent = async (refId: string, links: string[]) => {
    const res = await t.http.post(`/repositories/${repo}/archival_objects`).set(H)
      .send({ title: refId, level: 'file', resource: { ref: resource }, ref_id: refId, subjects: links.map((ref) => ({ ref })) });
    assert.equal(res.status, 200, res.text);
    return res.body.uri as string;
  };
  const refused = async (table: string, row: Record<string, unknown>) => {
    try {
      await knex()(table).insert(row);
    } catch (err) {
      assert.ok(isUniqueViolation(err), String(err));
      return;
    }
    assert.fail(`a second ${JSON.stringify(row)} was written to ${table}`);
  };

  it('migrates a store holding rows and copies of rows: one of each link and lookup is kept, job records keep their order, and all still work', async () => {
    const uri = await createComponent('pk-1', [subjects[0], subjects[1]]);
    const rid = await ridOf(uri);
    const where = { record_refs: { from_rid: rid }, lookup_keys: { rid } } as Record<string, Record<string, unknown>>;
    const before: Record<string, string[]> = {};
    for (const { table } of KEYED_TABLES) before[table] = await rowsOf(table, where[table]);

    // Back to the store as it was before 022, with the copies the old code could write.
    await primaryKeys[0].down(knex());
    await knex()('knex_migrations').where({ name: '023_primary_keys' }).delete();
    for (const { table } of KEYED_TABLES) {
      const rows = await knex()(table).where(where[table]).select('*');
      assert.ok(rows.length > 0, table);
      await knex()(table).insert(rows);
      assert.equal((await rowsOf(table, where[table])).length, 2 * before[table].length, `${table} takes copies without its key`);
    }
    // A job's records in the order noted (not the URIs' order), one noted twice.
    await knex()('job_records').insert([resource, uri, subjects[0], uri].map((u) => ({ job_id: 4242, uri: u })));

    assert.deepEqual(await migrate(knex()), ['023_primary_keys']);
    for (const { table } of KEYED_TABLES) {
      assert.deepEqual(await rowsOf(table, where[table]), before[table], `${table}: one row of each`);
      await refused(table, JSON.parse(before[table][0]));
    }
    assert.deepEqual(await jobRecordUris(t.services.db, 4242), [resource, uri, subjects[0], uri]);
    await addJobRecords(t.services.db, 4242, [subjects[1]]);
    assert.deepEqual(await jobRecordUris(t.services.db, 4242), [resource, uri, subjects[0], uri, subjects[1]]);

    const found = await t.http.get(`/repositories/${repo}/find_by_id/archival_objects`).query({ 'ref_id[]': ['pk-1'] }).set(H);
    assert.deepEqual(found.body, { archival_objects: [{ ref: uri }] });
    // The links are followed: deleting a subject drops it from the record.
    assert.equal((await t.http.delete(subjects[1]).set(H)).status, 200);
    assert.deepEqual((await t.http.get(uri).set(H)).body.subjects, [{ ref: subjects[0] }]);
  });

  it('a record listing the same link twice is saved with one row per link, and saved again', async () => {
    const uri = await createComponent('pk-2', [subjects[0], subjects[2], subjects[0]]);
    const rid = await ridOf(uri);
    const links = (await knex()('record_refs').where({ from_rid: rid, property: 'subjects' }).pluck('to_uri')).sort();
    assert.deepEqual(links, [subjects[0], subjects[2]].sort());
    const record = (await t.http.get(uri).set(H)).body;
    assert.equal(record.subjects.length, 3);
    const again = await t.http.post(uri).set(H).send({ ...record, subjects: [...record.subjects, { ref: subjects[2] }] });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual((await knex()('record_refs').where({ from_rid: rid, property: 'subjects' }).pluck('to_uri')).sort(), links);
    assert.equal((await t.http.delete(subjects[2]).set(H)).status, 200);
    assert.deepEqual((await t.http.get(uri).set(H)).body.subjects, [{ ref: subjects[0] }, { ref: subjects[0] }]);
  });
});
