/**
 * Revision history's cost (issue 46): create and update through the built server with HISTORY on
 * against the same run with HISTORY=off (each store fresh, runs alternated off/on/off/on so drift
 * falls on both), then the store's growth from BENCH_HISTORY_UPDATES updates (100,000) against
 * the records' JSON. Run `npx tsc -p tsconfig.json && npx tsx bench/history.ts`; results are
 * printed and appended to bench/history-results.json. Settings: BENCH_SECONDS (5),
 * BENCH_CONNECTIONS (8), BENCH_HISTORY_RECORDS (1,000 records updated in turn).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { accessionBody } from './data';
import { describe, log, loop, ROOT, type Server, startServer, type Stats } from './lib';

const UPDATES = Number(process.env.BENCH_HISTORY_UPDATES ?? 100_000);
const RECORDS = Number(process.env.BENCH_HISTORY_RECORDS ?? 1_000);

interface Client {
  server: Server;
  dir: string;
  file: string;
  H: Record<string, string>;
  repo: string;
}

async function call(c: Client, method: string, url: string, body?: object): Promise<any> {
  const res = await fetch(`${c.server.base}${url}`, { method, headers: { ...c.H, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function start(history: 'on' | 'off'): Promise<Client> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-history-${history}-`));
  const file = path.join(dir, 'store.db');
  const server = await startServer({ DB_URL: `sqlite://${file}`, HISTORY: history, INDEXER: 'off' });
  const login = await (await fetch(`${server.base}/users/admin/login?password=admin`, { method: 'POST' })).json() as { session: string };
  const c: Client = { server, dir, file, H: { 'X-ArchivesSpace-Session': login.session }, repo: '' };
  c.repo = `/repositories/${(await call(c, 'POST', '/repositories', { repo_code: 'BENCH', name: 'Bench' })).id}`;
  return c;
}

async function stop(c: Client): Promise<void> {
  await c.server.stop();
  fs.rmSync(c.dir, { recursive: true, force: true });
}

let serial = 0;
const body = () => {
  const n = serial++;
  return accessionBody(`H${n}`, String(process.pid), n, [], '/agents/people/1');
};

async function creates(c: Client): Promise<Stats> {
  return loop(async () => { await call(c, 'POST', `${c.repo}/accessions`, { ...body(), linked_agents: [] }); });
}

async function updates(c: Client): Promise<Stats> {
  const records: Array<{ uri: string; record: any }> = [];
  for (let i = 0; i < 64; i++) {
    const { uri } = await call(c, 'POST', `${c.repo}/accessions`, { ...body(), linked_agents: [] });
    records.push({ uri, record: await call(c, 'GET', uri) });
  }
  const busy = new Set<number>();
  return loop(async (i) => {
    let k = i % records.length;
    while (busy.has(k)) k = (k + 1) % records.length;
    busy.add(k);
    const r = records[k];
    const answer = await call(c, 'POST', r.uri, { ...r.record, title: `Title ${i}` });
    r.record = { ...r.record, title: `Title ${i}`, lock_version: answer.lock_version };
    busy.delete(k);
  });
}

/** The store file's size after a checkpoint that empties the WAL. */
function storeBytes(file: string): number {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    return fs.statSync(file).size;
  } finally {
    db.close();
  }
}

async function storage(history: 'on' | 'off'): Promise<{ grown: number; recordsJson: number; versionsJson: number; kept: number; keptBytes: number }> {
  const c = await start(history);
  try {
    const records: Array<{ uri: string; record: any }> = [];
    for (let i = 0; i < RECORDS; i++) {
      const { uri } = await call(c, 'POST', `${c.repo}/accessions`, { ...body(), linked_agents: [] });
      records.push({ uri, record: await call(c, 'GET', uri) });
    }
    const before = storeBytes(c.file);
    let versionsJson = 0;
    const perCaller = Math.ceil(UPDATES / 8);
    await Promise.all(Array.from({ length: 8 }, async (_, k) => {
      for (let i = 0; i < perCaller; i++) {
        const r = records[(k + i * 8) % records.length];
        const stored = await call(c, 'GET', r.uri);
        versionsJson += JSON.stringify(stored).length;
        await call(c, 'POST', r.uri, { ...stored, title: `Title ${k}-${i}`, general_note: `Edited ${i}` });
      }
    }));
    const grown = storeBytes(c.file) - before;
    const db = new Database(c.file, { readonly: true });
    const recordsJson = Number((db.prepare('SELECT SUM(LENGTH(json)) AS n FROM records WHERE type = ?').get('accession') as { n: number }).n);
    const kept = db.prepare('SELECT COUNT(*) AS n, SUM(LENGTH(json)) AS bytes FROM record_history').get() as { n: number; bytes: number };
    db.close();
    return { grown, recordsJson, versionsJson, kept: kept.n, keptBytes: Number(kept.bytes ?? 0) };
  } finally {
    await stop(c);
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist/src/server.js'))) throw new Error('build first: npx tsc -p tsconfig.json');
  const runs: Record<string, Stats[]> = {};
  for (const history of ['off', 'on', 'off', 'on'] as const) {
    const c = await start(history);
    try {
      for (const [name, workload] of [['create', creates], ['update', updates]] as const) {
        const s = await workload(c);
        (runs[`${name} ${history}`] ??= []).push(s);
        log(`${name} with history ${history}: ${describe(s)}`);
      }
    } finally {
      await stop(c);
    }
  }
  const best = (key: string) => Math.max(...runs[key].map((s) => s.rps));
  const rows = ['create', 'update'].map((name) => ({
    workload: `${name} accession, history on vs off (sqlite)`, value: best(`${name} on`), unit: 'op/s', baseline: best(`${name} off`),
    ratio: Math.round((best(`${name} on`) / best(`${name} off`)) * 100) / 100, target: '>= 0.9',
    met: best(`${name} on`) >= 0.9 * best(`${name} off`),
  }));
  const on = await storage('on');
  const off = await storage('off');
  const historyBytes = on.grown - off.grown;
  rows.push({
    workload: `store growth from ${UPDATES} updates of ${RECORDS} accessions, history on minus off (sqlite)`, value: historyBytes, unit: 'bytes',
    baseline: on.versionsJson, ratio: Math.round((historyBytes / on.versionsJson) * 100) / 100, target: '<= 1.5 x the replaced versions\' JSON',
    met: historyBytes <= 1.5 * on.versionsJson,
  });
  log(`versions kept: ${on.kept}, their deflated JSON ${on.keptBytes} bytes of ${on.versionsJson} (${Math.round((on.keptBytes / on.versionsJson) * 100)} %); records' JSON now ${on.recordsJson} bytes`);
  for (const r of rows) log(`${r.workload}: ${r.value} ${r.unit} against ${r.baseline}: ratio ${r.ratio} (${r.target}) ${r.met ? 'met' : 'NOT MET'}`);
  const out = path.join(ROOT, 'bench/history-results.json');
  const previous = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : [];
  fs.writeFileSync(out, `${JSON.stringify([...previous, { at: new Date().toISOString(), rows }], null, 2)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
