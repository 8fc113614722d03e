import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, STORE } from '../helpers';
import { callsTo, Server, startServer } from '../processes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A finding aid of `n` components, large enough that importing it takes a while. */
function bigEad(n: number): string {
  const components = Array.from({ length: n }, (_, i) =>
    `<c level="file"><did><unittitle>File ${i + 1}</unittitle><unitdate normal="1900/1950">1900-1950</unitdate><container type="box">${1 + Math.floor(i / 50)}</container></did></c>`).join('');
  return `<ead xmlns="urn:isbn:1-931666-22-9"><eadheader><eadid>crash</eadid><filedesc><titlestmt><titleproper>Crash test</titleproper></titlestmt></filedesc></eadheader>`
    + `<archdesc level="collection"><did><unittitle>Killed mid-import</unittitle><unitid>KILL-1</unitid><unitdate normal="1900/1950">1900-1950</unitdate>`
    + `<physdesc><extent>10 linear feet</extent></physdesc><langmaterial><language langcode="eng">English</language></langmaterial></did><dsc>${components}</dsc></archdesc></ead>`;
}

describe(`an import killed with its process (${STORE}, WORKERS=${process.env.WORKERS ?? '1'})`, function () {
  this.timeout(300_000);
  const password = crypto.randomBytes(8).toString('hex');
  const db = freshDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-jobcrash-'));
  const env = {
    DB_URL: STORE === 'sqlite' ? `sqlite://${path.join(dir, 'archive.db')}` : db.dbUrl, ADMIN_PASSWORD: password,
    JOB_FILES_DIR: path.join(dir, 'files'), JOB_LEASE_SECONDS: '2',
  };
  let server: Server | undefined;

  const { call, login } = callsTo(() => server, password);

  after(async () => {
    server?.child.kill('SIGKILL');
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is failed with the reason after a restart, and nothing of its file is in the store; the rest is intact', async () => {
    server = await startServer(env);
    let token = await login();
    const repo = (await call('POST', '/repositories', token, { repo_code: 'CRASH', name: 'Crash' })).body.id;
    const kept = await call('POST', `/repositories/${repo}/accessions`, token, { id_0: 'KEEP-1', title: 'Written before the crash' });
    assert.equal(kept.status, 200);

    const form = new FormData();
    form.append('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['big.xml'] } }));
    form.append('files[]', new Blob([bigEad(STORE === 'sqlite' ? 30_000 : 12_000)], { type: 'application/xml' }), 'big.xml');
    const submitted = await fetch(`${server.base}/repositories/${repo}/jobs_with_files`, { method: 'POST', headers: { 'X-ArchivesSpace-Session': token }, body: form });
    assert.equal(submitted.status, 200, await submitted.clone().text());
    const jobUri = (await submitted.json()).uri as string;

    // Killed while the import runs: it starts at once, and the file takes far longer than this to
    // import. (On SQLite the import holds the store's one connection, so the API cannot be asked
    // meanwhile; the job's record after the restart shows when it started.)
    await sleep(1500);
    server.child.kill('SIGKILL');
    await server.exited;

    server = await startServer(env);
    token = await login();
    let job: any;
    for (let i = 0; i < 200; i++) {
      job = (await call('GET', jobUri, token)).body;
      if (job.status === 'failed') break;
      await sleep(100);
    }
    assert.equal(job.status, 'failed', JSON.stringify(job));
    assert.ok(job.time_started, 'it had started before the kill');
    const logText = await (await fetch(`${server.base}${jobUri}/log`, { headers: { 'X-ArchivesSpace-Session': token } })).text();
    assert.match(logText, /the process running it stopped before it finished; nothing of it was written/);
    const resources = await call('GET', `/repositories/${repo}/resources?page=1`, token);
    assert.equal(resources.body.total, 0, 'no resource of the killed file');
    const components = await call('GET', `/repositories/${repo}/archival_objects?page=1`, token);
    assert.equal(components.body.total, 0, 'no component of the killed file');
    const containers = await call('GET', `/repositories/${repo}/top_containers?page=1`, token);
    assert.equal(containers.body.total ?? containers.body.length ?? 0, 0, 'no container of the killed file');
    assert.equal((await call('GET', kept.body.uri, token)).body.title, 'Written before the crash');
    // The queue goes on: a new job runs to the end.
    const again = new FormData();
    again.append('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['small.xml'] } }));
    again.append('files[]', new Blob([bigEad(20)], { type: 'application/xml' }), 'small.xml');
    const next = await (await fetch(`${server.base}/repositories/${repo}/jobs_with_files`, { method: 'POST', headers: { 'X-ArchivesSpace-Session': token }, body: again })).json();
    for (let i = 0; i < 200; i++) {
      job = (await call('GET', next.uri, token)).body;
      if (job.status === 'completed' || job.status === 'failed') break;
      await sleep(100);
    }
    if (job.status !== 'completed') {
      const log = await (await fetch(`${server.base}${next.uri}/log`, { headers: { 'X-ArchivesSpace-Session': token } })).text();
      assert.fail(`the job after the restart ended ${job.status}: ${log}\n${server.output().slice(-3000)}`);
    }
    assert.equal((await call('GET', `/repositories/${repo}/archival_objects?page=1`, token)).body.total, 20);
  });
});
