import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

describe(`enumerations (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'ENUMS');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(async () => t.close());

  const byName = async (name: string) => (await t.http.get(`/config/enumerations/names/${name}`)).body;

  it('lists every list, and finds one by id and by name', async () => {
    const all = await t.http.get('/config/enumerations');
    assert.equal(all.status, 200);
    const acq = all.body.find((e: { name: string }) => e.name === 'accession_acquisition_type');
    assert.deepEqual(acq.values, ['deposit', 'gift', 'purchase', 'transfer']);
    assert.ok(acq.relationships.includes('accession_acquisition_type'));
    const byId = await t.http.get(acq.uri);
    assert.deepEqual(byId.body.values, acq.values);
    assert.deepEqual(await byName('accession_acquisition_type'), byId.body);
    assert.deepEqual((await t.http.get('/config/enumerations/names/nope')).body, { error: 'Enumeration not found' });
    assert.equal((await t.http.get('/config/enumerations/999999')).status, 404);
    const csv = await t.http.get('/config/enumerations/csv');
    assert.match(csv.headers['content-type'], /^text\/csv/);
    assert.match(csv.text, /^Enumeration code,Enumeration,Value code,Value,Position,Read-only\n/);
  });

  it('makes an added value valid at once, refuses to remove it while in use, and removes it once unused', async () => {
    const list = await byName('accession_acquisition_type');
    const refused = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), acquisition_type: 'bequest' });
    assert.equal(refused.status, 400);
    const added = await t.http.post(list.uri).set(H).send({ ...list, values: [...list.values, 'bequest'] });
    assert.equal(added.status, 200, added.text);
    const acc = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), acquisition_type: 'bequest' });
    assert.equal(acc.status, 200, acc.text);
    const now = await byName('accession_acquisition_type');
    const inUse = await t.http.post(list.uri).set(H).send({ ...now, values: list.values });
    assert.deepEqual([inUse.status, inUse.body], [409, { error: "Can't delete a value that's in use: bequest" }]);
    await t.http.delete(acc.body.uri).set(H).expect(200);
    const removed = await t.http.post(list.uri).set(H).send({ ...now, values: list.values });
    assert.equal(removed.status, 200, removed.text);
    const again = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), acquisition_type: 'bequest' });
    assert.equal(again.status, 400);
    const stale = await t.http.post(list.uri).set(H).send({ ...now, values: list.values });
    assert.equal(stale.status, 409);
  });

  it('protects non-editable lists and read-only values; anonymous callers cannot write', async () => {
    const dates = await byName('date_type');
    assert.equal(dates.editable, false);
    const refused = await t.http.post(dates.uri).set(H).send({ ...dates, values: [...dates.values, 'someday'] });
    assert.deepEqual([refused.status, refused.body], [403, { error: 'Access denied' }]);
    const anon = await t.http.post(dates.uri).send(dates);
    assert.equal(anon.status, 403);
  });

  it('creates a list, moves and suppresses values, and migrates records from one value to another', async () => {
    const created = await t.http.post('/config/enumerations').set(H).send({ name: 'shelf_colour', values: ['red', 'green', 'blue'] });
    assert.equal(created.status, 200, created.text);
    const list = (await t.http.get(created.body.uri)).body;
    const blue = list.enumeration_values.find((v: { value: string }) => v.value === 'blue');
    await t.http.post(`${blue.uri}/position`).query({ position: 0 }).set(H).expect(200);
    assert.deepEqual((await t.http.get(created.body.uri)).body.values, ['blue', 'green', 'red']);
    const hidden = await t.http.post(`${blue.uri}/suppressed`).query({ suppressed: true }).set(H);
    assert.deepEqual(hidden.body, { status: 'Suppressed', id: Number(blue.uri.split('/').pop()), suppressed_state: 1 });
    assert.deepEqual((await t.http.get(created.body.uri)).body.values, ['green', 'red']);

    const acq = await byName('accession_acquisition_type');
    const acc = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), acquisition_type: 'gift' });
    const migrated = await t.http.post('/config/enumerations/migration').set(H).send({ enum_uri: acq.uri, from: 'gift', to: 'purchase' });
    assert.equal(migrated.status, 200, migrated.text);
    assert.equal(migrated.body.values.includes('gift'), false);
    assert.equal((await t.http.get(acc.body.uri).set(H)).body.acquisition_type, 'purchase');
    const unknown = await t.http.post('/config/enumerations/migration').set(H).send({ enum_uri: acq.uri, from: 'nothing', to: 'purchase' });
    assert.equal(unknown.status, 404);
  });

  it('updates a value from its record (position, suppressed), refuses a new text, 404 for an unknown id, 403 anonymously', async () => {
    const created = await t.http.post('/config/enumerations').set(H).send({ name: 'box_colour', values: ['grey', 'white', 'black'] });
    const list = (await t.http.get(created.body.uri)).body;
    const black = list.enumeration_values.find((v: { value: string }) => v.value === 'black');
    const moved = await t.http.post(black.uri).set(H).send({ ...black, position: 0 });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual((await t.http.get(created.body.uri)).body.values, ['black', 'white', 'grey']);
    const hidden = await t.http.post(black.uri).set(H).send({ ...(await t.http.get(black.uri)).body, suppressed: true });
    assert.equal(hidden.status, 200, hidden.text);
    assert.equal((await t.http.get(black.uri)).body.suppressed, true);
    assert.equal((await t.http.get(created.body.uri)).body.values.includes('black'), false);
    const renamed = await t.http.post(black.uri).set(H).send({ ...black, value: 'ebony' });
    assert.equal(renamed.status, 400);
    assert.match(renamed.body.error.value[0], /migration/);
    assert.equal((await t.http.post('/config/enumeration_values/999999').set(H).send({ value: 'x' })).status, 404);
    assert.equal((await t.http.post(black.uri).set(H).send({ position: 1 })).status, 400, 'value is required');
    assert.equal((await t.http.post(black.uri).send(black)).status, 403);
  });
});
