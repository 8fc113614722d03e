import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importers } from '../../src/exchange/import';
import { STORE, type TestApp } from '../helpers';
import { type ChunkedJobs, startChunkedJobs } from './chunked-fixture';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const HEADER = ['accession_title', 'accession_number_1', 'accession_number_2', 'accession_accession_date', 'subject_term', 'subject_term_type', 'subject_source',
  'agent_role', 'agent_type', 'agent_name_primary_name', 'agent_name_rest_of_name'];

/**
 * An accession spreadsheet of `n` rows, each linked to the same subject and agent (found or
 * created once by the import); `broken` repeats the first row's identifier on that row.
 */
function accessionCsv(n: number, prefix: string, broken?: number): string {
  const rows = Array.from({ length: n }, (_, i) => [`Chunked ${prefix} ${i + 1}`, prefix, String(broken === i + 1 ? 1 : i + 1), '2024-01-01',
    `Chunked topic ${prefix}`, 'topical', 'local', 'source', 'agent_person', `Chunked ${prefix}`, 'Agent'].join(','));
  return [HEADER.join(','), ...rows].join('\n');
}

/**
 * Every import type goes through one path (exchange/import/session.ts importFile): on SQLite an
 * import job writes a spreadsheet in chunks pending for the job, as an EAD file
 * (chunked-import.test.ts). Other clients' writes go on between chunks; no reader sees the rows
 * until the end; a row that fails near the end leaves nothing.
 */
(STORE === 'sqlite' ? describe : describe.skip)(`chunked CSV import jobs (${STORE})`, function () {
  this.timeout(300_000);
  let c: ChunkedJobs;
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;

  before(async () => {
    c = await startChunkedJobs('CSVCHUNKS', { IMPORT_PAUSE_BETWEEN_CHUNKS_MS: '20' });
    ({ t, H, base } = c);
  });
  after(() => t?.close());

  const knex = () => t.services.db.knex;
  const pendingRows = () => c.pendingRows();
  const tableCounts = () => c.tableCounts();
  const submit = (name: string, csv: string) => c.submit('accession_csv', name, csv);
  const total = async (path: string) => (await t.http.get(`${base}/${path}`).query({ page: 1 }).set(H)).body.total;
  const ofTitle = async (type: string, text: string) =>
    Number((await knex()('records').where({ type }).whereNull('pending_job').andWhere('json', 'like', `%${text}%`).count({ n: '*' }).first())!.n);

  it('keeps several thousand rows from every reader while it runs, lets another create through in under a second, and publishes them whole', async () => {
    const rows = 3000;
    const jobUri = await submit('many.csv', accessionCsv(rows, 'MANY'));
    for (let i = 0; i < 3000 && (await pendingRows()) < 200; i++) await sleep(10);
    assert.ok((await pendingRows()) >= 200, 'the import wrote pending records');
    const pending = await knex()('records').where({ type: 'accession' }).whereNotNull('pending_job').first('uri');
    assert.ok(pending);

    assert.equal(await total('accessions'), 0);
    assert.equal((await t.http.get(pending.uri).set(H)).status, 404);
    assert.equal(await ofTitle('subject', 'Chunked topic MANY'), 0, 'the shared subject is pending too');

    const started = Date.now();
    const beside = await t.http.post(`${base}/accessions`).set(H).send({ id_0: 'BESIDE-CSV', title: 'Written beside the import', accession_date: '2024-01-01' });
    const waited = Date.now() - started;
    assert.equal(beside.status, 200, beside.text);
    assert.ok(waited < 1000, `the create waited ${waited} ms`);
    assert.equal((await t.http.get(jobUri).set(H)).body.status, 'running', 'the import was still running');

    await t.services.jobs!.idle(280_000);
    const job = (await t.http.get(jobUri).set(H)).body;
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(await pendingRows(), 0);
    assert.equal(await total('accessions'), rows + 1);
    assert.equal((await t.http.get(pending.uri).set(H)).status, 200);
    // Found or created once over all the chunks, and linked from every row.
    assert.equal(await ofTitle('subject', 'Chunked topic MANY'), 1);
    assert.equal(await ofTitle('agent_person', 'Chunked MANY'), 1);
    const accession = (await t.http.get(pending.uri).set(H)).body;
    assert.equal(accession.subjects.length, 1);
    assert.equal(accession.linked_agents.length, 1);
    assert.equal(Number((await knex()('change_log').where('uri', 'like', `${base}/accessions/%`).count({ n: '*' }).first())!.n), rows + 1);
  });

  it('a subject another running import holds pending fails the file, asking to run it again, and leaves nothing of it', async () => {
    const jobUri = await submit('holder.csv', accessionCsv(1500, 'HOLDER'));
    const pendingSubject = async () => Number((await knex()('records').where({ type: 'subject' }).whereNotNull('pending_job')
      .andWhere('json', 'like', '%Chunked topic HOLDER%').count({ n: '*' }).first())!.n);
    for (let i = 0; i < 3000 && (await pendingSubject()) < 1; i++) await sleep(10);
    assert.equal(await pendingSubject(), 1, 'the first import holds the subject pending');
    // A second file naming the same subject, in chunks for another job beside the first (called
    // here: the runner runs one import at a time).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-chunked-csv-'));
    const file = path.join(dir, 'second.csv');
    fs.writeFileSync(file, accessionCsv(3, 'SECOND').replace(/Chunked topic SECOND/g, 'Chunked topic HOLDER'));
    const repoId = Number(base.split('/').pop());
    const second = importers.accession_csv.run(t.services, repoId, { username: 'admin' }, { path: file, name: 'second.csv' },
      { log: () => undefined, progress: () => undefined, chunks: { job: 999_999, chunkMs: 20 } });
    await assert.rejects(second, /second\.csv: subject: the subject is being written by another import that has not finished/);
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(Number((await knex()('records').where('pending_job', 999_999).count({ n: '*' }).first())!.n), 0);
    assert.equal(await ofTitle('accession', 'Chunked SECOND'), 0);
    await t.services.jobs!.idle(280_000);
    assert.equal((await t.http.get(jobUri).set(H)).body.status, 'completed');
    assert.equal(await ofTitle('subject', 'Chunked topic HOLDER'), 1);
  });

  it('a row that fails near the end leaves nothing behind: no record, key, link, change-log entry or pending row', async () => {
    const before = await tableCounts();
    const accessionsBefore = await total('accessions');
    const lastId = async () => Number((await knex()('id_sequences').where({ type: 'accession' }).first('last_id'))?.last_id ?? 0);
    const idsBefore = await lastId();
    const jobUri = await submit('broken.csv', accessionCsv(2000, 'BROKEN', 1990));
    await t.services.jobs!.idle(280_000);
    const job = (await t.http.get(jobUri).set(H)).body;
    assert.equal(job.status, 'failed', JSON.stringify(job));
    const log = (await t.http.get(`${jobUri}/log`).set(H)).text;
    assert.match(log, /line 1991/, log.slice(-600));
    assert.equal(await pendingRows(), 0, 'pending rows left');
    assert.deepEqual(await tableCounts(), before, 'rows left in the tables an import writes');
    assert.equal(await total('accessions'), accessionsBefore, 'accessions listed');
    assert.equal(await ofTitle('subject', 'Chunked topic BROKEN'), 0, 'its subject');
    // Most of its rows were in chunks committed before the failing one (which holds the last 20 ms
    // of rows: more of them the faster the machine), and were taken out again.
    const written = await lastId() - idsBefore;
    assert.ok(written >= 1000, `its chunks had written its rows before it failed (ids taken: ${written})`);
  });
});
