import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { freshDatabase, STORE } from '../helpers';
import { callsTo, Server, startServer } from '../processes';
import { chunkedEad } from './chunked-fixture';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const COMPONENTS = 1500;

/** A connection of the test's own to the server's store, to count what no route shows (pending rows). */
function storeKnex(dbUrl: string): Knex {
  if (dbUrl.startsWith('sqlite://')) {
    return knexFactory({ client: 'better-sqlite3', connection: { filename: dbUrl.slice('sqlite://'.length) }, useNullAsDefault: true });
  }
  const u = new URL(dbUrl.replace(/^mariadb:/, 'mysql:'));
  return knexFactory({
    client: 'mysql2',
    connection: { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password), database: u.pathname.slice(1) },
  });
}

/**
 * A chunked import (store/pending.ts) killed with its process (SIGKILL) in each phase: while a
 * chunk is open, between two chunks, inside the publishing transaction, and once published. After
 * the restart either the whole file is visible or nothing of it (the container type it adds to its
 * value list included), and no pending row is left once the job is found dead.
 */
// Import jobs chunk on SQLite only (import-job.ts): on MariaDB a file is one transaction, as the other import types.
(STORE === 'sqlite' ? describe : describe.skip)(`a chunked import killed with its process (${STORE}, WORKERS=${process.env.WORKERS ?? '1'})`, function () {
  this.timeout(600_000);
  const password = crypto.randomBytes(8).toString('hex');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-chunkcrash-'));
  let db: { dbUrl: string; drop: () => Promise<void> } | undefined;
  let server: Server | undefined;

  const { call, login } = callsTo(() => server, password);

  afterEach(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    server = undefined;
    await db?.drop();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * Starts a server with `pauses`, submits a file, waits for `marker` in its log (then `extraMs`),
   * kills it, restarts it, and answers what is visible once the job is failed or completed.
   */
  async function killAt(name: string, pauses: Record<string, string>, marker: RegExp, extraMs = 0) {
    db = STORE === 'sqlite' ? { dbUrl: `sqlite://${path.join(dir, `${name}.db`)}`, drop: async () => undefined } : freshDatabase();
    const env = {
      DB_URL: db.dbUrl, ADMIN_PASSWORD: password, JOB_FILES_DIR: path.join(dir, `${name}-files`), JOB_LEASE_SECONDS: '2', IMPORT_CHUNK_MS: '100',
    };
    server = await startServer({ ...env, ...pauses });
    let token = await login();
    const repo = (await call('POST', '/repositories', token, { repo_code: name.toUpperCase(), name })).body.id;
    const kept = await call('POST', `/repositories/${repo}/accessions`, token, { id_0: 'KEEP-1', title: 'Written before the crash', accession_date: '2024-01-01' });
    assert.equal(kept.status, 200);
    const form = new FormData();
    form.append('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['big.xml'] } }));
    form.append('files[]', new Blob([chunkedEad(COMPONENTS, name.toUpperCase(), '', { type: 'Crash Crate', onResource: true })], { type: 'application/xml' }), 'big.xml');
    const submitted = await fetch(`${server.base}/repositories/${repo}/jobs_with_files`, { method: 'POST', headers: { 'X-ArchivesSpace-Session': token }, body: form });
    assert.equal(submitted.status, 200, await submitted.clone().text());
    const jobUri = (await submitted.json()).uri as string;
    for (let i = 0; i < 6000 && !marker.test(server.output()); i++) await sleep(20);
    assert.match(server.output(), marker);
    await sleep(extraMs);
    server.child.kill('SIGKILL');
    await server.exited;

    server = await startServer(env);
    token = await login();
    let job: any;
    for (let i = 0; i < 300; i++) {
      job = (await call('GET', jobUri, token)).body;
      if (job.status === 'failed' || job.status === 'completed') break;
      await sleep(100);
    }
    const store = storeKnex(db.dbUrl);
    let pending = -1;
    let crate: number;
    try {
      for (let i = 0; i < 300; i++) {
        // The records it left pending, and the values it added to value lists still marked as its own.
        pending = Number((await store('records').whereNotNull('pending_job').count({ n: '*' }).first())!.n)
          + Number((await store('enumeration_values').whereNotNull('pending_job').count({ n: '*' }).first())!.n);
        if (pending === 0) break;
        await sleep(100);
      }
      // The container type the file adds (its first chunk already needs it): on its list only if the file was published.
      crate = Number((await store('enumeration_values').where({ enum_name: 'container_type', value: 'crash_crate' }).count({ n: '*' }).first())!.n);
    } finally {
      await store.destroy();
    }
    const total = async (type: string) => (await call('GET', `/repositories/${repo}/${type}?page=1`, token)).body.total;
    assert.equal((await call('GET', kept.body.uri, token)).body.title, 'Written before the crash');
    return { job, pending, crate, resources: await total('resources'), components: await total('archival_objects'), containers: await total('top_containers') };
  }

  it('killed while a chunk is open: nothing of the file is visible, and the chunks it had committed are removed', async () => {
    // A short pause after each chunk marks the chunks; the kill comes a moment into the third.
    const r = await killAt('inchunk', { IMPORT_PAUSE_BETWEEN_CHUNKS_MS: '1' }, /import paused between chunks[\s\S]*import paused between chunks/, 50);
    assert.equal(r.job.status, 'failed', JSON.stringify(r.job));
    assert.deepEqual([r.resources, r.components, r.containers, r.pending, r.crate], [0, 0, 0, 0, 0]);
  });

  it('killed between two chunks: nothing of the file is visible, and no pending row is left', async () => {
    const r = await killAt('between', { IMPORT_PAUSE_BETWEEN_CHUNKS_MS: '60000' }, /import paused between chunks/);
    assert.equal(r.job.status, 'failed', JSON.stringify(r.job));
    assert.deepEqual([r.resources, r.components, r.containers, r.pending, r.crate], [0, 0, 0, 0, 0]);
  });

  it('killed inside the publishing transaction: nothing of the file is visible, and no pending row is left', async () => {
    const r = await killAt('publishing', { IMPORT_PAUSE_PUBLISHING_MS: '60000' }, /import paused publishing/);
    assert.equal(r.job.status, 'failed', JSON.stringify(r.job));
    assert.deepEqual([r.resources, r.components, r.containers, r.pending, r.crate], [0, 0, 0, 0, 0]);
  });

  it('killed once published (before the job ended): the whole file is visible, and no pending row is left', async () => {
    // The publishing commits after its pause; the kill comes right after.
    const r = await killAt('published', { IMPORT_PAUSE_PUBLISHING_MS: '300' }, /import paused publishing/, 1500);
    assert.deepEqual([r.resources, r.components, r.containers, r.pending, r.crate], [1, COMPONENTS, COMPONENTS / 50 + 1, 0, 1]);
  });
});
