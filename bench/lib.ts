/** Processes, load generation and results for make bench (bench/run.ts). */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import knexFactory from 'knex';

export const ROOT = path.resolve(__dirname, '..');
export const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);

/** A taskset list (`0-7`, `0,2,4-6`) as core numbers. */
function coreList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    if (!Number.isInteger(a) || !Number.isInteger(b) || b < a) throw new Error(`BENCH_CORES: '${part}' is not a core or a range of cores`);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}

/**
 * BENCH_CORES=SERVER:LOAD (taskset lists, e.g. `0-7:8-15`, the many-core kit's layout in
 * ../shared/devbench): the server with WORKERS=N runs on the first N cores of SERVER (the bare
 * baselines on its first), this process (the load generator) on LOAD, with autocannon workers
 * (one per LOAD core, up to 4) for the loads that need no per-request code. Unset, or naming cores
 * the machine lacks, or without taskset: everything shares every core, as before.
 */
export const CORES = ((): { server: number[]; load: number[] } | undefined => {
  const raw = process.env.BENCH_CORES;
  if (!raw) return undefined;
  const [server, loadCores] = raw.split(':').map((l) => (l ? coreList(l) : []));
  const have = os.cpus().length;
  if (!server?.length || !loadCores?.length || [...server, ...loadCores].some((c) => c >= have)) {
    console.log(`  BENCH_CORES=${raw} names cores this machine (${have} cores) lacks: not pinned`);
    return undefined;
  }
  try {
    // -a: every thread of this process; those it starts later (autocannon's workers) inherit it.
    execFileSync('taskset', ['-a', '-p', '-c', loadCores.join(','), String(process.pid)], { stdio: 'ignore' });
  } catch {
    console.log('  BENCH_CORES: taskset failed or is missing: not pinned');
    return undefined;
  }
  return { server, load: loadCores };
})();

/** The command that starts a process on the first `n` server cores of BENCH_CORES (the command itself when not pinned). */
function pinned(n: number, command: string[]): string[] {
  if (!CORES) return command;
  return ['taskset', '-c', CORES.server.slice(0, Math.max(1, n)).join(','), ...command];
}

/** The WORKERS counts whose rows make bench reports: 2 on any machine; 4 and 8 too where BENCH_CORES gives the server that many cores. */
export function workerCounts(): number[] {
  return [2, 4, 8].filter((n) => n === 2 || (CORES !== undefined && CORES.server.length >= n));
}

export interface Result {
  workload: string;
  store: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  target: string;
  met: boolean;
  note?: string;
  /** Throughput and latency of the workload and of its baseline under load (GET rows: also a bare Express app's); the server's VmHWM when it ended. */
  detail?: { workload?: Stats; baseline?: Stats; single?: Stats; express?: Stats; server_vmhwm_mb?: number };
}

export const results: Result[] = [];

/** The server whose peak RSS each result records (VmHWM when the workload ended). */
export const watched: { pid?: number } = {};

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

export function record(r: Result): void {
  r.ratio = r.ratio === null ? null : round(r.ratio, 3);
  if (watched.pid && r.unit !== 'MB') r.detail = { ...r.detail, server_vmhwm_mb: Math.round(peakRssMb(watched.pid)) };
  results.push(r);
  const ratio = r.ratio === null ? '' : `  ratio ${r.ratio.toFixed(3)}`;
  const base = r.baseline === null ? '' : `  baseline ${r.baseline}`;
  console.log(`  [${r.store}] ${r.workload}: ${r.value} ${r.unit}${base}${ratio}  target ${r.target}: ${r.met ? 'met' : 'NOT MET'}${r.note ? `  (${r.note})` : ''}`);
}

