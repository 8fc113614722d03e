/**
 * Where the server's memory goes, for the peak RSS goal (not part of make bench): the built
 * server on an existing store (DB_URL, e.g. one `BENCH_KEEP=1 make bench` kept) as
 * MEMORY_PROFILE_USER with MEMORY_PROFILE_PASSWORD (both `admin` by default; a kept store's admin
 * has a random password: `archive-records create-user profiler --admin --password …` makes a
 * user), then some of the bench's workloads, each followed by the process's peak and current RSS
 * and the heaps of the main thread and the index thread (from /system/info).
 * MEMORY_PROFILE_STEPS picks them: search, get, list, all_ids, bulk (archival objects through
 * POST …/children, 500 per request for 15 s, then until the index caught up), import (the bench's
 * EAD import through a job).
 */
import { childBody, resourceBody } from './data';
import { benchImport } from './import';
import { load, peakRssMb, profileAgainstServer, residentMb } from './lib';

const steps = (process.env.MEMORY_PROFILE_STEPS ?? 'search get list all_ids bulk').split(' ').filter(Boolean);
if (!process.env.DB_URL) throw new Error('DB_URL: the store to profile (a kept bench store)');

profileAgainstServer('memory-profile', {}, [], async (server) => {
  const password = process.env.MEMORY_PROFILE_PASSWORD ?? 'admin';
  const user = process.env.MEMORY_PROFILE_USER ?? 'admin';
  const login = await (await fetch(`${server.base}/users/${user}/login?password=${encodeURIComponent(password)}`, { method: 'POST' })).json() as { session: string };
  const H = { 'X-ArchivesSpace-Session': login.session };
  const pid = server.child.pid;
  const report = async (what: string) => {
    const info = await (await fetch(`${server.base}/system/info`, { headers: H })).json() as {
      memory?: NodeJS.MemoryUsage; search_info?: { thread_memory?: Record<string, number> };
    };
    const m = info.memory;
    const t = info.search_info?.thread_memory;
    const mb = (n?: number) => ((n ?? 0) / 1e6).toFixed(0);
    console.log(`${what.padEnd(10)} peak ${peakRssMb(pid).toFixed(0)} MB, now ${residentMb(pid, 'VmRSS').toFixed(0)} MB; main thread heap ${mb(m?.heapUsed)} of ${mb(m?.heapTotal)} MB, buffers ${mb(m?.arrayBuffers)} MB; index thread heap ${mb(t?.heap_used)} of ${mb(t?.heap_total)} MB, external ${mb(t?.external)} MB`);
  };
  const repos = await (await fetch(`${server.base}/repositories`, { headers: H })).json() as Array<{ uri: string }>;
  const repo = repos[0].uri;
  await report('started');
  const urls: Record<string, string> = {
    search: `${repo}/search?q=batch42&facet[]=primary_type&facet[]=subjects&page=1`,
    get: `${repo}/accessions/4242`,
    list: `${repo}/accessions?page=200&page_size=250`,
    all_ids: `${repo}/accessions?all_ids=true`,
  };
  const post = async (url: string, body: unknown) => {
    const res = await fetch(server.base + url, { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ id: number; uri: string }>;
  };
  const indexed = async () => {
    for (let i = 0; i < 120; i++) {
      const health = await (await fetch(`${server.base}/health`)).json() as { queue?: { pending?: number } };
      if (!health.queue?.pending) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await report('indexed');
  };
  for (const step of steps) {
    if (step === 'import') {
      await benchImport(server.base, 'profile', pid, repo, H, `MP-${Date.now()}`);
      await report('import');
      await indexed();
      continue;
    }
    if (step !== 'bulk') {
      const stats = await load(server.base + urls[step], H);
      await report(`${step} (${stats.rps} req/s)`);
      continue;
    }
    const resource = await post(`${repo}/resources`, resourceBody(`MP${Date.now()}`, 'Memory profile'));
    let loaded = 0;
    const until = Date.now() + 15_000;
    while (Date.now() < until) {
      const children = Array.from({ length: 500 }, (_, i) => childBody(loaded + i, resource.uri));
      await post(`${resource.uri}/children`, { jsonmodel_type: 'archival_record_children', children });
      loaded += 500;
    }
    await report(`bulk (${loaded} loaded)`);
    await indexed();
  }
});
