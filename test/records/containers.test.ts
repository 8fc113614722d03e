import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

describe(`top containers: batch and bulk routes (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  const boxes = () => `/repositories/${repo}/top_containers`;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'BOXES');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(async () => t.close());

  async function box(extra: Record<string, unknown> = {}) {
    const res = await t.http.post(boxes()).set(H).send({ ...sampleRecord('top_container', repo), ...extra });
    assert.equal(res.status, 200, res.text);
    return res.body as { id: number; uri: string };
  }

  it('sets ILS holding ids, profiles and locations on several containers at once', async () => {
    const [a, b] = [await box(), await box()];
    const profile = await t.http.post('/container_profiles').set(H).send(sampleRecord('container_profile', repo));
    const location = await t.http.post('/locations').set(H).send(sampleRecord('location', repo));
    const ils = await t.http.post(`${boxes()}/batch/ils_holding_id`).query({ 'ids[]': [a.id, b.id], ils_holding_id: 'ILS-9' }).set(H);
    assert.equal(ils.status, 200, ils.text);
    assert.equal(ils.body.records_updated, 2);
    await t.http.post(`${boxes()}/batch/container_profile`).query({ 'ids[]': [a.id], container_profile_uri: profile.body.uri }).set(H).expect(200);
    await t.http.post(`${boxes()}/batch/location`).query({ 'ids[]': [b.id], location_uri: location.body.uri }).set(H).expect(200);
    const gotA = await t.http.get(a.uri).set(H);
    const gotB = await t.http.get(b.uri).set(H);
    assert.deepEqual([gotA.body.ils_holding_id, gotA.body.container_profile.ref, gotA.body.lock_version], ['ILS-9', profile.body.uri, 2]);
    assert.equal(gotB.body.container_locations[0].ref, location.body.uri);
    assert.equal(gotB.body.container_locations[0].status, 'current');
    const missing = await t.http.post(`${boxes()}/batch/container_profile`).query({ 'ids[]': [a.id], container_profile_uri: '/container_profiles/9999' }).set(H);
    assert.deepEqual([missing.status, missing.body], [400, { error: "Can't relate to non-existent record: /container_profiles/9999" }]);
  });

  it('sets barcodes in bulk, naming the container that fails, and changes nothing then', async () => {
    const [a, b] = [await box(), await box()];
    const ok = await t.http.post(`${boxes()}/bulk/barcodes`).set(H).send({ [a.uri]: 'BC-1', [b.uri]: 'BC-2' });
    assert.deepEqual([ok.status, ok.body], [200, { updated: [a.uri, b.uri] }]);
    const clash = await t.http.post(`${boxes()}/bulk/barcodes`).set(H).send({ [a.uri]: 'BC-3', [b.uri]: 'BC-3' });
    assert.equal(clash.status, 400);
    assert.deepEqual(clash.body, { error: { barcode: ['A barcode must be unique within a repository'] }, uri: b.uri });
    assert.equal((await t.http.get(a.uri).set(H)).body.barcode, 'BC-1', 'the failed batch left the first container alone');
    const bad = await t.http.post(`${boxes()}/bulk/indicators`).set(H).send(['not', 'an', 'object']);
    assert.equal(bad.status, 400);
  });

  it('lists the top containers of an accession', async () => {
    const a = await box();
    const acc = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({
      ...sampleRecord('accession', repo),
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: a.uri } } }],
    });
    const list = await t.http.get(`${acc.body.uri}/top_containers`).set(H);
    assert.deepEqual(list.body, [{ ref: a.uri }]);
  });

  it('titles locations and creates them in batches from coordinate ranges', async () => {
    const one = await t.http.post('/locations').set(H).send({ building: 'Main', floor: '2', coordinate_1_label: 'Shelf', coordinate_1_indicator: '4' });
    assert.equal((await t.http.get(one.body.uri)).body.title, 'Main, 2 [Shelf: 4]');
    const body = { building: 'Annex', coordinate_1_range: { label: 'Range', start: '1', end: '3' }, coordinate_2_range: { label: 'Shelf', start: 'A', end: 'B' } };
    const dry = await t.http.post('/locations/batch').query({ dry_run: true }).set(H).send(body);
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.length, 6);
    assert.equal(dry.body[0], 'Annex [Range: 1, Shelf: A]');
    const made = await t.http.post('/locations/batch').set(H).send(body);
    assert.equal(made.body.length, 6);
    assert.equal((await t.http.get(made.body[5])).body.coordinate_2_indicator, 'B');
    const updated = await t.http.post('/locations/batch_update').set(H).send({ record_uris: made.body.slice(0, 2), floor: 'B1' });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await t.http.get(made.body[0])).body.floor, 'B1');
    const tooBig = await t.http.post('/locations/batch').set(H).send({ building: 'X', coordinate_1_range: { label: 'R', start: '1', end: '5000' } });
    assert.equal(tooBig.status, 400);
    const noRange = await t.http.post('/locations/batch').set(H).send({ building: 'X' });
    assert.equal(noRange.status, 400);
  });

  it('refuses a previous location that is not temporary', async () => {
    const loc = await t.http.post('/locations').set(H).send({ building: 'Old', barcode: `OLD-${Date.now()}` });
    const res = await t.http.post(boxes()).set(H).send({
      indicator: '9', container_locations: [{ jsonmodel_type: 'container_location', status: 'previous', start_date: '2020-01-01', end_date: '2021-01-01', ref: loc.body.uri }],
    });
    assert.deepEqual([res.status, res.body], [400, { error: { 'container_locations/0/status': ['cannot be previous if Location is not temporary'] } }]);
    const temp = await t.http.post('/locations').set(H).send({ building: 'Cart', barcode: `CART-${Date.now()}`, temporary: 'conservation' });
    assert.equal(temp.status, 200, temp.text);
    const ok = await t.http.post(boxes()).set(H).send({
      indicator: '10', container_locations: [{ jsonmodel_type: 'container_location', status: 'previous', start_date: '2020-01-01', end_date: '2021-01-01', ref: temp.body.uri }],
    });
    assert.equal(ok.status, 200, ok.text);
  });
});
