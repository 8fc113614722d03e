import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';

describe(`schemas, feeds, batch delete and calculators (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;
  let nobody: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    base = `/repositories/${(await t.http.post('/repositories').set(H).send({ repo_code: 'FEED', name: 'Feeds' })).body.id}`;
    await t.http.post('/users').query({ password: 'pw' }).set(H).send({ username: 'feed-nobody', name: 'N' }).expect(200);
    nobody = { 'X-ArchivesSpace-Session': (await t.http.post('/users/feed-nobody/login').query({ password: 'pw' })).body.session };
  });
  after(() => t?.close());

  const post = async (path: string, body: object) => {
    const res = await t.http.post(path).set(H).send(body);
    assert.equal(res.status, 200, res.text);
    return res.body.uri as string;
  };

  it('serves the schemas in the JSONModel shape, 404 for an unknown one', async () => {
    const all = await t.http.get('/schemas');
    assert.equal(all.status, 200);
    assert.equal(all.body.accession.uri, '/repositories/:repo_id/accessions');
    const one = (await t.http.get('/schemas/accession')).body;
    assert.equal(one.properties.acquisition_type.dynamic_enum, 'accession_acquisition_type');
    assert.equal(one.properties.dates.items.type, 'JSONModel(:date) object');
    assert.equal(one.properties.uri.readonly, true);
    assert.equal((await t.http.get('/schemas/resource')).body.properties.title.ifmissing, 'error');
    assert.equal((await t.http.get('/schemas/no_such_thing')).status, 404);
  });

  it('feeds updates (with the record) and deletions from the change log, to index_system only', async () => {
    const start = (await t.http.get('/update-feed').query({ last_sequence: 0 }).set(H)).body as any[];
    const last = start.length ? start[start.length - 1].sequence : 0;
    const acc = await post(`${base}/accessions`, { id_0: 'F1', title: 'Fed', accession_date: '2024-01-01' });
    const feed = (await t.http.get('/update-feed').query({ last_sequence: last }).set(H)).body as any[];
    const entry = feed.find((e) => e.uri === acc);
    assert.ok(entry, JSON.stringify(feed));
    assert.equal(entry.record.title, 'Fed');
    assert.ok(entry.sequence > last);
    const before = Math.floor(Date.now() / 1000) - 1;
    await t.http.delete(acc).set(H).expect(200);
    const after = (await t.http.get('/update-feed').query({ last_sequence: entry.sequence }).set(H)).body as any[];
    assert.deepEqual(after.filter((e) => e.uri === acc).map((e) => e.record), ['deleted']);
    const deleted = await t.http.get('/delete-feed').query({ page: 1, modified_since: before }).set(H);
    assert.ok(deleted.body.results.includes(acc), deleted.text);
    assert.equal((await t.http.get('/update-feed').set(nobody)).status, 403);
    assert.equal((await t.http.get('/delete-feed').query({ page: 0 }).set(H)).status, 400);
  });

  it('announces changes to repositories, permissions and preferences on /notifications, waiting for one when there is none', async () => {
    const head = async () => (await t.http.get('/update-feed').query({ last_sequence: 0 }).set(H)).body.reduce((m: number, e: any) => Math.max(m, e.sequence), 0);
    const since = await head();
    // Nothing to announce yet: an accession is not announced, and the answer waits for something that is.
    await post(`${base}/accessions`, { id_0: 'N1', title: 'Quiet', accession_date: '2024-01-01' });
    const waiting = t.http.get('/notifications').query({ last_sequence: since });
    setTimeout(() => { void t.http.post('/repositories').set(H).send({ repo_code: 'NOTE', name: 'Announced' }).then(() => undefined); }, 600);
    const started = Date.now();
    const got = await waiting;
    assert.equal(got.status, 200, got.text);
    assert.ok(Date.now() - started >= 500, 'it waited for the change');
    // The repository and its groups: one of each code.
    assert.deepEqual(got.body.map((n: any) => n.code).sort(), ['REFRESH_ACLS', 'REPOSITORY_CHANGED']);
    assert.deepEqual(Object.keys(got.body[0]).sort(), ['code', 'params', 'sequence', 'timestamp']);
    // From the last sequence seen: nothing new.
    const after = await t.http.get('/notifications').query({ last_sequence: Math.max(...got.body.map((n: any) => n.sequence)) });
    assert.deepEqual(after.body, []);
    assert.equal((await t.http.get('/notifications').query({ last_sequence: 'x' })).status, 400);
  });

  it('deletes a batch all or nothing, each as its own DELETE would be checked', async () => {
    const a = await post(`${base}/accessions`, { id_0: 'B1', title: 'One', accession_date: '2024-01-01' });
    const b = await post(`${base}/accessions`, { id_0: 'B2', title: 'Two', accession_date: '2024-01-01' });
    const failed = await t.http.post('/batch_delete').query({ 'record_uris[]': [a, `${base}/accessions/99999`] }).set(H);
    assert.equal(failed.status, 400, failed.text);
    assert.equal((await t.http.get(a).set(H)).status, 200);
    const refused = await t.http.post('/batch_delete').query({ 'record_uris[]': [a] }).set(nobody);
    assert.equal(refused.status, 400);
    assert.equal((await t.http.get(a).set(H)).status, 200);
    const ok = await t.http.post('/batch_delete').query({ 'record_uris[]': [a, b] }).set(H);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.results.map((r: any) => r.uri), [a, b]);
    assert.equal((await t.http.get(a).set(H)).status, 404);
    assert.equal((await t.http.post('/batch_delete').set(H)).status, 400);
  });

  it('calculates the dates and the extent below a record', async () => {
    const profile = await post('/container_profiles', { name: 'Box', extent_dimension: 'width', dimension_units: 'inches', width: '12', height: '10', depth: '15' });
    const box = (n: string) => post(`${base}/top_containers`, { type: 'box', indicator: n, container_profile: { ref: profile } });
    const [b1, b2] = [await box('1'), await box('2')];
    const resource = await post(`${base}/resources`, {
      id_0: 'CALC', title: 'Calculated', level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1800' }],
      extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng' } }],
      finding_aid_language: 'eng', finding_aid_script: 'Latn',
    });
    const inst = (uri: string) => [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: uri } } }];
    await post(`${base}/archival_objects`, { title: 'A', level: 'file', resource: { ref: resource }, dates: [{ date_type: 'inclusive', label: 'creation', begin: '1901-05', end: '1910' }], instances: inst(b1) });
    await post(`${base}/archival_objects`, { title: 'B', level: 'file', resource: { ref: resource }, dates: [{ date_type: 'single', label: 'creation', begin: '1899' }], instances: inst(b2) });
    const dates = await t.http.get('/date_calculator').query({ record_uri: resource }).set(H);
    assert.equal(dates.status, 200, dates.text);
    assert.deepEqual([dates.body.min_begin, dates.body.min_begin_date, dates.body.max_end, dates.body.max_end_date], ['1899', '1899-01-01', '1910', '1910-12-31']);
    const extent = await t.http.get('/extent_calculator').query({ record_uri: resource, unit: 'feet' }).set(H);
    assert.equal(extent.status, 200, extent.text);
    assert.deepEqual([extent.body.total_extent, extent.body.container_count, extent.body.units], [2, 2, 'feet']);
    assert.equal((await t.http.get('/extent_calculator').query({ record_uri: resource, unit: 'cubits' }).set(H)).status, 400);
    assert.equal((await t.http.get('/date_calculator').query({ record_uri: `${base}/resources/99999` }).set(H)).status, 400);
    assert.equal((await t.http.get('/date_calculator').query({ record_uri: resource }).set(nobody)).status, 403);
  });
});
