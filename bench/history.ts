/**
 * Revision history's cost (issue 46): create and update through the built server with HISTORY on
 * against the same run with HISTORY=off (each store fresh, runs alternated off/on three times so
 * drift falls on both; the server's CPU per operation beside the throughput), then what history
 * adds to the store after BENCH_HISTORY_UPDATES updates (100,000) against the versions' JSON. Run `npx tsc -p tsconfig.json && npx tsx bench/history.ts`; results are
 * printed and appended to bench/history-results.json. Settings: BENCH_SECONDS (5),
 * BENCH_CONNECTIONS (8), BENCH_HISTORY_RECORDS (1,000 records updated in turn).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { accessionBody } from './data';
import { closeServices, openServices } from '../src/services';
import { loadConfig } from '../src/config';
import { createRecord, updateRecord } from '../src/records/write';
import { recordReads } from '../src/store/records';
import { compactHistory } from '../src/store/history';
import { cpuMs, describe, log, loop, ROOT, type Server, startServer, type Stats } from './lib';

const round3 = (n: number) => Math.round(n * 1000) / 1000;
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

/**
 * What history adds to the store after UPDATES updates of RECORDS accessions (in process, through
 * the engine's update): the pages of record_history and its indexes (SQLite's dbstat), against the
 * JSON of the versions those updates replaced and the records' JSON.
 */
async function storage(): Promise<{ historyBytes: number; versionsJson: number; recordsJson: number; kept: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-history-size-'));
  const file = path.join(dir, 'store.db');
  const s = await openServices(loadConfig({ ...process.env, DB_URL: `sqlite://${file}`, SEARCH_PATH: ':memory:', INDEXER: 'off', JOBS: 'off', HISTORY: 'on' }));
  try {
    const actor = { username: 'admin' };
    const repo = await createRecord(s, actor, { type: s.registry.type('repository') }, { repo_code: 'SIZE', name: 'Size' }, {});
    const where = { type: s.registry.type('accession'), repoId: repo.id };
    const ids: number[] = [];
    for (let i = 0; i < RECORDS; i++) ids.push((await createRecord(s, actor, where, { ...body(), linked_agents: [] }, {})).id);
    let versionsJson = 0;
    const reads = recordReads(s);
    for (let i = 0; i < UPDATES; i++) {
      const id = ids[i % ids.length];
      const stored = (await reads.get('accession', id))!;
      versionsJson += stored.json.length;
      const record = JSON.parse(stored.json);
      await updateRecord(s, actor, where, id, { ...record, title: `Title ${i}`, general_note: `Edited ${i}` }, {});
    }
    await compactHistory(s.db);
    const db = new Database(file, { readonly: true });
    const pages = db.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name = 'record_history' OR name LIKE 'record_history_%'").get() as { bytes: number };
    const recordsJson = Number((db.prepare('SELECT SUM(LENGTH(json)) AS n FROM records WHERE type = ?').get('accession') as { n: number }).n);
    const kept = Number((db.prepare('SELECT COUNT(*) AS n FROM record_history').get() as { n: number }).n);
    db.close();
    return { historyBytes: Number(pages.bytes), versionsJson, recordsJson, kept };
  } finally {
    await closeServices(s);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist/src/server.js'))) throw new Error('build first: npx tsc -p tsconfig.json');
  const runs: Record<string, Stats[]> = {};
  const cpu: Record<string, number[]> = {};
  for (const history of ['off', 'on', 'off', 'on', 'off', 'on'] as const) {
    const c = await start(history);
    try {
      for (const [name, workload] of [['create', creates], ['update', updates]] as const) {
        const cpuBefore = cpuMs(c.server.child.pid);
        const s = await workload(c);
        // The server's CPU per operation holds still on a shared machine where throughput does not.
        const cpuPerOp = (cpuMs(c.server.child.pid) - cpuBefore) / s.count;
        (runs[`${name} ${history}`] ??= []).push(s);
        (cpu[`${name} ${history}`] ??= []).push(cpuPerOp);
        log(`${name} with history ${history}: ${describe(s)}, server CPU ${cpuPerOp.toFixed(3)} ms/op`);
      }
    } finally {
      await stop(c);
    }
  }
  const best = (key: string) => Math.max(...runs[key].map((s) => s.rps));
  const leastCpu = (key: string) => Math.min(...cpu[key]);
  const rows = ['create', 'update'].flatMap((name) => [{
    workload: `${name} accession, server CPU per operation, history on vs off (sqlite)`, value: round3(leastCpu(`${name} on`)), unit: 'ms/op',
    baseline: round3(leastCpu(`${name} off`)), ratio: Math.round((leastCpu(`${name} on`) / leastCpu(`${name} off`)) * 100) / 100, target: '<= 1.1',
    met: leastCpu(`${name} on`) <= 1.1 * leastCpu(`${name} off`),
  }, {
    workload: `${name} accession, history on vs off (sqlite)`, value: best(`${name} on`), unit: 'op/s', baseline: best(`${name} off`),
    ratio: Math.round((best(`${name} on`) / best(`${name} off`)) * 100) / 100, target: '>= 0.9',
    met: best(`${name} on`) >= 0.9 * best(`${name} off`),
  }]);
  const size = await storage();
  rows.push({
    workload: `history of ${UPDATES} updates of ${RECORDS} accessions (sqlite): record_history's pages`, value: size.historyBytes, unit: 'bytes',
    baseline: size.versionsJson, ratio: Math.round((size.historyBytes / size.versionsJson) * 100) / 100, target: "<= 1.5 x the replaced versions' JSON",
    met: size.historyBytes <= 1.5 * size.versionsJson,
  });
  log(`${size.kept} versions kept in ${size.historyBytes} bytes of pages; the replaced versions' JSON ${size.versionsJson} bytes; the records' JSON now ${size.recordsJson} bytes`);
  for (const r of rows) log(`${r.workload}: ${r.value} ${r.unit} against ${r.baseline}: ratio ${r.ratio} (${r.target}) ${r.met ? 'met' : 'NOT MET'}`);
  const out = path.join(ROOT, 'bench/history-results.json');
  const previous = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : [];
  fs.writeFileSync(out, `${JSON.stringify([...previous, { at: new Date().toISOString(), rows }], null, 2)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
