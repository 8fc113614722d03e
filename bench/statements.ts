/**
 * Statements per write (issue 51 item 2; not part of make bench): how many statements a create
 * and an update of an accession, and of an archival object under a series of a resource, send to
 * the store in the common case, one request at a time, after a warm-up (caches, prepared
 * statements). Run after a build: `npx tsx bench/statements.ts`.
 *
 * MariaDB (`MARIADB_URL`, root@127.0.0.1:3306): the built server on a scratch database of its
 * own, its indexer, jobs and webhooks off so that nothing runs beside the requests. The general
 * log is turned on (log_output TABLE) only for the measured window and set back right after;
 * only the lines of the server's connections (those on the scratch database) are counted, each
 * attributed to the request between this script's marker queries. Every line is a round trip
 * (Query, Prepare, Execute), but a 'Close stmt', which has no answer, and the statements a
 * trigger runs, which MariaDB logs too (listed apart under `commands`).
 *
 * SQLite: the same requests against a server started with bench/statement-counter.cjs, which
 * counts calls into better-sqlite3: statements, not round trips.
 *
 * BENCH_STORES (`mariadb sqlite`), BENCH_STATEMENTS_N (50 measured requests per kind, after 20 of
 * warm-up), STATEMENTS_OUT (a path: the figures as JSON).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import { accessionBody, agentFor, childBody, resourceBody, subjectsFor } from './data';
import { ROOT, Server, startServer } from './lib';
import type { Obj } from '../src/json';

const N = Number(process.env.BENCH_STATEMENTS_N ?? 50);
const WARM = 20;
const MARIADB_URL = (process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306').replace(/\/$/, '');
const QUIET = { INDEXER: 'off', JOBS: 'off', WEBHOOKS: 'off' };

type Counts = Record<string, number>;
interface Phase { name: string; ops: number; perOp: number[]; kinds: Counts; commands: Counts; examples: Record<string, string[]>; first: string[] }

/** STATEMENTS_SQL=1: each kind's distinct statements (up to 4, cut at 300 characters) printed under it. */
function example(p: Phase, kind: string, sql: string): void {
  const list = (p.examples[kind] ??= []);
  const text = sql.replace(/\s+/g, ' ').slice(0, 300);
  if (list.length < 4 && !list.some((s) => s.slice(0, 60) === text.slice(0, 60))) list.push(text);
}

