import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

describe(`find_by_id (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  let resource: string;
  const find = (type: string) => `/repositories/${repo}/find_by_id/${type}`;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'FIND');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), id_0: 'MS', id_1: '001' })).body.uri;
  });
  after(async () => t.close());

  async function ao(ref_id: string, component_id?: string) {
    const res = await t.http.post(`/repositories/${repo}/archival_objects`).set(H)
      .send({ title: ref_id, level: 'file', resource: { ref: resource }, ref_id, component_id });
    assert.equal(res.status, 200, res.text);
    return res.body.uri as string;
  }

  it('finds archival objects by ref_id (values are alternatives) and by component_id (params must all match)', async () => {
    const a = await ao('ref-a', 'C1');
    const b = await ao('ref-b', 'C1');
    const both = await t.http.get(find('archival_objects')).query({ 'ref_id[]': ['ref-a', 'ref-b', 'ref-none'] }).set(H);
    assert.deepEqual(both.body, { archival_objects: [{ ref: a }, { ref: b }] });
    const and = await t.http.get(find('archival_objects')).query({ 'ref_id[]': ['ref-b'], 'component_id[]': ['C1'] }).set(H);
    assert.deepEqual(and.body, { archival_objects: [{ ref: b }] });
    const none = await t.http.get(find('archival_objects')).query({ 'ref_id[]': ['ref-a'], 'component_id[]': ['C9'] }).set(H);
    assert.deepEqual(none.body, { archival_objects: [] });
    assert.deepEqual((await t.http.get(find('archival_objects')).set(H)).body, { archival_objects: [] });
  });

  it('finds resources by a JSON identifier padded to four parts', async () => {
    const hit = await t.http.get(find('resources')).query({ 'identifier[]': ['["MS","001"]'] }).set(H);
    assert.deepEqual(hit.body, { resources: [{ ref: resource }] });
    const partial = await t.http.get(find('resources')).query({ 'identifier[]': ['["MS"]'] }).set(H);
    assert.deepEqual(partial.body, { resources: [] });
    const notArray = await t.http.get(find('resources')).query({ 'identifier[]': ['"MS"'] }).set(H);
    assert.deepEqual(notArray.body, { resources: [] });
    const invalid = await t.http.get(find('resources')).query({ 'identifier[]': ['["MS"'] }).set(H);
    assert.equal(invalid.status, 400);
    assert.match(invalid.body.error, /^Had some trouble parsing your request/);
  });

  it('inlines records with resolve[] naming the response key', async () => {
    const res = await t.http.get(find('resources')).query({ 'identifier[]': ['["MS","001"]'], 'resolve[]': 'resources' }).set(H);
    assert.equal(res.body.resources[0]._resolved.id_0, 'MS');
  });

  it('finds digital objects and top containers; never across repositories; not for anonymous callers', async () => {
    const dobj = await t.http.post(`/repositories/${repo}/digital_objects`).set(H).send({ ...sampleRecord('digital_object', repo), digital_object_id: 'DO-77' });
    assert.deepEqual((await t.http.get(find('digital_objects')).query({ 'digital_object_id[]': ['DO-77'] }).set(H)).body, { digital_objects: [{ ref: dobj.body.uri }] });
    const box = await t.http.post(`/repositories/${repo}/top_containers`).set(H).send({ indicator: '42', barcode: 'B-42' });
    assert.deepEqual((await t.http.get(find('top_containers')).query({ 'barcode[]': ['B-42'] }).set(H)).body, { top_containers: [{ ref: box.body.uri }] });
    const other = await createRepository(t, 'FINDOTHER');
    const elsewhere = await t.http.get(`/repositories/${other}/find_by_id/digital_objects`).query({ 'digital_object_id[]': ['DO-77'] }).set(H);
    assert.deepEqual(elsewhere.body, { digital_objects: [] });
    assert.equal((await t.http.get(find('digital_objects')).query({ 'digital_object_id[]': ['DO-77'] })).status, 403);
    const scalar = await t.http.get(find('archival_objects')).query({ ref_id: 'x' }).set(H);
    assert.equal(scalar.status, 400);
  });
});
