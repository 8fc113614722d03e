/**
 * Reads beside a long import (issue 50, SQLite): a server on a scratch SQLite file imports a
 * generated EAD of BENCH_IMPORT_COMPONENTS components (default 20,000) through POST
 * …/jobs_with_files (one write transaction), and meanwhile one client at a time asks, in turn, a
 * listing page, a search and a tree's root: their latencies during the import (p50, p95, max)
 * and beside no import, and the import's own time. Beside them another client creates
 * accessions one after another: its latencies during the import (and how many were refused).
 * BENCH_CHUNK_MS (default "0,200") runs it once per value of IMPORT_CHUNK_MS, in turn, each on
 * a fresh server: 0 is one transaction per file (before chunked imports), 200 the default.
 * BENCH_IMPORT_ALONE=1 imports the file once with nothing beside it first (its rate alone), and
 * waits for the index to catch up with it before the import with the reads beside it.
 *
 *   npx tsx bench/reads-beside-import.ts                 # this checkout's server
 *   SERVER_ROOT=/work/main npx tsx bench/reads-beside-import.ts   # another checkout's, for a before/after
 *
 * The server runs from the checkout's sources through tsx (no build needed, so two checkouts
 * compare alike).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generatedEad } from './import';
import { drained } from './jobs';
import { freePort } from './lib';

const ROOT = path.resolve(process.env.SERVER_ROOT ?? path.join(__dirname, '..'));
const COMPONENTS = Number(process.env.BENCH_IMPORT_COMPONENTS ?? 20_000);
const ACCESSIONS = Number(process.env.BENCH_ACCESSIONS ?? 200);

async function startServer(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'src/server.ts')], {
    cwd: ROOT, env: { ...process.env, WORKERS: '1', ...env, PORT: String(port), LOG_REQUESTS: 'false' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => { output = (output + d.toString()).slice(-20_000); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      if ((await fetch(`${base}/version`)).ok) return { base, stop, output: () => output, exitCode: () => child.exitCode ?? child.signalCode };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`server did not start: ${output}`);
}

async function json(res: Response): Promise<any> {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return res.json();
}

interface Timed { name: string; url: string; ms: number[] }

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const summary = (t: Timed) => `${t.name}: n=${t.ms.length} p50 ${pct(t.ms, 50).toFixed(1)} ms, p95 ${pct(t.ms, 95).toFixed(1)} ms, max ${Math.max(...t.ms).toFixed(1)} ms`;

/** fetch, once more after a connection reset (a kept-alive connection the busy server had closed). */
const again = (url: string, init: RequestInit) => fetch(url, init).catch(() => fetch(url, init));

/** One client creating accessions one after another until `until` resolves: each create's time, and the refused ones. */
async function createInTurn(base: string, headers: Record<string, string>, repoUri: string, timed: Timed, until: Promise<unknown>): Promise<number> {
  let done = false;
  let refused = 0;
  void until.finally(() => { done = true; });
  for (let i = 0; !done; i++) {
    const started = performance.now();
    const res = await again(`${base}${repoUri}/accessions`, {
      method: 'POST', headers, body: JSON.stringify({ id_0: 'BESIDE', id_1: `${timed.name.length}-${Date.now()}-${i}`, title: `Beside ${i}`, accession_date: '2020-01-01' }),
    });
    await res.arrayBuffer();
    timed.ms.push(performance.now() - started);
    if (res.status !== 200) refused++;
    await new Promise((r) => setTimeout(r, 20));
  }
  return refused;
}

/** One client asking each route in turn until `until` resolves (or `count` rounds when given). */
async function askInTurn(base: string, headers: Record<string, string>, routes: Timed[], until: Promise<unknown> | number): Promise<void> {
  let done = false;
  if (typeof until !== 'number') void until.finally(() => { done = true; });
  for (let round = 0; typeof until === 'number' ? round < until : !done; round++) {
    for (const r of routes) {
      const started = performance.now();
      const res = await again(`${base}${r.url}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${r.url}: ${res.status}`);
      r.ms.push(performance.now() - started);
    }
  }
}

async function main(): Promise<void> {
  for (const chunkMs of (process.env.BENCH_CHUNK_MS ?? '0,200').split(',')) await run(chunkMs);
}