/** The kind of a statement: BEGIN/COMMIT, or its verb and the table it names first. */
export function kindOf(sql: string): string {
  const s = sql.replace(/\s+/g, ' ').trim().replace(/^EXEC /, '');
  const word = (/^\w+/.exec(s)?.[0] ?? s.slice(0, 20)).toUpperCase();
  if (['BEGIN', 'START', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE'].includes(word)) return word === 'START' ? 'BEGIN' : word;
  const table = (re: RegExp) => re.exec(s)?.[1] ?? '?';
  if (word === 'SELECT' || word === 'WITH') return `SELECT ${table(/\bfrom\s+[`"]?(\w+)/i)}`;
  if (word === 'INSERT' || word === 'REPLACE') return `${word} ${table(/into\s+[`"]?(\w+)/i)}`;
  if (word === 'UPDATE') return `UPDATE ${table(/^update\s+(?:or\s+\w+\s+)?[`"]?(\w+)/i)}`;
  if (word === 'DELETE') return `DELETE ${table(/from\s+[`"]?(\w+)/i)}`;
  return s.split(' ').slice(0, 2).join(' ');
}

/** Four kinds of write, each given the serial of its request; the updates change what the creates made. */
class Writes {
  private created = new Map<string, Array<{ id: number; serial: number; lock: number }>>();
  private serial = 0;
  private readonly H: Record<string, string>;
  private constructor(private server: Server, session: string, private repo: number, private subjects: string[], private agents: string[], private resource: string, private series: string) {
    this.H = { 'X-ArchivesSpace-Session': session, 'content-type': 'application/json' };
  }

  static async setUp(server: Server): Promise<Writes> {
    const login = await (await fetch(`${server.base}/users/admin/login?password=admin`, { method: 'POST' })).json() as { session: string };
    const call = (url: string, body: unknown) => post(server.base, { 'X-ArchivesSpace-Session': login.session, 'content-type': 'application/json' }, url, body);
    const repo = (await call('/repositories', { repo_code: `S${Date.now()}`, name: 'Statements' })).id as number;
    const subjects: string[] = [];
    for (let i = 0; i < 4; i++) {
      subjects.push((await call('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `T${i}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] })).uri);
    }
    const agents = [(await call('/agents/people', { names: [{ primary_name: 'P', name_order: 'inverted', sort_name: 'P' }] })).uri];
    const resource = (await call(`/repositories/${repo}/resources`, resourceBody('R1', 'Statements'))).uri as string;
    const series = (await call(`/repositories/${repo}/archival_objects`, { title: 'Series 1', level: 'series', resource: { ref: resource } })).uri as string;
    return new Writes(server, login.session, repo, subjects, agents, resource, series);
  }

  readonly kinds = ['accession create', 'accession update', 'archival object create', 'archival object update'];

  async run(kind: string): Promise<void> {
    const list = this.created.get(kind.split(' ').slice(0, -1).join(' ')) ?? [];
    this.created.set(kind.split(' ').slice(0, -1).join(' '), list);
    const r = `/repositories/${this.repo}`;
    if (kind === 'accession create') {
      const serial = ++this.serial;
      const body = accessionBody('S', String(serial), serial, subjectsFor(serial, this.subjects), agentFor(serial, this.agents));
      list.push({ id: (await post(this.server.base, this.H, `${r}/accessions`, body)).id, serial, lock: 0 });
    } else if (kind === 'archival object create') {
      const serial = ++this.serial;
      list.push({ id: (await post(this.server.base, this.H, `${r}/archival_objects`, this.child(serial))).id, serial, lock: 0 });
    } else {
      // Each update goes to the record least recently written, with its lock_version.
      const target = list.shift()!;
      list.push(target);
      const body: Obj = kind === 'accession update'
        ? accessionBody('S', String(target.serial), target.serial, subjectsFor(target.serial, this.subjects), agentFor(target.serial, this.agents))
        : this.child(target.serial);
      body.title = `${body.title} (revision ${target.lock + 1})`;
      body.lock_version = target.lock;
      await post(this.server.base, this.H, `${r}/${kind.startsWith('accession') ? 'accessions' : 'archival_objects'}/${target.id}`, body);
      target.lock++;
    }
  }

  private child(serial: number): Obj {
    return { ...childBody(serial, this.resource), parent: { ref: this.series } };
  }
}

async function post(base: string, headers: Record<string, string>, url: string, body: unknown): Promise<Obj> {
  const res = await fetch(base + url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function mariadb(): Promise<Phase[]> {
  const database = `bench_stmts_${process.pid}`;
  const admin = knexFactory({ client: 'mysql2', connection: mysqlConnection(), pool: { min: 1, max: 1 } });
  const server = await startServer({ DB_URL: `${MARIADB_URL}/${database}`, ...QUIET });
  let logOn = false;
  const before = (await admin.raw('SELECT @@general_log AS on_, @@log_output AS output'))[0][0] as { on_: number; output: string };
  try {
    const writes = await Writes.setUp(server);
    for (const kind of writes.kinds) for (let i = 0; i < WARM; i++) await writes.run(kind);
    const me = Number((await admin.raw('SELECT CONNECTION_ID() AS id'))[0][0].id);
    const serverThreads = new Set<number>(((await admin.raw('SELECT id FROM information_schema.processlist WHERE db = ?', [database]))[0] as Array<{ id: number }>).map((r) => Number(r.id)));
    const start = (await admin.raw('SELECT NOW(6) AS t'))[0][0].t as string;
    await admin.raw("SET GLOBAL log_output = 'TABLE'");
    await admin.raw('SET GLOBAL general_log = 1');
    logOn = true;
    const mark = (label: string) => admin.raw(`SELECT 'stmts-mark ${label}'`);
    // An idle window first: the statements the server sends with no request (none expected).
    await mark('idle');
    await sleep(300);
    for (const kind of writes.kinds) {
      for (let i = 0; i < N; i++) {
        await mark(kind);
        await writes.run(kind);
      }
    }
    // Anything a request leaves to run after its answer (after-commit work) lands before this marker.
    await sleep(300);
    await mark('end');
    await admin.raw('SET GLOBAL general_log = 0');
    await admin.raw('SET GLOBAL log_output = ?', [before.output]);
    logOn = false;
    const rows = (await admin.raw(
      "SELECT thread_id, command_type, CONVERT(argument USING utf8mb4) AS arg FROM mysql.general_log WHERE event_time >= ?",
      [start],
    ))[0] as Array<{ thread_id: number; command_type: string; arg: string }>;
    if (!before.on_) await admin.raw('TRUNCATE TABLE mysql.general_log');
    const phases = new Map<string, Phase>();
    let current: Phase | undefined;
    let opCount = 0;
    for (const row of rows) {
      const thread = Number(row.thread_id);
      if (thread === me) {
        const m = /'stmts-mark (.*)'/.exec(row.arg);
        if (!m) continue;
        if (current) current.perOp.push(opCount);
        const name = m[1];
        current = name === 'end' ? undefined : phases.get(name) ?? { name, ops: 0, perOp: [], kinds: {}, commands: {}, examples: {}, first: [] };
        if (current) {
          phases.set(name, current);
          current.ops++;
        }
        opCount = 0;
        continue;
      }
      // A connection the server's pool opens during the window names the scratch database.
      if (row.command_type === 'Connect' && row.arg.includes(` on ${database} `)) serverThreads.add(thread);
      if (!serverThreads.has(thread) || !current) continue;
      // MariaDB also logs the statements a trigger runs (tree_child_counts), under the statement's
      // own command: they name NEW. or OLD. and are no round trip of their own.
      const trigger = /\b(?:NEW|OLD)\.\w+/.test(row.arg);
      const command = trigger ? 'trigger statement' : row.command_type;
      current.commands[command] = (current.commands[command] ?? 0) + 1;
      if (trigger || row.command_type === 'Close stmt' || row.command_type === 'Quit') continue;
      const kind = row.command_type === 'Query' || row.command_type === 'Execute' ? kindOf(row.arg) : row.command_type;
      current.kinds[kind] = (current.kinds[kind] ?? 0) + 1;
      example(current, kind, row.arg);
      if (current.ops === 2) current.first.push(`${row.command_type}: ${row.arg.replace(/\s+/g, ' ').slice(0, 160)}`);
      opCount++;
    }
    return [...phases.values()];
  } finally {
    if (logOn) {
      await admin.raw('SET GLOBAL general_log = 0').catch(() => undefined);
      await admin.raw('SET GLOBAL log_output = ?', [before.output]).catch(() => undefined);
    }
    await server.stop();
    await admin.raw(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.destroy();
  }
}

function mysqlConnection(): Knex.MySql2ConnectionConfig {
  const url = new URL(MARIADB_URL);
  return { host: url.hostname || '127.0.0.1', port: Number(url.port || 3306), user: decodeURIComponent(url.username || 'root'), password: decodeURIComponent(url.password) };
}

async function sqlite(): Promise<Phase[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statements-'));
  const countsFile = path.join(dir, 'counts.json');
  const server = await startServer({ DB_URL: `sqlite://${dir}/store.db`, ...QUIET, STATEMENT_COUNTS_FILE: countsFile }, ['-r', path.join(ROOT, 'bench/statement-counter.cjs')]);
  // The counts since the last call, written by the server on SIGUSR2.
  const take = async (): Promise<Counts> => {
    fs.rmSync(countsFile, { force: true });
    server.child.kill('SIGUSR2');
    for (let i = 0; i < 100 && !fs.existsSync(countsFile); i++) await sleep(20);
    await sleep(20);
    return JSON.parse(fs.readFileSync(countsFile, 'utf8'));
  };
  try {
    const writes = await Writes.setUp(server);
    for (const kind of writes.kinds) for (let i = 0; i < WARM; i++) await writes.run(kind);
    await sleep(300);
    await take();
    const phases: Phase[] = [];
    for (const kind of writes.kinds) {
      for (let i = 0; i < N; i++) await writes.run(kind);
      await sleep(300);
      const phase: Phase = { name: kind, ops: N, perOp: [], kinds: {}, commands: {}, examples: {}, first: [] };
      for (const [sql, n] of Object.entries(await take())) {
        phase.kinds[kindOf(sql)] = (phase.kinds[kindOf(sql)] ?? 0) + n;
        example(phase, kindOf(sql), `${(n / N).toFixed(2)}x ${sql}`);
      }
      phase.perOp.push(Object.values(phase.kinds).reduce((a, b) => a + b, 0) / N);
      phases.push(phase);
    }
    return phases;
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function report(store: string, phases: Phase[]): Obj[] {
  const out: Obj[] = [];
  for (const p of phases) {
    const total = Object.values(p.kinds).reduce((a, b) => a + b, 0);
    const per = (n: number) => Number((n / p.ops).toFixed(2));
    const sorted = [...p.perOp].sort((a, b) => a - b);
    const spread = p.name === 'idle' || store === 'sqlite' ? '' : `  (min ${sorted[0]}, median ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted[sorted.length - 1]})`;
    console.log(`[${store}] ${p.name}: ${per(total)} statements per ${p.name === 'idle' ? '300 ms' : 'request'} over ${p.ops}${spread}`);
    const kinds = Object.entries(p.kinds).sort((a, b) => b[1] - a[1]);
    for (const [kind, n] of kinds) {
      console.log(`    ${per(n).toFixed(2).padStart(6)}  ${kind}`);
      if (process.env.STATEMENTS_SQL) for (const sql of p.examples[kind] ?? []) console.log(`              ${sql}`);
    }
    if (process.env.STATEMENTS_SQL && p.first.length) console.log(`    in order, one request:\n${p.first.map((l) => `      ${l}`).join('\n')}`);
    if (Object.keys(p.commands).length) console.log(`    commands: ${Object.entries(p.commands).map(([c, n]) => `${c} ${per(n)}`).join(', ')}`);
    out.push({ store, write: p.name, requests: p.ops, per_request: per(total), kinds: Object.fromEntries(kinds.map(([k, n]) => [k, per(n)])), commands: Object.fromEntries(Object.entries(p.commands).map(([c, n]) => [c, per(n)])) });
  }
  return out;
}

async function main(): Promise<void> {
  const all: Obj[] = [];
  for (const store of (process.env.BENCH_STORES ?? 'mariadb sqlite').split(/\s+/).filter(Boolean)) {
    all.push(...report(store, store === 'mariadb' ? await mariadb() : await sqlite()));
  }
  if (process.env.STATEMENTS_OUT) fs.writeFileSync(process.env.STATEMENTS_OUT, JSON.stringify(all, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
