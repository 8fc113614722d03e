import assert from 'node:assert/strict';
import { STORE, type TestApp } from '../helpers';
import { chunkedEad, type ChunkedJobs, startChunkedJobs } from './chunked-fixture';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An EAD import job writes its file in chunks pending for the job (store/pending.ts): no reader
 * sees them until the job publishes them together; other clients' writes go on between chunks; a
 * cancel or a failure removes what the chunks wrote. Short chunks and a pause after each keep the
 * import running long enough to look at it.
 */
// Import jobs chunk on SQLite only (import-job.ts): on MariaDB a file is one transaction, as the other import types.
(STORE === 'sqlite' ? describe : describe.skip)(`chunked import jobs (${STORE})`, function () {
  this.timeout(300_000);
  let c: ChunkedJobs;
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;

  before(async () => {
    c = await startChunkedJobs('CHUNKS', { IMPORT_PAUSE_BETWEEN_CHUNKS_MS: '100' });
    ({ t, H, base } = c);
  });
  after(() => t?.close());

  const knex = () => t.services.db.knex;
  const pendingRows = () => c.pendingRows();
  const tableCounts = () => c.tableCounts();
  const submit = (name: string, xml: string) => c.submit('ead_xml', name, xml);
  /** Waits until the job has written at least `atLeast` pending records. */
  const untilPending = async (atLeast: number) => {
    for (let i = 0; i < 3000 && (await pendingRows()) < atLeast; i++) await sleep(10);
    assert.ok((await pendingRows()) >= atLeast, 'the import wrote pending records');
  };
  const total = async (path: string) => (await t.http.get(`${base}/${path}`).query({ page: 1 }).set(H)).body.total;

  it('keeps its records from every reader while it runs, lets other writes through, and shows every record once published', async () => {
    const jobUri = await submit('visible.xml', chunkedEad(400, 'VIS'));
    await untilPending(50);
    const resource = await knex()('records').where({ type: 'resource' }).whereNotNull('pending_job').first('uri');
    const component = await knex()('records').where({ type: 'archival_object' }).whereNotNull('pending_job').first('uri');
    assert.ok(resource && component);

    // Listings, GET by URI, find_by_id, trees, search, resolve: none shows a pending record.
    assert.equal(await total('resources'), 0);
    assert.equal(await total('archival_objects'), 0);
    assert.equal(await total('top_containers'), 0);
    assert.equal((await t.http.get(resource.uri).set(H)).status, 404);
    assert.equal((await t.http.get(component.uri).set(H)).status, 404);
    assert.equal((await t.http.get(`${resource.uri}/tree/root`).set(H)).status, 404);
    const found = await t.http.get(`${base}/find_by_id/archival_objects`).query({ 'ref_id[]': 'VIS-ref-1' }).set(H);
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.archival_objects, []);
    const searched = await t.http.get(`${base}/search`).query({ q: '*', page: 1, 'type[]': 'archival_object' }).set(H);
    assert.equal(searched.body.total_hits, 0, JSON.stringify(searched.body).slice(0, 300));
    assert.equal(Number((await knex()('change_log').where('uri', component.uri).count({ n: '*' }).first())!.n), 0, 'no change-log entry yet');

    // Another client's write answers between two chunks, long before the import ends.
    const started = Date.now();
    const accession = await t.http.post(`${base}/accessions`).set(H).send({ id_0: 'BESIDE-1', title: 'Written beside the import', accession_date: '2024-01-01' });
    const waited = Date.now() - started;
    assert.equal(accession.status, 200, accession.text);
    assert.ok(waited < 1000, `the create waited ${waited} ms`);
    assert.equal((await t.http.get(jobUri).set(H)).body.status, 'running', 'the import was still running');

    await t.services.jobs!.idle(480_000);
    const job = (await t.http.get(jobUri).set(H)).body;
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(await pendingRows(), 0);
    assert.equal(await total('resources'), 1);
    assert.equal(await total('archival_objects'), 400);
    assert.equal(await total('top_containers'), 8);
    assert.equal((await t.http.get(component.uri).set(H)).status, 200);
    const root = await t.http.get(`${resource.uri}/tree/root`).set(H);
    assert.equal(root.status, 200);
    assert.equal(root.body.child_count, 400);
    const after = await t.http.get(`${base}/find_by_id/archival_objects`).query({ 'ref_id[]': 'VIS-ref-1' }).set(H);
    assert.equal(after.body.archival_objects.length, 1);
    // Each published record has its change-log entry, and the index follows.
    assert.equal(Number((await knex()('change_log').where('uri', 'like', `${base}/archival_objects/%`).count({ n: '*' }).first())!.n), 400);
    let hits = 0;
    for (let i = 0; i < 300 && hits < 400; i++) {
      hits = (await t.http.get(`${base}/search`).query({ q: '*', page: 1, 'type[]': 'archival_object' }).set(H)).body.total_hits;
      if (hits < 400) await sleep(100);
    }
    assert.equal(hits, 400);
    const records = (await t.http.get(`${jobUri}/records`).query({ page: 1 }).set(H)).body;
    assert.ok(records.total >= 409, `the job lists what it created: ${records.total}`);
  });

  it('a pending record holds its identifier: a create of the same one is refused with 400, as after the import', async () => {
    const jobUri = await submit('held.xml', chunkedEad(300, 'HELD'));
    await untilPending(5);
    const res = await t.http.post(`${base}/resources`).set(H).send({
      title: 'Same identifier', id_0: 'HELD', level: 'collection', dates: [{ date_type: 'single', label: 'creation', expression: '1900' }],
      extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng' } }],
    });
    assert.equal(res.status, 400, res.text);
    await t.services.jobs!.idle(480_000);
    assert.equal((await t.http.get(jobUri).set(H)).body.status, 'completed');
  });

  it('a canceled import leaves nothing behind: no record, key, link, count or change-log entry', async () => {
    const before = await tableCounts();
    const jobUri = await submit('canceled.xml', chunkedEad(2000, 'CANCEL'));
    await untilPending(100);
    assert.equal((await t.http.post(`${jobUri}/cancel`).set(H)).status, 200);
    await t.services.jobs!.idle(480_000);
    assert.equal((await t.http.get(jobUri).set(H)).body.status, 'canceled');
    assert.equal(await pendingRows(), 0);
    assert.deepEqual(await tableCounts(), before);
  });

  it('a file that fails after some chunks leaves nothing behind', async () => {
    const before = await tableCounts();
    const lastId = async () => Number((await knex()('id_sequences').where({ type: 'archival_object' }).first('last_id'))?.last_id ?? 0);
    const idsBefore = await lastId();
    const resourcesBefore = await total('resources');
    const jobUri = await submit('broken.xml', chunkedEad(1000, 'BROKEN', '<c level="file"><did></did></c>'));
    await t.services.jobs!.idle(480_000);
    const job = (await t.http.get(jobUri).set(H)).body;
    assert.equal(job.status, 'failed', JSON.stringify(job));
    assert.equal(await pendingRows(), 0);
    assert.deepEqual(await tableCounts(), before);
    assert.equal(await total('resources'), resourcesBefore);
    assert.ok(await lastId() - idsBefore >= 800, 'its chunks had written its components before it failed');
  });
});
