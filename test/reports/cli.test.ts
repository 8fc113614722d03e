import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli } from '../processes';
import { startTestApp, STORE, TestApp } from '../helpers';

/** `archive-records report`: a report on standard output, progress and the count on standard error, bad input refused. */
describe(`archive-records report (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let repo: number;
  let env: Record<string, string>;

  // The command line opens the store itself: on SQLite a file, not the tests' in-memory database.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-cli-'));
  before(async () => {
    t = await startTestApp(STORE === 'sqlite' ? { DB_URL: `sqlite://${path.join(dir, 'store.db')}` } : {});
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'CLI', name: 'Command line' })).body.id;
    for (const n of ['1', '2']) {
      await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'C', id_1: n, title: `Accession ${n}`, accession_date: '2022-01-01' }).expect(200);
    }
    env = { DB_URL: t.config.dbUrl, SEARCH_PATH: ':memory:', ADMIN_PASSWORD: t.config.adminPassword };
  });
  after(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the report to stdout in the format asked for', async () => {
    const ran = await cli(['report', 'accession_report', '--repo', String(repo), '--format', 'json'], env);
    assert.equal(ran.code, 0, ran.stderr);
    const out = JSON.parse(ran.stdout);
    assert.deepEqual(out.info, { number_of_accessions: 2, repository: 'Command line' });
    assert.deepEqual(out.records.map((r: { accession_number: string }) => r.accession_number), ['C.1', 'C.2']);
    assert.match(ran.stderr, /report written/);
    const csv = await cli(['report', 'accession_report', '--repo', String(repo), '--param', 'include_suppressed=true'], env);
    assert.equal(csv.code, 0, csv.stderr);
    assert.match(csv.stdout, /^number_of_accessions,2\nrepository,Command line\n\naccession_number,/);
    const created = await cli(['report', 'created_accessions_report', '--repo', String(repo), '--format', 'json', '--param', 'from=2021-12-31', '--param', 'to=2022-01-02'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(JSON.parse(created.stdout).records.map((r: { accession_number: string }) => r.accession_number), ['C.1', 'C.2']);
  });

  it('refuses an unknown report, format or parameter', async () => {
    for (const args of [['report', 'no_such_report'], ['report', 'accession_report', '--format', 'docx'], ['report', 'accession_report', '--param', 'include_suppressed=perhaps'], ['report', 'accession_report', '--param', 'oops']]) {
      const ran = await cli(args, env);
      assert.equal(ran.code, 1, args.join(' '));
      assert.equal(ran.stdout, '');
      assert.match(ran.stderr, /report_type|format|include_suppressed|name=value/);
    }
  });
});