async function run(chunkMs: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reads-beside-import-'));
  const password = crypto.randomBytes(6).toString('hex');
  const server = await startServer({ DB_URL: `sqlite://${path.join(dir, 'archive.db')}`, SEARCH_PATH: path.join(dir, 'search'), ADMIN_PASSWORD: password, IMPORT_CHUNK_MS: chunkMs, DB_WAIT_SECONDS: '600' });
  try {
    const { base } = server;
    const session = (await json(await fetch(`${base}/users/admin/login?password=${password}`, { method: 'POST' }))).session as string;
    const H = { 'X-ArchivesSpace-Session': session, 'Content-Type': 'application/json' };
    const repo = await json(await fetch(`${base}/repositories`, { method: 'POST', headers: H, body: JSON.stringify({ repo_code: 'RBI', name: 'Reads beside import' }) }));
    const R = `/repositories/${repo.id}`;
    for (let i = 0; i < ACCESSIONS; i++) {
      await json(await fetch(`${base}${R}/accessions`, { method: 'POST', headers: H, body: JSON.stringify({ id_0: 'RBI', id_1: String(i), title: `Letters ${i}`, accession_date: '2020-01-01' }) }));
    }
    const resource = await json(await fetch(`${base}${R}/resources`, {
      method: 'POST', headers: H,
      body: JSON.stringify({ title: 'Tree', id_0: 'TREE', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn', lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }], dates: [{ date_type: 'single', label: 'creation', expression: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }] }),
    }));
    for (let i = 0; i < 50; i++) {
      await json(await fetch(`${base}${R}/archival_objects`, { method: 'POST', headers: H, body: JSON.stringify({ title: `Node ${i}`, level: 'file', resource: { ref: resource.uri } }) }));
    }
    const routes = (): Timed[] => [
      { name: 'GET …/accessions?page=1', url: `${R}/accessions?page=1`, ms: [] },
      { name: 'GET …/search?q=letters', url: `${R}/search?q=letters&page=1`, ms: [] },
      { name: 'GET …/resources/:id/tree/root', url: `${R}/resources/${resource.id}/tree/root`, ms: [] },
    ];
    const quiet = routes();
    await askInTurn(base, H, quiet, 100);

    const importing = (unitid: string) => {
      const xml = generatedEad(COMPONENTS, unitid);
      const form = new FormData();
      form.append('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['bench.xml'] } }));
      form.append('files[]', new Blob([xml], { type: 'application/xml' }), 'bench.xml');
      return (async () => {
        const submitted = await json(await fetch(`${base}${R}/jobs_with_files`, { method: 'POST', headers: { 'X-ArchivesSpace-Session': session }, body: form }));
        for (;;) {
          // A kept-alive connection the busy server closed meanwhile answers ECONNRESET: asked again.
          const job = await json(await fetch(`${base}${submitted.uri}`, { headers: H }).catch(() => fetch(`${base}${submitted.uri}`, { headers: H })));
          if (['completed', 'failed', 'canceled'].includes(job.status)) {
            if (job.status !== 'completed') throw new Error(`the import ${job.status}`);
            return { seconds: (Date.parse(job.time_finished) - Date.parse(job.time_started)) / 1000, mb: xml.length / 1e6 };
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
    };
    // BENCH_IMPORT_ALONE=1: first an import with no reads beside it (its rate, for comparison).
    const alone = process.env.BENCH_IMPORT_ALONE === '1' ? await importing('BENCH-ALONE') : undefined;
    // The index catches up with the first import before the second: its catch-up is not the second import's company.
    if (alone) console.log(`the index caught up with the import alone in ${(await drained(base, 600)).toFixed(0)} s`);
    const finished = importing('BENCH-IMPORT');
    const during = routes();
    const creates: Timed = { name: 'POST …/accessions (another client)', url: '', ms: [] };
    const [, refused] = await Promise.all([askInTurn(base, H, during, finished), createInTurn(base, H, R, creates, finished)]);
    const job = await finished;
    console.log(`server: ${ROOT}; IMPORT_CHUNK_MS=${chunkMs}; load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    console.log(`import of ${COMPONENTS} components (${job.mb.toFixed(1)} MB): ${job.seconds} s by the job's times with the reads and creates beside it`
      + ` (${Math.round(COMPONENTS / job.seconds)} components/s)${alone ? `, ${alone.seconds} s alone (${Math.round(COMPONENTS / alone.seconds)} components/s)` : ''}`);
    console.log('no import:');
    for (const t of quiet) console.log(`  ${summary(t)}`);
    console.log('during the import:');
    for (const t of during) console.log(`  ${summary(t)}`);
    console.log(`  ${summary(creates)}, ${refused} refused`);
  } catch (err) {
    console.error(`server (exit ${server.exitCode()}) said: ${server.output().slice(-4000)}`);
    throw err;
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
