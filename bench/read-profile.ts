/**
 * Reads under load, for profiling and A/B runs (not part of make bench): a fresh store with one
 * accession linking two subjects and an agent, then GET of it and GET with resolve[] over 8
 * connections, each beside a bare Express 5 app answering the same bytes (the ratio make bench
 * reports). READ_PROFILE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' gives the server's CPU
 * profile (and each line the server's CPU per request); READ_PROFILE_WORKERS the server's processes (1); READ_PROFILE_READS='one resolve' picks the reads; DB_URL picks the store (a scratch SQLite file by default).
 */
import { accessionBody } from './data';
import { cpuMs, describe, load, profileAgainstServer, startExpressServer } from './lib';

const nodeArgs = (process.env.READ_PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean);
profileAgainstServer('read-profile', { WORKERS: process.env.READ_PROFILE_WORKERS ?? '1' }, nodeArgs, async (server) => {
  const login = await (await fetch(`${server.base}/users/admin/login?password=admin`, { method: 'POST' })).json() as { session: string };
  const H = { 'X-ArchivesSpace-Session': login.session, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(server.base + url, { method, headers: H, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return text;
  };
  const repo = JSON.parse(await call('POST', '/repositories', { repo_code: `R${Date.now()}`, name: 'Reads' }));
  const subjects = [];
  for (let i = 0; i < 2; i++) {
    subjects.push(JSON.parse(await call('POST', '/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `T${i}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] })).uri);
  }
  const agent = JSON.parse(await call('POST', '/agents/people', { names: [{ primary_name: 'P', name_order: 'inverted', sort_name: 'P' }] })).uri;
  const accession = JSON.parse(await call('POST', `/repositories/${repo.id}/accessions`, accessionBody('A', '1', 1, subjects, agent)));
  const one = `/repositories/${repo.id}/accessions/${accession.id}`;
  const reads = (process.env.READ_PROFILE_READS ?? 'one resolve').split(' ');
  for (const [what, url] of [['one', one], ['resolve', `${one}?resolve[]=subjects&resolve[]=linked_agents`]].filter(([name]) => reads.includes(name))) {
    const express = await startExpressServer(await call('GET', url));
    try {
      const cpuBefore = cpuMs(server.child.pid);
      const ours = await load(server.base + url, H);
      // The server's CPU per request: steadier than its rate on a shared machine (A/B runs).
      const perOp = Math.round(((cpuMs(server.child.pid) - cpuBefore) * 1000) / Math.max(1, ours.count));
      const bare = await load(express.base, {});
      console.log(`GET ${what}: ${describe(ours)}, ${perOp} µs server CPU each; ${(ours.rps / bare.rps).toFixed(2)} of bare Express (${bare.rps} op/s)`);
    } finally {
      await express.stop();
    }
  }
});
