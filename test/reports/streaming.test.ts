import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { accessionReport } from '../../src/reports/accessions';
import { reportRows } from '../../src/reports/engine';
import { runReport } from './report-helpers';

const MANY = 3000;

/** A report over thousands of records is read a page at a time while it is written, never whole. */
describe(`reports over many records (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'MANY', name: 'Many' })).body.id;
    for (let start = 0; start < MANY; start += 1000) {
      const records = Array.from({ length: 1000 }, (_, i) => ({
        jsonmodel_type: 'accession', uri: `/repositories/import/accessions/import_${start + i}`, id_0: 'A', id_1: String(start + i).padStart(5, '0'),
        title: `Accession ${start + i}`, accession_date: '2021-01-01', extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
      }));
      const res = await t.http.post(`/repositories/${repo}/batch_imports`).set(H).send(records);
      assert.equal(res.status, 200, res.text);
    }
  });
  after(() => t?.close());

  it('yields rows before it has read every page: a record stored after the first row still comes out', async () => {
    const rows = reportRows(accessionReport, { s: t.services, repoId: repo, format: 'csv', includeSuppressed: false, values: {} });
    const first = await rows.next();
    assert.equal(first.value?.accession_number, 'A.00000');
    const late = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'Z', title: 'Stored while the report ran', accession_date: '2021-01-01' });
    assert.equal(late.status, 200, late.text);
    let count = 1;
    let last: Record<string, unknown> | undefined;
    for await (const row of rows) {
      count++;
      last = row;
    }
    assert.equal(count, MANY + 1);
    assert.equal(last?.accession_number, 'Z');
    await t.http.delete(late.body.uri).set(H).expect(200);
  });

  it('stops a running report when its job is canceled, leaving no output file', async () => {
    const res = await t.http.post(`/repositories/${repo}/jobs`).set(H).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'accession_report', format: 'pdf' } });
    assert.equal(res.status, 200, res.text);
    // Canceled as soon as it runs (the process running a job stops it at once): the 3,000 rows take longer than that.
    for (let i = 0; i < 1000 && (await t.http.get(res.body.uri).set(H)).body.status !== 'running'; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await t.http.post(`${res.body.uri}/cancel`).set(H)).status, 200);
    await t.services.jobs!.idle();
    assert.equal((await t.http.get(res.body.uri).set(H)).body.status, 'canceled');
    assert.deepEqual((await t.http.get(`${res.body.uri}/output_files`).set(H)).body, [], (await t.http.get(`${res.body.uri}/log`).set(H)).text);
  });

  it('fails the job with the reason when a page read ahead cannot be read, and the server goes on', async () => {
    // The record of the second page is broken while the first page renders: its read fails ahead of its turn.
    const ids = (await t.http.get(`/repositories/${repo}/accessions?all_ids=true`).set(H)).body as number[];
    const uri = `/repositories/${repo}/accessions/${ids.sort((a, b) => a - b)[250]}`;
    const stored = (await t.services.db.knex('records').where({ uri }).first('json')).json as string;
    await t.services.db.knex('records').where({ uri }).update({ json: '{"broken": ' });
    // A server ends on an unhandled rejection (node's default): the failed read must be answered where it is awaited.
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      const { job, log } = await runReport(t, H, `/repositories/${repo}`, 'accession_report', 'csv');
      assert.equal(job.status, 'failed', log);
      assert.match(log, /JSON/);
      assert.equal((await t.http.get(`/repositories/${repo}/accessions/${ids[0]}`).set(H)).status, 200);
      assert.deepEqual(unhandled, []);
    } finally {
      process.removeListener('unhandledRejection', note);
      await t.services.db.knex('records').where({ uri }).update({ json: stored });
    }
  });

  it('writes a CSV and a PDF report of every record as a job', async () => {
    for (const format of ['csv', 'pdf']) {
      const res = await t.http.post(`/repositories/${repo}/jobs`).set(H).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'accession_report', format } });
      assert.equal(res.status, 200, res.text);
      await t.services.jobs!.idle();
      assert.equal((await t.http.get(res.body.uri).set(H)).body.status, 'completed');
      const ids = (await t.http.get(`${res.body.uri}/output_files`).set(H)).body;
      const file = await t.http.get(`${res.body.uri}/output_files/${ids[0]}`).set(H).buffer(true);
      if (format === 'csv') assert.equal(file.text.trim().split('\n').length, 3 + 1 + MANY);
      else assert.ok(Number(file.headers['content-length'] ?? (file.body as Buffer).length) > 100_000);
    }
  });
});
