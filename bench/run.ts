/**
 * make bench — search and reindex on 100k documents, on SQLite and MariaDB, as ratios to
 * baselines measured in the same run (issue 7 lists more workloads; these are the first).
 * Load: the started server (dist/src/server.js) over HTTP keep-alive with autocannon.
 * Writes bench/results.json: [{workload, store, value, unit, baseline, ratio, target, met, note?}].
 */
import { ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import knexFactory from 'knex';
import { loadConfig } from '../src/config';
import { openServices } from '../src/services';

const ROOT = path.resolve(__dirname, '..');
const N = Number(process.env.BENCH_RECORDS ?? 100_000);
const DURATION = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = 8;
const MARIADB_URL = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';

interface Result {
  workload: string;
  store: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  target: string;
  met: boolean;
  note?: string;
}
const results: Result[] = [];

function record(r: Result): void {
  results.push(r);
  const ratio = r.ratio === null ? '' : ` ratio ${r.ratio.toFixed(2)}`;
  console.log(`  ${r.store.padEnd(8)} ${r.workload.padEnd(46)} ${String(r.value).padStart(9)} ${r.unit.padEnd(10)}${ratio}  target ${r.target}: ${r.met ? 'met' : 'NOT met'}${r.note ? ` (${r.note})` : ''}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Accession-like records with subrecords (~2 KB of JSON each). */
function accession(repo: number, id: number, now: number) {
  const words = ['civil', 'war', 'letters', 'maps', 'texas', 'diary', 'photographs', 'papers', 'minutes', 'ledger'];
  const title = `${words[id % 10]} ${words[(id * 7) % 10]} ${words[(id * 3) % 10]} collection ${id}`;
  const uri = `/repositories/${repo}/accessions/${id}`;
  const iso = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const json = {
    lock_version: 0, jsonmodel_type: 'accession', title, id_0: 'B', id_1: String(id), accession_date: '2020-01-01',
    publish: id % 2 === 0, restrictions_apply: false, access_restrictions: false, use_restrictions: false,
    content_description: `Records of ${title}, gathered by the ${words[id % 10]} society. Unique token u${id}.`,
    dates: [{ jsonmodel_type: 'date', date_type: 'inclusive', label: 'creation', begin: String(1800 + (id % 200)), end: String(1810 + (id % 200)) }],
    extents: [{ jsonmodel_type: 'extent', portion: 'whole', number: '2', extent_type: 'linear_feet' }],
    external_ids: [], subjects: [], linked_agents: [], instances: [], notes: [],
    uri, created_by: 'admin', last_modified_by: 'admin', create_time: iso, system_mtime: iso, user_mtime: iso,
    repository: { ref: `/repositories/${repo}` },
  };
  return { type: 'accession', id, repo_id: repo, uri, json: JSON.stringify(json), lock_version: 0, create_time_ms: now, system_mtime_ms: now, user_mtime_ms: now };
}

interface Store { name: 'sqlite' | 'mariadb'; env: Record<string, string>; drop: () => Promise<void> }

function store(name: 'sqlite' | 'mariadb', dir: string): Store {
  if (name === 'sqlite') {
    return { name, env: { DB_URL: `sqlite://${path.join(dir, 'archive.db')}`, SEARCH_PATH: path.join(dir, 'archive.search.db') }, drop: async () => {} };
  }
  const db = `art_bench_${crypto.randomBytes(4).toString('hex')}`;
  return {
    name,
    env: { DB_URL: `${MARIADB_URL}/${db}`, SEARCH_PATH: path.join(dir, 'search.db') },
    drop: async () => {
      const u = new URL(MARIADB_URL);
      const admin = knexFactory({ client: 'mysql2', connection: { host: u.hostname, port: Number(u.port || 3306), user: u.username || 'root', password: u.password } });
      await admin.raw(`DROP DATABASE IF EXISTS \`${db}\``).finally(() => admin.destroy());
    },
  };
}

async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; base: string; peakRss: () => number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/src/server.js')], {
    cwd: ROOT, env: { ...process.env, ...env, PORT: String(port), LOG_REQUESTS: 'false' }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/version`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const peakRss = () => {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  };
  return { child, base, peakRss };
}

/** The baseline: a bare node:http process answering the same bytes from memory. */
async function startBareServer(body: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const code = `require('http').createServer((q, s) => { s.writeHead(200, {'content-type': 'application/json'}); s.end(process.env.BODY); }).listen(${port}, '127.0.0.1')`;
  const child = spawn(process.execPath, ['-e', code], { env: { ...process.env, BODY: body }, stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(base)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { child, base };
}

/** autocannon for DURATION seconds; latencies from every response, so p95 is exact. */
async function load(url: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) {
  const latencies: number[] = [];
  const instance = autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers, ...extra });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status === 200) latencies.push(ms);
  });
  const result: any = await instance;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  if (result.non2xx) throw new Error(`${url}: ${result.non2xx} answers were not 2xx`);
  return { rps: Math.round(result.requests.average), p50: at(50), p95: at(95), p99: at(99) };
}

async function benchStore(name: 'sqlite' | 'mariadb') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-bench-'));
  const st = store(name, dir);
  const password = crypto.randomBytes(6).toString('hex');
  const config = loadConfig({ ...process.env, ...st.env, INDEXER: 'off', LOG_REQUESTS: 'false', ADMIN_PASSWORD: password });
  const s = await openServices(config);
  try {
    // The data set: a repository and N accessions written straight into the store.
    const repo = await s.db.knex('records').where({ type: 'repository' }).max('id as id').first();
    const repoId = Number(repo?.id ?? 1) + 1;
    const now = Date.now();
    const repoJson = { lock_version: 0, jsonmodel_type: 'repository', repo_code: 'BENCH', name: 'Bench', uri: `/repositories/${repoId}`, publish: true };
    await s.db.knex('records').insert({ type: 'repository', id: repoId, repo_id: 0, uri: repoJson.uri, json: JSON.stringify(repoJson), lock_version: 0, create_time_ms: now, system_mtime_ms: now, user_mtime_ms: now });
    const started = Date.now();
    // 200 rows per statement: SQLite's limit on compound SELECT terms is 500.
    for (let i = 1; i <= N; i += 200) {
      const rows = [];
      for (let id = i; id < Math.min(i + 200, N + 1); id++) rows.push(accession(repoId, id, now));
      await s.db.knex('records').insert(rows);
    }
    // Records written around the API: the id sequences must know of them.
    await s.db.knex('id_sequences').where({ type: 'accession' }).update({ last_id: N });
    await s.db.knex('id_sequences').where({ type: 'repository' }).update({ last_id: repoId });
    console.log(`  ${name}: ${N} records loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // Reindex, and its baseline: the same documents' text into a bare FTS5 table.
    const t0 = Date.now();
    const done = await s.search!.indexer.rebuild();
    const reindexRate = Math.round(done / ((Date.now() - t0) / 1000));
    const uris = (await s.db.knex('records').where({ type: 'accession' }).orderBy('rid').limit(20_000).pluck('uri')) as string[];
    const docs = [];
    for (let i = 0; i < uris.length; i += 1000) docs.push(...(await s.search!.indexer.documentsFor(uris.slice(i, i + 1000))).docs);
    const raw = new Database(path.join(dir, 'baseline.db'));
    raw.pragma('journal_mode = WAL');
    raw.exec("CREATE VIRTUAL TABLE t USING fts5(uri UNINDEXED, title, fullrecord, json UNINDEXED, tokenize='unicode61 remove_diacritics 2')");
    const insert = raw.prepare('INSERT INTO t (uri, title, fullrecord, json) VALUES (?, ?, ?, ?)');
    const t1 = Date.now();
    for (let i = 0; i < docs.length; i += 1000) {
      raw.transaction(() => { for (const d of docs.slice(i, i + 1000)) insert.run(d.uri, d.title, d.fullrecord, d.json); })();
    }
    const rawRate = Math.round(docs.length / ((Date.now() - t1) / 1000));
    raw.close();
    record({ workload: `reindex ${N} records into the embedded index`, store: name, value: reindexRate, unit: 'records/s', baseline: rawRate, ratio: reindexRate / rawRate, target: '>= 0.5 and >= 5000 records/s', met: reindexRate / rawRate >= 0.5 && reindexRate >= 5000 });
  } finally {
    await s.search!.close();
    await s.db.knex.destroy();
  }

  // Search through the started server.
  // The server indexes creates as they come (its in-process indexer), as in production.
  const server = await startServer({ ...st.env, ADMIN_PASSWORD: password });
  let createdRate = 0;
  let createdNote = '';
  try {
    const login = await fetch(`${server.base}/users/admin/login?password=${password}`, { method: 'POST' });
    const token = (await login.json()).session as string;
    const headers = { 'X-ArchivesSpace-Session': token };
    const repos = await (await fetch(`${server.base}/repositories`, { headers })).json();
    const repoUri = repos[repos.length - 1].uri as string;
    const cases: Array<[string, string]> = [
      [`search: one term (1 hit), 2 facets, ${N} docs`, `q=u4242`],
      [`search: one term (10% of docs), 2 facets, ${N} docs`, `q=diary`],
      [`search: one term (every doc), 2 facets, ${N} docs`, `q=collection`],
    ];
    for (const [workload, q] of cases) {
      const r = await load(`${server.base}${repoUri}/search?${q}&page=1&facet[]=primary_type&facet[]=publish`, headers);
      record({ workload: `${workload} p95`, store: name, value: Number(r.p95.toFixed(1)), unit: 'ms', baseline: null, ratio: null, target: 'p95 < 20 ms', met: r.p95 < 20, note: `p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.rps} req/s, ${CONNECTIONS} connections` });
    }
    // GET one accession, against the same bytes from a bare node:http process.
    const one = `${repoUri}/accessions/4242`;
    const bytes = await (await fetch(`${server.base}${one}`, { headers })).text();
    const ours = await load(`${server.base}${one}`, headers);
    const bare = await startBareServer(bytes);
    const base = await load(bare.base, {});
    bare.child.kill();
    record({ workload: `GET one accession (${bytes.length} bytes of JSON)`, store: name, value: ours.rps, unit: 'req/s', baseline: base.rps, ratio: ours.rps / base.rps, target: '>= 0.5', met: ours.rps / base.rps >= 0.5, note: `p50 ${ours.p50} ms, p95 ${ours.p95} ms, p99 ${ours.p99} ms; baseline p95 ${base.p95} ms` });

    // Create an accession (validated, written with its change-log entry), each with a new identifier.
    let serial = 0;
    const created = await load(`${server.base}${repoUri}/accessions`, { ...headers, 'content-type': 'application/json' }, {
      method: 'POST',
      requests: [{ setupRequest: (req: any) => ({ ...req, body: JSON.stringify({ id_0: 'C', id_1: String(++serial), title: `Created ${serial}`, dates: [{ date_type: 'single', label: 'creation', begin: '1999' }] }) }) }],
    });
    createdRate = created.rps;
    createdNote = `p50 ${created.p50} ms, p95 ${created.p95} ms, p99 ${created.p99} ms`;
    const rss = Math.round(server.peakRss());
    record({ workload: 'server peak RSS during the search workloads', store: name, value: rss, unit: 'MB', baseline: null, ratio: null, target: name === 'sqlite' ? '< 300 MB' : 'report', met: name !== 'sqlite' || rss < 300 });
    const size = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    record({ workload: 'data set on disk (store file and index; MariaDB data not counted)', store: name, value: Math.round(size / 1e6), unit: 'MB', baseline: null, ratio: null, target: 'report', met: true });
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
  }
  try {
    // The create baseline: the same JSON inserted with raw Knex, one transaction per row, 8 writers.
    const cfg = loadConfig({ ...process.env, ...st.env, INDEXER: 'off', LOG_REQUESTS: 'false' });
    const raw = knexFactory(cfg.dbUrl.startsWith('sqlite://')
      ? { client: 'better-sqlite3', connection: { filename: cfg.dbUrl.slice('sqlite://'.length) }, useNullAsDefault: true, pool: { min: 1, max: 1 } }
      : { client: 'mysql2', connection: cfg.dbUrl.replace(/^mariadb:/, 'mysql:'), pool: { min: 0, max: CONNECTIONS } });
    let n = 0;
    const until = Date.now() + DURATION * 1000;
    const writer = async () => {
      while (Date.now() < until) {
        const id = 10_000_000 + n++;
        const row = accession(2, id, Date.now());
        await raw.transaction(async (trx) => { await trx('records').insert({ ...row, type: 'bench_raw' }); });
      }
    };
    const t = Date.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, writer));
    const rawRate = Math.round(n / ((Date.now() - t) / 1000));
    await raw.destroy();
    record({ workload: 'create accession (validated, change log, indexed)', store: name, value: createdRate, unit: 'req/s', baseline: rawRate, ratio: createdRate / rawRate, target: '>= 0.3', met: createdRate / rawRate >= 0.3, note: createdNote });
  } finally {
    await st.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist/src/server.js'))) throw new Error('run `make build` first (make bench does)');
  const stores = (process.env.BENCH_STORES ?? 'sqlite mariadb').split(/\s+/).filter(Boolean) as Array<'sqlite' | 'mariadb'>;
  const started = Date.now();
  console.log(`make bench: ${N} records per store, ${DURATION} s per load run, ${CONNECTIONS} connections, ${os.cpus().length} cores`);
  for (const name of stores) await benchStore(name);
  fs.writeFileSync(path.join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote bench/results.json (${results.length} entries) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().then(() => process.exit(0), (err) => {
  console.error(String(err instanceof Error ? err.message : err).slice(0, 2000));
  process.exit(1);
});
