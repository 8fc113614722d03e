/**
 * Creates, updates and GET one through three app processes, on the three-node Galera cluster
 * (one process per node) and, in the same run, on the single MariaDB server (three processes on
 * it): `npx tsx bench/galera.ts` after `make build` and `scripts/galera.sh start` (or GALERA_URLS).
 * Writes bench/galera-results.json and prints a table. Not part of make bench.
 *
 * Each workload runs three autocannon instances at once, one per app process, BENCH_CONNECTIONS
 * (default 8) connections in all, for BENCH_SECONDS (5); latencies are those of every 2xx answer
 * of the three, so the percentiles are exact. Updates are disjoint per process (a record is
 * updated through one process only), so the figure is the cluster's cost, not conflicts'.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { accessionBody } from './data';
import { CONNECTIONS, DURATION, ROOT, type Server, startServer } from './lib';

const SINGLE = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
const RECORDS = Number(process.env.BENCH_GALERA_RECORDS ?? 300);
const H = 'X-ArchivesSpace-Session';

interface Row { setup: string; workload: string; rps: number; p50: number; p95: number; p99: number; count: number; failed: number }

const round = (n: number) => Math.round(n * 10) / 10;

/** Three autocannon runs at once, one against each of `bases`; `request(app)` gives each request's path and body. */
async function spread(bases: string[], token: string, method: string, request: (app: number) => { path: string; body?: string }): Promise<Omit<Row, 'setup' | 'workload'>> {
  const latencies: number[] = [];
  let failed = 0;
  const per = Math.max(1, Math.round(CONNECTIONS / bases.length));
  const started = process.hrtime.bigint();
  await Promise.all(bases.map((base, app) => {
    const instance = autocannon({
      url: base, connections: per, duration: DURATION, method,
      headers: { [H]: token, 'content-type': 'application/json' },
      requests: [{ setupRequest: (req: any) => ({ ...req, ...request(app) }) }],
    });
    instance.on('response', (_c: unknown, status: number, _b: number, ms: number) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      else failed++;
    });
    return instance;
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN);
  return { rps: Math.round(latencies.length / seconds), p50: at(50), p95: at(95), p99: at(99), count: latencies.length, failed };
}

async function measure(setup: string, urls: string[]): Promise<Row[]> {
  const name = `art_bench_galera_${crypto.randomBytes(4).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-galera-'));
  const password = 'bench-pw';
  const env = (i: number) => ({ DB_URL: `${urls[i]}/${name}`, ADMIN_PASSWORD: password, SEARCH_PATH: path.join(dir, 'search.db'), JOB_FILES_DIR: path.join(dir, 'files') });
  const apps: Server[] = [await startServer(env(0))];
  apps.push(...await Promise.all([startServer(env(1)), startServer(env(2))]));
  const rows: Row[] = [];
  try {
    const bases = apps.map((a) => a.base);
    const token = (await (await fetch(`${bases[0]}/users/admin/login?password=${password}`, { method: 'POST' })).json()).session as string;
    const post = async (base: string, p: string, body: unknown) => {
      const res = await fetch(`${base}${p}`, { method: 'POST', headers: { [H]: token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    const repo = (await post(bases[0], '/repositories', { repo_code: 'BENCH', name: 'Bench' })).id as number;
    const subject = (await post(bases[0], '/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Bench', term_type: 'topical', vocabulary: '/vocabularies/1' }] })).uri as string;
    const agent = (await post(bases[0], '/agents/people', { names: [{ primary_name: 'Bench', name_order: 'direct', sort_name: 'Bench' }] })).uri as string;
    const body = (id0: string, i: number) => accessionBody(id0, String(i), i, [subject], agent);
    // Records to update and read: each process updates its own third.
    const ids: Array<Array<{ i: number; id: number }>> = [[], [], []];
    for (let i = 0; i < RECORDS; i++) ids[i % 3].push({ i, id: (await post(bases[i % 3], `/repositories/${repo}/accessions`, body('SEED', i))).id });
    const versions = new Map<number, number>();

    let serial = 0;
    rows.push({ setup, workload: 'create accession', ...await spread(bases, token, 'POST', () => ({ path: `/repositories/${repo}/accessions`, body: JSON.stringify(body('C', ++serial)) })) });
    const turn = [0, 0, 0];
    rows.push({
      setup, workload: 'update accession (lock_version)', ...await spread(bases, token, 'POST', (app) => {
        const { i, id } = ids[app][turn[app]++ % ids[app].length];
        const version = versions.get(id) ?? 0;
        versions.set(id, version + 1);
        return { path: `/repositories/${repo}/accessions/${id}`, body: JSON.stringify({ ...body('SEED', i), title: `Revision ${version + 1}`, lock_version: version }) };
      }),
    });
    let reads = 0;
    rows.push({ setup, workload: 'GET one accession', ...await spread(bases, token, 'GET', () => ({ path: `/repositories/${repo}/accessions/${ids[0][reads++ % ids[0].length].id}` })) });
  } finally {
    await Promise.all(apps.map((a) => a.stop()));
    const u = new URL(urls[0]);
    const admin = knexFactory({ client: 'mysql2', connection: { host: u.hostname, port: Number(u.port || 3306), user: 'root', password: '' } });
    await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``).finally(() => admin.destroy());
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

async function main(): Promise<void> {
  const galera = (process.env.GALERA_URLS ?? execFileSync('bash', [path.join(ROOT, 'scripts/galera.sh'), 'urls']).toString()).trim().split(/\s+/);
  const rows = [
    ...await measure('single MariaDB (3 processes)', [SINGLE, SINGLE, SINGLE]),
    ...await measure('Galera, 3 nodes (a process per node)', galera),
  ];
  const head = ['setup', 'workload', 'op/s', 'p50 ms', 'p95 ms', 'p99 ms', 'non-2xx'];
  const cells = rows.map((r) => [r.setup, r.workload, String(r.rps), String(r.p50), String(r.p95), String(r.p99), String(r.failed)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i])).join(' | ');
  console.log([line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n'));
  fs.writeFileSync(path.join(ROOT, 'bench/galera-results.json'), JSON.stringify({ at: new Date().toISOString(), seconds: DURATION, connections: CONNECTIONS, rows }, null, 2));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
