import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli } from '../processes';
import { startTestApp, STORE, TestApp } from '../helpers';

const FERRIS = ['/work/shared/corpus/ead/nyu_ferris.xml', path.resolve(__dirname, '..', '..', '..', 'shared', 'corpus', 'ead', 'nyu_ferris.xml')]
  .find((f) => fs.existsSync(f))!;

/** Import jobs end to end: submitted with files, run in the background, read back, canceled, deleted. */
describe(`background jobs (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;
  let viewer: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'JOBS', name: 'Jobs' })).body.id;
    base = `/repositories/${repo}`;
    const groups = await t.http.get(`${base}/groups`).query({ group_code: 'repository-viewers' }).set(H);
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [groups.body[0].uri] }).set(H).send({ username: 'job-viewer', name: 'V' }).expect(200);
    viewer = { 'X-ArchivesSpace-Session': (await t.http.post('/users/job-viewer/login').query({ password: 'pw' })).body.session };
  });
  after(() => t?.close());

  const submit = (name: string, data: Buffer | string, as = H, importType = 'ead_xml') =>
    t.http.post(`${base}/jobs_with_files`).set(as)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: importType, filenames: [name] } }))
      .attach('files[]', Buffer.isBuffer(data) ? data : Buffer.from(data), name);

  it('imports an EAD file through jobs_with_files, with a log, progress and the records it created', async () => {
    const res = await submit('ferris.xml', fs.readFileSync(FERRIS));
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.uri, new RegExp(`^${base}/jobs/\\d+$`));
    await t.services.jobs!.idle();
    const job = (await t.http.get(res.body.uri).set(H)).body;
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(job.job_type, 'import_job');
    assert.deepEqual(job.job, { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['ferris.xml'] });
    assert.ok(job.time_started && job.time_finished);
    const logText = (await t.http.get(`${res.body.uri}/log`).set(H)).text;
    assert.match(logText, /ferris\.xml: imported \(1 resource, 18 archival_object/);
    const records = (await t.http.get(`${res.body.uri}/records`).query({ page: 1 }).set(H)).body;
    assert.ok(records.results.some((r: any) => /\/resources\/\d+$/.test(r.record.ref)), JSON.stringify(records));
    const resources = await t.http.get(`${base}/resources`).query({ page: 1 }).set(H);
    assert.equal(resources.body.total, 1);
    assert.deepEqual((await t.http.get(`${base}/jobs`).query({ page: 1 }).set(H)).body.results.map((j: any) => j.uri), [res.body.uri]);
    assert.deepEqual((await t.http.get(`${base}/jobs/archived`).query({ page: 1 }).set(viewer)).body.results.map((j: any) => j.uri), [res.body.uri]);
    assert.deepEqual((await t.http.get(`${base}/jobs/active`).set(H)).body, []);
    const importTypes = (await t.http.get(`${base}/jobs/import_types`).set(H)).body;
    assert.deepEqual(importTypes.map((i: any) => i.name), ['ead_xml', 'marcxml', 'marcxml_subjects_and_agents', 'marcxml_accession', 'eac_xml', 'accession_csv',
      'location_csv', 'subject_csv', 'digital_object_csv', 'assessment_csv', 'marcxml_auth_agent']);
    assert.deepEqual(importTypes.find((i: any) => i.name === 'marcxml_auth_agent'),
      { name: 'marcxml_auth_agent', description: 'Import agent records from a MARCXML authority file', label: 'Import agent records from a MARCXML authority file' });
  });

  it('shows how far a one-transaction import is while it runs, and the final figure when it ends', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => `progress-${i},Object ${i}`);
    const res = await submit('many.csv', ['digital_object_id,digital_object_title', ...rows].join('\n'), H, 'digital_object_csv');
    assert.equal(res.status, 200, res.text);
    const seen: number[] = [];
    for (let status = 'queued'; status === 'queued' || status === 'running';) {
      const job = (await t.http.get(res.body.uri).set(H)).body;
      status = job.status;
      if (status === 'running') seen.push(job.progress.done);
      await new Promise((r) => setTimeout(r, 25));
    }
    const job = (await t.http.get(res.body.uri).set(H)).body;
    assert.equal(job.status, 'completed');
    assert.equal(job.progress.done, 1500);
    // A GET that read the row while it still said 'running' (and an older stored figure) takes the
    // live figure after the job ended: the final one, so the figure it shows never goes back.
    assert.equal(t.services.jobs!.liveProgress(Number(res.body.uri.split('/').pop()))?.done, 1500);
    // On SQLite a request waits while a file's transaction holds the store's writer, so the figure is
    // seen between files and at the end; on MariaDB requests go on, and see it grow.
    if (STORE === 'mariadb') assert.ok(seen.some((n) => n > 0 && n < 1500), `a figure between 0 and 1500 while it ran: ${seen.join(' ')}`);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'the figure only grows');
  });

  it('fails a job whose file cannot be imported, writing nothing of it, with the reason in the log', async () => {
    const before = (await t.http.get(`${base}/resources`).query({ page: 1 }).set(H)).body.total;
    const res = await submit('broken.xml', '<ead><archdesc><did><unittitle>Half');
    await t.services.jobs!.idle();
    const job = (await t.http.get(res.body.uri).set(H)).body;
    assert.equal(job.status, 'failed');
    assert.match((await t.http.get(`${res.body.uri}/log`).set(H)).text, /error: broken\.xml: .*nothing of this file was written/);
    assert.equal((await t.http.get(`${base}/resources`).query({ page: 1 }).set(H)).body.total, before);
    const offset = await t.http.get(`${res.body.uri}/log`).query({ offset: 5 }).set(H);
    assert.equal(offset.text, (await t.http.get(`${res.body.uri}/log`).set(H)).text.slice(5));
  });

  it('cancels a queued job, deletes finished jobs, and refuses what it should', async () => {
    await t.services.jobs!.stop();
    const queued = await submit('later.xml', fs.readFileSync(FERRIS));
    assert.equal((await t.http.get(queued.body.uri).set(H)).body.status, 'queued');
    assert.equal((await t.http.get(queued.body.uri).set(H)).body.queue_position, 0);
    assert.equal((await t.http.post(`${queued.body.uri}/cancel`).set(H)).status, 200);
    assert.equal((await t.http.get(queued.body.uri).set(H)).body.status, 'canceled');
    assert.equal((await t.http.delete(queued.body.uri).set(H)).status, 200);
    assert.equal((await t.http.get(queued.body.uri).set(H)).status, 404);
    // Refusals: no file, unknown import type, not multipart, no permission, unknown job.
    const noFile = await t.http.post(`${base}/jobs`).set(H).send({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: [] } });
    assert.equal(noFile.status, 400);
    assert.equal((await submit('x.xml', '<ead/>', H, 'nonsense')).status, 400);
    assert.equal((await t.http.post(`${base}/jobs_with_files`).set(H).send({ job: {} })).status, 400);
    assert.equal((await submit('x.xml', '<ead/>', viewer)).status, 403);
    assert.equal((await t.http.get(`${base}/jobs/99999`).set(H)).status, 404);
    assert.equal((await t.http.get(`${base}/jobs/99999/log`).set(H)).status, 404);
    assert.equal((await t.http.post(`${base}/jobs/99999/cancel`).set(H)).status, 404);
    assert.equal((await t.http.get(`${base}/jobs`).query({ page: 0 }).set(H)).status, 400);
  });
});

describe(`archive-records import-file (${STORE})`, function () {
  this.timeout(180_000);
  it('imports files with a report, and fails with status 1 naming a file it cannot import', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-file-'));
    const t = await startTestApp(STORE === 'sqlite' ? { DB_URL: `sqlite://${path.join(dir, 'store.db')}` } : {});
    try {
      const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
      const repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'CLIIMP', name: 'CLI import' })).body.id;
      const env = { DB_URL: t.config.dbUrl, SEARCH_PATH: path.join(dir, 'search.db'), INDEXER: 'off' };
      const ok = await cli(['import-file', '--repo', String(repo), '--type', 'ead_xml', FERRIS], env);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(JSON.parse(ok.stdout)[0].counts.archival_object, 18);
      const bad = path.join(dir, 'bad.xml');
      fs.writeFileSync(bad, 'not xml at all');
      const failed = await cli(['import-file', '--repo', String(repo), '--type', 'ead_xml', bad], env);
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, /bad\.xml/);
      const unknown = await cli(['import-file', '--repo', String(repo), '--type', 'nope', bad], env);
      assert.equal(unknown.code, 1);
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
