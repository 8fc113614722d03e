/** Starting the server and the indexer as child processes, for tests that signal or kill them. */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import assert from 'node:assert/strict';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** The built server when `make test` built it, else the sources through tsx. */
function command(script: 'server' | 'cli/main'): string[] {
  const built = path.join(ROOT, `dist/src/${script}.js`);
  const newest = (dir: string): number =>
    Math.max(...fs.readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs));
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= newest(path.join(ROOT, 'src'))) return [process.execPath, built];
  // One process (no tsx wrapper), so signals reach the server itself.
  return [process.execPath, '--require', 'tsx/cjs', path.join(ROOT, `src/${script}.ts`)];
}

export interface Server { child: ChildProcess; base: string; exited: Promise<number | null>; output: () => string }

export async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const [cmd, ...args] = command('server');
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, WORKERS: process.env.WORKERS ?? '1', ...env, PORT: String(port), LOG_REQUESTS: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  // 60 s: with WORKERS=2 on a 2-core machine shared with other work (load average 17) a start took 22 s.
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      if ((await fetch(`${base}/version`)).ok) return { child, base, exited, output: () => output };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${output}`);
}

/** `archive-records indexer` (the indexer as its own process), with extra arguments such as --once or --rebuild. */
export function startIndexer(env: Record<string, string>, args: string[] = []): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const [cmd, ...rest] = command('cli/main');
  const child = spawn(cmd, [...rest, 'indexer', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

export interface Ran { code: number | null; stdout: string; stderr: string }

/** `archive-records ...` from the sources (no build), as a child process with pipes: not a terminal. */
export function cli(args: string[], env: Record<string, string>, input?: string): Promise<Ran> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: ROOT, env: { ...process.env, LOG_REQUESTS: 'false', ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => { stdout += d; });
  child.stderr!.on('data', (d) => { stderr += d; });
  child.stdin!.end(input);
  // A verb that hangs fails its test (code null) instead of the whole file timing out. Copying
  // 5,000 records into MariaDB took over 120 s on a loaded 2-core CI machine: 5 minutes.
  const limit = setTimeout(() => child.kill('SIGKILL'), 300_000);
  return new Promise((resolve) => child.on('close', (code) => {
    clearTimeout(limit);
    resolve({ code, stdout, stderr });
  }));
}

/** The JSON lines a verb wrote on stderr (its messages and progress when stderr is not a terminal). */
/** JSON calls to the server `current()` answers (a crash test restarts it), with a session or none, and the admin's login. */
export function callsTo(current: () => Server | undefined, password: string) {
  const call = async (method: string, p: string, token?: string, body?: unknown) => {
    const res = await fetch(`${current()!.base}${p}`, {
      method, headers: { ...(token ? { 'X-ArchivesSpace-Session': token } : {}), 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json().catch(() => undefined) as any };
  };
  const login = async () => (await call('POST', `/users/admin/login?password=${password}`)).body.session as string;
  return { call, login };
}

export function messages(text: string): any[] {
  return text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

export interface Served { child: ChildProcess; base: string; token: string; call: (method: string, p: string, body?: unknown) => Promise<{ status: number; body: any }> }

/** `archive-records serve`, logged in as `username`. */
export async function serve(env: Record<string, string>, username: string, password: string): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'src/cli/main.ts'), 'serve', '--port', String(port)], {
    cwd: ROOT, env: { ...process.env, WORKERS: process.env.WORKERS ?? '1', LOG_REQUESTS: 'false', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || i > 150) throw new Error(`serve did not start: ${output}`);
    try {
      if ((await fetch(`${base}/version`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const login = await fetch(`${base}/users/${username}/login?password=${encodeURIComponent(password)}`, { method: 'POST' });
  assert.equal(login.status, 200, `login as ${username}`);
  const token = (await login.json()).session as string;
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method, headers: { 'X-ArchivesSpace-Session': token, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any;
    try { parsed = JSON.parse(text); } catch { parsed = text; }
    return { status: res.status, body: parsed };
  };
  return { child, base, token, call };
}

export async function stop(s?: Served): Promise<void> {
  if (!s || s.child.exitCode !== null) return;
  const exited = new Promise((resolve) => s.child.on('exit', resolve));
  s.child.kill('SIGTERM');
  await exited;
}