export function log(line: string): void {
  console.log(`  ${line}`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * CPU time a live process has used so far (user + system, every thread), in ms; 0 once it has
 * gone. Divided by the operations of a phase, it compares two builds on a machine whose speed
 * moves between runs better than throughput does (bench/write-profile.ts).
 */
export function cpuMs(pid: number | undefined): number {
  return statCpuMs(`/proc/${pid}/stat`) ?? 0;
}

/** User + system time (ms) in a /proc stat file (a process's or a thread's); undefined once it has gone. */
function statCpuMs(file: string): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = fs.readFileSync(file, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * A live process's threads so far: the CPU time (ms) of each, by thread id (the thread whose id is
 * the process's runs its event loop), and how long that thread waited for a core (ms, from
 * /proc's schedstat: runnable but not running; undefined where the kernel does not keep it).
 */
export interface ThreadTimes {
  cpu: Map<number, number>;
  mainWaitMs?: number;
  atMs: number;
}

export function threadTimes(pid: number | undefined): ThreadTimes {
  const cpu = new Map<number, number>();
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    // The process has gone.
  }
  for (const tid of tids) {
    // A thread that ended meanwhile is left out.
    const ms = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
    if (ms !== undefined) cpu.set(Number(tid), ms);
  }
  let mainWaitMs: number | undefined;
  try {
    // schedstat: time on a core, time waiting on a run queue (ns), time slices.
    mainWaitMs = Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    // No schedstat (or the process has gone).
  }
  return { cpu, mainWaitMs, atMs: performance.now() };
}

/**
 * A phase's server CPU per operation (µs), split between the thread serving requests (the
 * process's main thread) and its other threads (the index thread, V8's garbage-collection
 * helpers, the checkpointer): with cores to spare only the first bounds the rate
 * (`before`: threadTimes at the phase's start). Threads that ended during the phase are missed.
 * `waitUs` is what the serving thread waited per operation for a core (other threads and the load
 * generator had them), `busy` the share of the phase it was running or waiting so: near 1, that
 * thread is what bounds the rate, not the store or the load generator.
 */
export function cpuSplit(pid: number | undefined, before: ThreadTimes, ops: number): { mainUs: number; otherUs: number; waitUs?: number; busy?: number } {
  const after = threadTimes(pid);
  let main = 0;
  let other = 0;
  for (const [tid, ms] of after.cpu) {
    const used = ms - (before.cpu.get(tid) ?? 0);
    if (tid === pid) main += used;
    else other += used;
  }
  const per = (ms: number) => Math.round((ms * 1000) / Math.max(1, ops));
  const split = { mainUs: per(main), otherUs: per(other) };
  if (after.mainWaitMs === undefined || before.mainWaitMs === undefined) return split;
  const waited = after.mainWaitMs - before.mainWaitMs;
  return { ...split, waitUs: per(waited), busy: (main + waited) / Math.max(1, after.atMs - before.atMs) };
}

/** A load (`load`) and the CPU the process `pid` spent per request meanwhile (µs): steadier than its rate on a shared machine (A/B runs). */
export async function loadWithCpu(
  pid: number | undefined, url: string, headers: Record<string, string>, extra: Record<string, unknown> = {},
): Promise<{ stats: Stats; cpuUs: number }> {
  const before = cpuMs(pid);
  const stats = await load(url, headers, extra);
  return { stats, cpuUs: Math.round(((cpuMs(pid) - before) * 1000) / Math.max(1, stats.count)) };
}

/** The serving thread's wait for a core as cpuSplit measured it, for a note ('' where the kernel keeps no schedstat). */
export function describeWait(cpu: ReturnType<typeof cpuSplit>): string {
  return cpu.waitUs === undefined ? '' : `waited ${cpu.waitUs} µs for a core; running or waiting ${Math.round((cpu.busy ?? 0) * 100)} % of the phase`;
}

/** MariaDB/MySQL's global statement counters (Questions, Com_*), for statements per operation; {} on SQLite. */
export async function mysqlCounters(dbUrl: string): Promise<Record<string, number>> {
  if (!dbUrl.startsWith('mysql://')) return {};
  const knex = knexFactory({ client: 'mysql2', connection: dbUrl.replace(/\/[^/]*$/, '/') });
  try {
    const [rows] = await knex.raw("SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions','Com_select','Com_insert','Com_update','Com_delete','Com_commit','Com_begin')");
    return Object.fromEntries((rows as Array<{ Variable_name: string; Value: string }>).map((r) => [r.Variable_name, Number(r.Value)]));
  } finally {
    await knex.destroy();
  }
}

/** The pid of the local mysqld/mariadbd, for its CPU time. */
export function mysqldPid(): number | undefined {
  for (const entry of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (/mysqld|mariadbd/.test(fs.readFileSync(`/proc/${entry}/comm`, 'utf8'))) return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

/** Linux reports process times in clock ticks of 1/100 s (USER_HZ). */
const CLOCK_TICKS = 100;

/** Peak resident set (VmHWM) of a live process, in MB; 0 once it has gone. */
export function peakRssMb(pid: number | undefined): number {
  return residentMb(pid, 'VmHWM');
}

/** Resets a server's VmHWM to its current RSS (Linux clear_refs 5), so that a job's peak is its own; false where that is not allowed. */
export function resetPeak(pid: number | undefined): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** A live process's resident set as /proc tells it: peak (VmHWM) or current (VmRSS), in MB; 0 once it has gone. */
export function residentMb(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

export interface Server { child: ChildProcess; base: string; output: () => string; stop: () => Promise<void> }

/**
 * The built server (dist/src/server.js) as a child process; for an A/B of two builds in one run,
 * BENCH_SERVER_JS names another build's script, or BENCH_SERVER_ROOT another checkout (its
 * dist/src/server.js). `nodeArgs` go to node before the script (e.g. --cpu-prof).
 */
export async function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
  const port = await freePort();
  const script = process.env.BENCH_SERVER_JS ?? path.join(process.env.BENCH_SERVER_ROOT ?? ROOT, 'dist/src/server.js');
  const [cmd, ...args] = pinned(Number(env.WORKERS ?? 1), [process.execPath, ...nodeArgs, script]);
  const child = spawn(cmd, args, {
    cwd: ROOT, env: { ...process.env, WORKERS: '1', ...env, PORT: String(port), LOG_REQUESTS: 'false' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      if ((await fetch(`${base}/version`)).ok) return { child, base, output: () => output, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`server did not start: ${output}`);
}

/**
 * For the profiling scripts (read-profile, import-profile): the built server on DB_URL, or on a
 * scratch SQLite file removed afterwards; `fn` gets the server and its store's URL. A failure is
 * printed and the process exits with status 1.
 */
export function profileAgainstServer(name: string, env: Record<string, string>, nodeArgs: string[], fn: (server: Server, dbUrl: string) => Promise<void>): void {
  (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
    const dbUrl = process.env.DB_URL ?? `sqlite://${dir}/store.db`;
    const server = await startServer({ DB_URL: dbUrl, ...env }, nodeArgs);
    try {
      await fn(server, dbUrl);
    } finally {
      await server.stop();
      // READ_PROFILE_OUTPUT=1 (for read-profile) prints what the server wrote, as WRITE_PROFILE_OUTPUT does.
      if (process.env[`${name.toUpperCase().replace(/-/g, '_')}_OUTPUT`]) console.log(server.output());
      fs.rmSync(dir, { recursive: true, force: true });
    }
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

/** A one-line node process answering `body` on a free port, started with `code(port)`. */
async function startScript(code: (port: number) => string, body: string, urlPath = ''): Promise<Server> {
  const port = await freePort();
  const [cmd, ...args] = pinned(1, [process.execPath, '-e', code(port)]);
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, BODY: body }, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}${urlPath}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(base)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { child, base, output: () => '', stop: async () => { child.kill('SIGTERM'); await exited; } };
}

/** The baseline of the GET workloads: a bare node:http process answering the same bytes from memory. */
export function startBareServer(body: string): Promise<Server> {
  return startScript((port) => `const b = Buffer.from(process.env.BODY); require('http').createServer((q, s) => { s.writeHead(200, {'content-type': 'application/json', 'content-length': b.length}); s.end(b); }).listen(${port}, '127.0.0.1')`, body);
}

/** A reference for the GET workloads' notes: the framework alone (Express 5, no middleware) answering the same bytes. */
export function startExpressServer(body: string): Promise<Server> {
  return startScript((port) => `const b = Buffer.from(process.env.BODY); const app = require('express')(); app.disable('x-powered-by'); app.set('etag', false); app.get('/', (q, s) => s.type('application/json').send(b)); app.listen(${port}, '127.0.0.1')`, body, '/');
}

export interface Stats {
  /** Completed operations (2xx answers) per second. */
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  count: number;
  connections: number;
  /** Answers other than 2xx, socket errors and timeouts (a workload with any of them does not meet its target). */
  failed?: number;
  /**
   * Cores the whole machine kept busy during the run (/proc/stat: server, load generator, database
   * alike); with `cores` it bounds what more processes could answer: cores / coresBusy times as much.
   */
  coresBusy?: number;
  firstFailure?: string;
}

function stats(latencies: number[], seconds: number, connections: number): Stats {
  latencies.sort((a, b) => a - b);
  const at = (p: number) => round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN, 3);
  return { rps: Math.round(latencies.length / seconds), p50: at(50), p95: at(95), p99: at(99), count: latencies.length, connections };
}

export function describe(s: Stats): string {
  const failed = s.failed ? `, ${s.failed} FAILED (first: ${s.firstFailure})` : '';
  const busy = s.coresBusy === undefined ? '' : `, ${s.coresBusy} cores busy`;
  return `${s.rps} op/s, p50 ${s.p50} ms, p95 ${s.p95} ms, p99 ${s.p99} ms, ${s.connections} conn${busy}${failed}`;
}

/**
 * autocannon for DURATION seconds over keep-alive connections; latencies of every 2xx answer,
 * so the percentiles are exact. Other answers are counted (and fail the workload's target).
 */
export async function load(
  url: string,
  headers: Record<string, string>,
  extra: Record<string, unknown> = {},
  connections = CONNECTIONS,
): Promise<Stats> {
  // Pinned (BENCH_CORES) loads without per-request code run on autocannon's worker threads, one
  // per load core up to 4: one thread cannot keep a many-core server busy. Their percentiles come
  // from autocannon's histogram (p97.5 stands for p95), not from every answer.
  const threads = CORES && !('requests' in extra) ? Math.min(4, CORES.load.length) : 1;
  if (threads > 1) return loadOnThreads(url, headers, extra, connections, threads);
  const latencies: number[] = [];
  let failed = 0;
  let firstFailure = '';
  const busyBefore = machineCpu();
  const instance = autocannon({ url, connections, duration: DURATION, headers, ...extra });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else if (!failed++) firstFailure = String(status);
  });
  const started = process.hrtime.bigint();
  const result: any = await instance;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const s = stats(latencies, seconds, connections);
  const busyAfter = machineCpu();
  if (busyBefore && busyAfter) s.coresBusy = round((busyAfter.busy - busyBefore.busy) / (busyAfter.total - busyBefore.total) * os.cpus().length, 2);
  const bad = failed + Number(result.errors ?? 0) + Number(result.timeouts ?? 0);
  if (bad) {
    s.failed = bad;
    s.firstFailure = firstFailure ? `HTTP ${firstFailure}` : `${result.errors} errors, ${result.timeouts} timeouts`;
  }
  return s;
}

/** load() on autocannon's worker threads: throughput and percentiles from its aggregated result. */
async function loadOnThreads(url: string, headers: Record<string, string>, extra: Record<string, unknown>, connections: number, workers: number): Promise<Stats> {
  const busyBefore = machineCpu();
  const result: any = await autocannon({ url, connections: Math.max(connections, workers), duration: DURATION, headers, workers, ...extra });
  const busyAfter = machineCpu();
  const ok = Number(result['2xx'] ?? 0);
  const s: Stats = {
    rps: Math.round(ok / (Number(result.duration) || DURATION)), p50: result.latency.p50, p95: result.latency.p97_5, p99: result.latency.p99, count: ok, connections,
  };
  if (busyBefore && busyAfter) s.coresBusy = round((busyAfter.busy - busyBefore.busy) / (busyAfter.total - busyBefore.total) * os.cpus().length, 2);
  const bad = Number(result.non2xx ?? 0) + Number(result.errors ?? 0) + Number(result.timeouts ?? 0);
  if (bad) {
    s.failed = bad;
    s.firstFailure = `${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`;
  }
  return s;
}

/** The machine's CPU time since boot, busy and in all (jiffies of /proc/stat's first line); undefined off Linux. */
function machineCpu(): { busy: number; total: number } | undefined {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // idle and iowait are the unused time.
    return { busy: total - fields[3] - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** A baseline loop: `concurrency` callers repeating `op` for DURATION seconds, timed like autocannon's requests. */
export async function loop(op: (i: number) => Promise<void>, concurrency = CONNECTIONS): Promise<Stats> {
  const latencies: number[] = [];
  let n = 0;
  const started = process.hrtime.bigint();
  const until = Date.now() + DURATION * 1000;
  const caller = async () => {
    while (Date.now() < until) {
      const t = process.hrtime.bigint();
      await op(n++);
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return stats(latencies, Number(process.hrtime.bigint() - started) / 1e9, concurrency);
}

/** The results as an aligned table. */
export function table(rows: Result[]): string {
  const head = ['store', 'workload', 'value', 'baseline', 'ratio', 'target', 'met'];
  const cells = rows.map((r) => [
    r.store, r.workload, `${r.value} ${r.unit}`, r.baseline === null ? '-' : String(r.baseline), r.ratio === null ? '-' : r.ratio.toFixed(3), r.target, r.met ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i])).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}

/** JSON calls to a bench server as `user` (logged in once); a call that is not 2xx throws with its answer. */
export async function callsAs(base: string, user: string, password: string): Promise<{ H: Record<string, string>; call: (method: string, url: string, body?: unknown) => Promise<any> }> {
  const login = await (await fetch(`${base}/users/${user}/login?password=${password}`, { method: 'POST' })).json() as { session: string };
  const H = { 'X-ArchivesSpace-Session': login.session, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(base + url, { method, headers: H, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  return { H, call };
}
