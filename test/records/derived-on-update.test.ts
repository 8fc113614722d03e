/**
 * An update rewrites a record's unique keys, find_by_id values and links only where they derive
 * differently from the stored record (src/records/write.ts, saveDerived): what changed is
 * rewritten and checked, what did not is left as it is.
 */
import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

describe(`derived rows on update (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  let resource: string;
  const subjects: string[] = [];

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'DERIVE');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), id_0: 'DR', id_1: '1' })).body.uri;
    for (const term of ['Derived one', 'Derived two']) {
      subjects.push((await t.http.post('/subjects').set(H).send({ source: 'local', vocabulary: '/vocabularies/1', terms: [{ term, term_type: 'topical', vocabulary: '/vocabularies/1' }] })).body.uri);
    }
  });
  after(async () => t.close());

  const get = async (uri: string) => (await t.http.get(uri).set(H)).body;
  const save = async (uri: string, changes: Record<string, unknown>) => {
    const res = await t.http.post(uri).set(H).send({ ...(await get(uri)), ...changes });
    return res;
  };
  const rowIds = async (table: string, column: string, rid: number) => {
    // SQLite's rowids show whether rows were deleted and written again (MySQL's tables have none).
    const rows = await t.services.db.knex(table).where({ [column]: rid }).select(t.services.db.knex.raw('rowid as r'));
    return rows.map((row: { r: number }) => row.r).sort();
  };
  const ridOf = async (uri: string) => Number((await t.services.db.knex('records').where({ uri }).first('rid')).rid);

  it('a title edit keeps keys, find_by_id values and links as they were, and all of them still work', async () => {
    const created = await t.http.post(`/repositories/${repo}/archival_objects`).set(H)
      .send({ title: 'Before', level: 'file', resource: { ref: resource }, ref_id: 'derive-1', component_id: 'C-1', subjects: subjects.map((ref) => ({ ref })) });
    assert.equal(created.status, 200, created.text);
    const uri = created.body.uri as string;
    const rid = await ridOf(uri);
    // Rows written after it: rows of the first written again would get rowids above theirs.
    await t.http.post(`/repositories/${repo}/archival_objects`).set(H)
      .send({ title: 'Later', level: 'file', resource: { ref: resource }, ref_id: 'derive-2', component_id: 'C-2', subjects: subjects.map((ref) => ({ ref })) });
    const before = STORE === 'sqlite' ? [await rowIds('lookup_keys', 'rid', rid), await rowIds('record_refs', 'from_rid', rid)] : [];
    const edited = await save(uri, { title: 'After' });
    assert.equal(edited.status, 200, edited.text);
    if (STORE === 'sqlite') assert.deepEqual([await rowIds('lookup_keys', 'rid', rid), await rowIds('record_refs', 'from_rid', rid)], before, 'rows not rewritten');
    const found = await t.http.get(`/repositories/${repo}/find_by_id/archival_objects`).query({ 'ref_id[]': ['derive-1'] }).set(H);
    assert.deepEqual(found.body, { archival_objects: [{ ref: uri }] });
    // The links are still known: deleting a subject drops it from the record.
    assert.equal((await t.http.delete(subjects[1]).set(H)).status, 200);
    assert.deepEqual((await get(uri)).subjects, [{ ref: subjects[0] }]);
    subjects.pop();
  });

  it('an identifier edit frees the old identifier and takes the new one', async () => {
    const a = (await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), id_0: 'DER-A' })).body.uri as string;
    const edited = await save(a, { id_0: 'DER-B' });
    assert.equal(edited.status, 200, edited.text);
    const reuse = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), id_0: 'DER-A' });
    assert.equal(reuse.status, 200, reuse.text);
    const clash = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), id_0: 'DER-B' });
    assert.equal(clash.status, 400);
    assert.ok(clash.body.error.id_0, clash.text);
  });

  it('a find_by_id value edit is found by the new value only', async () => {
    const uri = (await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'Ref', level: 'file', resource: { ref: resource }, component_id: 'derive-old' })).body.uri as string;
    assert.equal((await save(uri, { component_id: 'derive-new' })).status, 200);
    const find = (ref: string) => t.http.get(`/repositories/${repo}/find_by_id/archival_objects`).query({ 'component_id[]': [ref] }).set(H);
    assert.deepEqual((await find('derive-old')).body, { archival_objects: [] });
    assert.deepEqual((await find('derive-new')).body, { archival_objects: [{ ref: uri }] });
  });

  it('a link edit is checked (a missing target is refused, nothing written) and then followed', async () => {
    const uri = (await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), id_0: 'DER-L' })).body.uri as string;
    const missing = await save(uri, { subjects: [{ ref: '/subjects/999999' }] });
    assert.equal(missing.status, 400, missing.text);
    assert.deepEqual((await get(uri)).subjects ?? [], []);
    assert.equal((await save(uri, { subjects: [{ ref: subjects[0] }] })).status, 200);
    const linked = await t.http.delete(subjects[0]).set(H);
    assert.equal(linked.status, 200);
    assert.deepEqual((await get(uri)).subjects, [], 'the new link was recorded: the deletion dropped it');
  });
});
