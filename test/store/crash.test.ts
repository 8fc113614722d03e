import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, STORE } from '../helpers';
import { Server, startIndexer, startServer } from '../processes';

/** The JSON log lines of a process's output. */
function logLines(output: string): any[] {
  return output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

/**
 * Crash safety with real processes and SIGKILL: acknowledged writes survive a killed server,
 * and a killed indexer resumes to an index that matches the store exactly.
 */
describe(`crash safety (${STORE}, WORKERS=${process.env.WORKERS ?? '1'})`, function () {
  this.timeout(180_000);
  const password = crypto.randomBytes(8).toString('hex');
  const db = freshDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-crash-'));
  const env = {
    DB_URL: STORE === 'sqlite' ? `sqlite://${path.join(dir, 'archive.db')}` : db.dbUrl,
    SEARCH_PATH: path.join(dir, 'search.db'),
    ADMIN_PASSWORD: password,
    LOG_REQUESTS: 'false',
  };
  let server: Server | undefined;
  let token = '';

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${server!.base}${p}`, {
      method, headers: { ...(token ? { 'X-ArchivesSpace-Session': token } : {}), 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const login = async () => {
    token = '';
    token = (await call('POST', `/users/admin/login?password=${password}`)).body.session;
  };

  /** Every accession in the store, by uri, as GET serves it. */
  const storeRecords = async () => {
    const ids: number[] = (await call('GET', '/repositories/2/accessions?all_ids=true')).body;
    const records = new Map<string, any>();
    for (let i = 0; i < ids.length; i += 200) {
      const batch = (await call('GET', `/repositories/2/accessions?${ids.slice(i, i + 200).map((id) => `id_set[]=${id}`).join('&')}`)).body;
      for (const r of batch) records.set(r.uri, r);
    }
    return records;
  };
  /** Every accession document in the index, by uri, with its parsed json. */
  const indexRecords = async () => {
    const docs = new Map<string, any>();
    for (let page = 1; ; page++) {
      const body = (await call('GET', `/repositories/2/search?q=*:*&type[]=accession&page=${page}&page_size=250`)).body;
      for (const r of body.results) docs.set(r.uri, JSON.parse(r.json));
      if (page >= body.last_page) return docs;
    }
  };
  const converged = async (timeoutMs: number) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const [stored, indexed] = await Promise.all([storeRecords(), indexRecords()]);
      const same = stored.size === indexed.size && [...stored].every(([uri, r]) => JSON.stringify(indexed.get(uri)) === JSON.stringify(r));
      if (same) return stored.size;
      if (Date.now() > until) assert.fail(`index did not converge: ${stored.size} stored, ${indexed.size} indexed`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  after(async () => {
    server?.child.kill('SIGKILL');
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL during a stream of writes: every acknowledged write is there after restart, and the index converges', async () => {
    server = await startServer(env);
    await login();
    assert.equal((await call('POST', '/repositories', { repo_code: 'CRASH', name: 'Crash' })).status, 200);
    const acknowledged: string[] = [];
    let killed = false;
    // Four writers at once, so the kill lands with transactions in flight.
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await call('POST', '/repositories/2/accessions', { id_0: `W${w}`, id_1: String(i), title: `Writer ${w} record ${i}` });
          if (res.status === 200) acknowledged.push(res.body.uri);
          else assert.fail(`write answered ${res.status}`);
        } catch (err) {
          if (!killed) throw err;
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    while (acknowledged.length < 150) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    server.child.kill('SIGKILL');
    await server.exited;
    await Promise.all(writers);

    server = await startServer(env);
    await login();
    const stored = await storeRecords();
    for (const uri of acknowledged) assert.ok(stored.has(uri), `acknowledged ${uri} is missing after the crash`);
    for (const r of stored.values()) assert.match(r.title, /^Writer \d record \d+$/, 'no half-written record is visible');
    // The killed process's indexer lease (5 s) must lapse before the new process indexes.
    const n = await converged(15_000);
    assert.ok(n >= acknowledged.length);
    console.log(`      ${acknowledged.length} writes acknowledged before SIGKILL; ${n} in the store and in the index after restart`);
  });

  it('an indexer killed mid-batch resumes to an index that matches the store exactly (same uris, same json)', async () => {
    server!.child.kill('SIGTERM');
    await server!.exited;
    // The app no longer indexes; a separate indexer process does.
    server = await startServer({ ...env, INDEXER: 'off' });
    await login();
    // Two records of the first test, by the uris the store gave them: ids need not start at 1 (on
    // MySQL a process takes ids in blocks, and a create run again after a deadlock takes another).
    const [renamed, deleted] = [...(await storeRecords()).keys()];
    const batch = Array.from({ length: 400 }, (_, i) => ({ id_0: 'K', id_1: String(i), title: `Killed indexer ${i}` }));
    for (const body of batch) assert.equal((await call('POST', '/repositories/2/accessions', body)).status, 200);
    const changed = await call('POST', renamed, { ...(await call('GET', renamed)).body, title: 'Writer renamed' });
    assert.equal(changed.status, 200, `update of ${renamed}: ${JSON.stringify(changed.body)}`);
    const gone = await call('DELETE', deleted);
    assert.equal(gone.status, 200, `delete of ${deleted}: ${JSON.stringify(gone.body)}`);

    // Small, paced batches, so that the kill lands part-way through.
    const first = startIndexer({ ...env, INDEXER_BATCH_SIZE: '20', INDEXER_PAUSE_MS: '50' });
    const until = Date.now() + 30_000;
    // Kill it once it has applied some but not all of the changes.
    for (;;) {
      const indexed = (await call('GET', '/repositories/2/search?q=killed&page=1')).body.total_hits;
      if (indexed > 0 && indexed < batch.length) break;
      assert.ok(indexed < batch.length, 'the indexer finished before it could be killed; make the batch larger');
      assert.ok(Date.now() < until, `indexer never started: ${first.output()}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    first.child.kill('SIGKILL');
    await first.exited;
    const partial = (await call('GET', '/repositories/2/search?q=killed&page=1')).body.total_hits;
    assert.ok(partial < batch.length, 'killed mid-way');

    const second = startIndexer(env);
    try {
      const n = await converged(30_000);
      console.log(`      indexer killed with ${partial}/${batch.length} new records indexed; after restart index = store (${n} records)`);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  it('make reindex: rebuilds an emptied index from the store, resumes after a kill, with progress', async () => {
    server!.child.kill('SIGTERM');
    await server!.exited;
    fs.rmSync(env.SEARCH_PATH, { force: true });
    fs.rmSync(`${env.SEARCH_PATH}-wal`, { force: true });
    fs.rmSync(`${env.SEARCH_PATH}-shm`, { force: true });
    // Killed part-way (small paced pages), then run again: it goes on where it stopped.
    const killed = startIndexer({ ...env, INDEXER_BATCH_SIZE: '50', INDEXER_PAUSE_MS: '400' }, ['--rebuild', '--once']);
    const until = Date.now() + 60_000;
    while (!logLines(killed.output()).some((l) => l.msg === 'reindex' && l.done > 0)) {
      assert.ok(Date.now() < until && killed.child.exitCode === null, `no progress seen: ${killed.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    killed.child.kill('SIGKILL');
    await killed.exited;
    const rebuild = startIndexer(env, ['--rebuild', '--once']);
    assert.equal(await rebuild.exited, 0, rebuild.output());
    const lines = logLines(rebuild.output());
    assert.ok(lines.some((l) => l.msg === 'reindex resumes' && l.after_row > 0), rebuild.output());
    assert.ok(lines.some((l) => l.msg === 'reindexed' && l.records > 0), rebuild.output());
    server = await startServer({ ...env, INDEXER: 'off' });
    await login();
    await converged(5_000);
  });
});
