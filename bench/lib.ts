/** Processes, load generation and results for make bench (bench/run.ts). */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export const ROOT = path.resolve(__dirname, '..');
export const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);

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
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Linux reports process times in clock ticks of 1/100 s (USER_HZ). */
const CLOCK_TICKS = 100;

/** Peak resident set (VmHWM) of a live process, in MB; 0 once it has gone. */
export function peakRssMb(pid: number | undefined): number {
  return residentMb(pid, 'VmHWM');
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

/** The built server (dist/src/server.js) as a child process; `nodeArgs` go to node before the script (e.g. --cpu-prof). */
export async function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'dist/src/server.js')], {
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
  const child = spawn(process.execPath, ['-e', code(port)], { cwd: ROOT, env: { ...process.env, BODY: body }, stdio: 'ignore' });
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
