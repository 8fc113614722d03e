/** Starting the server and the indexer as child processes, for tests that signal or kill them. */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
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
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port), LOG_REQUESTS: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
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
