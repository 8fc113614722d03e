/**
 * Long jobs let the event loop turn (src/event-loop.ts): a CSV import, a per-record clean-up and a
 * report over a few thousand records run in the same process as the server, and GETs asked
 * meanwhile are answered in a few tens of milliseconds, not after the job. On SQLite a file store,
 * as a server runs (its reads through read connections, beside the job's transaction); the
 * supertest client shares the server's event loop, so a GET's time is what the job left it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRepository, startTestApp, STORE, type TestApp } from '../helpers';

/** Accessions the jobs go over (MariaDB's statements wait on the network, where the loop turns anyway: fewer). */
const RECORDS = STORE === 'sqlite' ? 2500 : 1000;
/** Of them, the ones whose titles the clean-up saves. */
const TRIMMED = Math.round(RECORDS / 3);

describe(`long jobs let GETs through (${STORE})`, function () {
  this.timeout(600_000);
  let t: TestApp;
  let dir: string;
  let H: Record<string, string>;
  let repo: number;
  let probeUri: string;
  const log = process.env.YIELDING_LOG === '1';

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-yielding-'));
    // The in-process indexer off: its batches of 500 changes are work of its own between turns
    // (docs/jobs.md), which a job writing record by record would bring into these figures.
    t = await startTestApp({ INDEXER: 'off', ...(STORE === 'sqlite' ? { DB_URL: `sqlite://${path.join(dir, 'archive.db')}` } : {}) });
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t);
    const probe = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'PROBE', title: 'Probe', accession_date: '2020-01-01' });
    assert.equal(probe.status, 200, probe.text);
    probeUri = probe.body.uri;
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Asks GET one record every 25 ms while the job runs, and checks the GETs were answered as it
   * ran: most of them at once (the median under 200 ms, which leaves a loaded machine room), and
   * several of them (without turns, a job answers the first GET when it is done: one at most).
   * The job's state is read from the store, not through the server, so the GETs alone measure it.
   */
  async function whileRunning(jobUri: string): Promise<void> {
    const id = Number(jobUri.split('/').pop());
    const running = async () => ['queued', 'running'].includes((await t.services.db.reads('jobs').where({ id }).first('status')).status);
    const times: number[] = [];
    const t0 = performance.now();
    while (await running()) {
      const started = performance.now();
      const res = await t.http.get(probeUri).set(H);
      const ms = performance.now() - started;
      assert.equal(res.status, 200, res.text);
      // Only GETs asked and answered while the job ran count.
      if (await running()) times.push(ms);
      // A client's pace, not a flood: each GET also notes its session's activity, a write of its own.
      await new Promise((r) => setTimeout(r, 25));
    }
    const jobMs = performance.now() - t0;
    await t.services.jobs!.idle();
    const job = (await t.http.get(jobUri).set(H)).body;
    assert.equal(job.status, 'completed', JSON.stringify(job));
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const summary = `${times.length} GETs in the job's ${jobMs.toFixed(0)} ms: median ${median?.toFixed(0)} ms, max ${times[times.length - 1]?.toFixed(0)} ms`;
    if (log) console.log(`      ${summary}`);
    // A job shorter than a few GETs' pace (a fast machine) leaves too few to judge; a job that
    // did not turn would have answered one GET at most, after it.
    if (jobMs >= 400) assert.ok(times.length >= 3, summary);
    if (times.length) assert.ok(median < 200, summary);
  }

  const submit = async (job: Record<string, unknown>) => {
    const res = await t.http.post(`/repositories/${repo}/jobs`).set(H).send({ job_type: job.jsonmodel_type, job });
    assert.equal(res.status, 200, res.text);
    return res.body.uri as string;
  };

  it(`answers GETs during a CSV import of ${RECORDS} accessions`, async () => {
    const lines = ['accession_title,accession_number_1,accession_number_2,accession_accession_date'];
    for (let i = 0; i < RECORDS; i++) lines.push(`  Accession ${i} ,Y,${i},2024-01-01`);
    const res = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'accession_csv', filenames: ['many.csv'] } }))
      .attach('files[]', Buffer.from(lines.join('\n')), 'many.csv');
    assert.equal(res.status, 200, res.text);
    await whileRunning(res.body.uri);
    assert.equal((await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1 }).set(H)).body.total, RECORDS + 1);
  });

  it(`answers GETs during trim_whitespace_job over ${RECORDS} accessions (${TRIMMED} saved, a transaction each)`, async () => {
    // The import trimmed its cells: white space put back into some stored titles for the job to take out
    // (it reads every accession and saves those, each in a transaction of its own).
    const knex = t.services.db.knex;
    // The import's first accessions by id (ids need not follow the probe's: on MariaDB a process takes them in blocks).
    const ids: number[] = await knex('records').where({ type: 'accession' }).andWhereNot('uri', probeUri).orderBy('id').limit(TRIMMED).pluck('id');
    await knex('records').where({ type: 'accession' }).whereIn('id', ids).update({ json: knex.raw('REPLACE(json, ?, ?)', ['"title":"Accession ', '"title":"  Accession ']) });
    assert.equal((await t.http.get(probeUri.replace(/\d+$/, String(ids[0]))).set(H)).body.title, '  Accession 0');
    await whileRunning(await submit({ jsonmodel_type: 'trim_whitespace_job' }));
    const [first] = (await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1, page_size: 1, sort: 'identifier' }).set(H)).body.results;
    assert.equal(first.title, first.title.trim());
  });

  it(`answers GETs during a report over ${RECORDS} accessions`, async () => {
    await whileRunning(await submit({ jsonmodel_type: 'report_job', report_type: 'accession_report', format: 'csv' }));
  });
});
