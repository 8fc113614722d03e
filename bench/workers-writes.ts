/**
 * Creates and updates per second with WORKERS=1, 2, ... on a SQLite file (not part of make bench;
 * `npx tsx bench/workers-writes.ts`). Each count of processes gets a fresh store and a started
 * server; creates warm it (and give the updates their records), then creates for
 * BENCH_SECONDS over BENCH_CONNECTIONS connections, then updates with lock_version of the records
 * written so far, each sent with the version it has, then GETs of one record (the control: a read
 * takes no write token). One JSON line per measurement, with the load average. BENCH_WORKERS
 * lists the counts (default "1 2"); BENCH_WARM_SECONDS the seconds of creates that warm each
 * server (2); BENCH_SERVER_JS runs another build (A/B).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accessionBody, agentFor, subjectsFor } from './data';
import { callsAs, cpuMs, load, startServer, type Stats } from './lib';

const password = 'bench-workers';

/** CPU time (ms) of a process and its children (the cluster's server processes): on a shared machine it holds still better than rates. */
function treeCpuMs(pid: number): number {
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone, or no such file: the process alone
  }
  return cpuMs(pid) + children.reduce((sum, child) => sum + cpuMs(child), 0);
}

async function measure(workers: number): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workers-writes-'));
  const server = await startServer({ DB_URL: `sqlite://${dir}/store.db`, SEARCH_PATH: `${dir}/search.db`, WORKERS: String(workers), ADMIN_PASSWORD: password });
  try {
    for (let i = 0; i < 100 && (server.output().match(/"msg":"listening"/g) ?? []).length < workers; i++) await new Promise((r) => setTimeout(r, 100));
    const { H, call } = await callsAs(server.base, 'admin', password);
    const repo = await call('POST', '/repositories', { repo_code: 'W', name: 'Workers' });
    const subjects: string[] = [];
    for (let i = 0; i < 10; i++) {
      subjects.push((await call('POST', '/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `T${i}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] })).uri);
    }
    const agents = [(await call('POST', '/agents/people', { names: [{ primary_name: 'P', name_order: 'inverted', sort_name: 'P' }] })).uri];
    let serial = 0;
    const creates = (duration?: number) => load(`${server.base}/repositories/${repo.id}/accessions`, H, {
      method: 'POST', ...(duration ? { duration } : {}),
      requests: [{ setupRequest: (req: any) => ({ ...req, body: JSON.stringify(accessionBody('C', String(++serial), serial, subjectsFor(serial, subjects), agentFor(serial, agents))) }) }],
    });
    await creates(Number(process.env.BENCH_WARM_SECONDS ?? 2));
    const loadBefore = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const pid = server.child.pid!;
    let cpu = treeCpuMs(pid);
    const created = await creates();
    const createCpu = treeCpuMs(pid) - cpu;
    // Records of the warm-up in turn, each as read and sent with the version it has.
    const ids: number[] = (await call('GET', `/repositories/${repo.id}/accessions?all_ids=true`)).slice(0, 300);
    const read = new Map<number, Record<string, unknown>>();
    for (const id of ids) read.set(id, await call('GET', `/repositories/${repo.id}/accessions/${id}`));
    let updates = 0;
    cpu = treeCpuMs(pid);
    const updated = await load(`${server.base}/repositories/${repo.id}/accessions/${ids[0]}`, H, {
      method: 'POST',
      requests: [{
        setupRequest: (req: any) => {
          const id = ids[updates++ % ids.length];
          const record = read.get(id)!;
          const body = { ...record, title: `revision ${Number(record.lock_version) + 1}` };
          record.lock_version = Number(record.lock_version) + 1;
          return { ...req, path: `/repositories/${repo.id}/accessions/${id}`, body: JSON.stringify(body) };
        },
      }],
    });
    const updateCpu = treeCpuMs(pid) - cpu;
    // The control: a read, which takes no write token, so what WORKERS costs every request on this machine shows beside what it costs a write.
    cpu = treeCpuMs(pid);
    const got = await load(`${server.base}/repositories/${repo.id}/accessions/${ids[0]}`, H);
    const getCpu = treeCpuMs(pid) - cpu;
    const brief = (s: Stats, ms: number) => ({ cpu_us_per_op: Math.round((ms * 1000) / Math.max(1, s.count)), rps: s.rps, p50: s.p50, p99: s.p99, failed: s.failed ?? 0, ...(s.failed ? { first_failure: s.firstFailure } : {}), cores_busy: s.coresBusy });
    return { workers, create: brief(created, createCpu), update: brief(updated, updateCpu), get: brief(got, getCpu), loadavg: loadBefore, server: process.env.BENCH_SERVER_JS ?? 'dist' };
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(async () => {
  for (const w of (process.env.BENCH_WORKERS ?? '1 2').split(/\s+/).filter(Boolean)) console.log(JSON.stringify(await measure(Number(w))));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
