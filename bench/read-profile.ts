/**
 * Reads under load, for profiling and A/B runs (not part of make bench): a fresh store with one
 * accession linking two subjects and an agent, then GET of it and GET with resolve[] over 8
 * connections, each beside a bare Express 5 app and a bare node:http process answering the same
 * bytes (the ratios make bench reports), with each one's CPU per request. READ_PROFILE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' gives the server's CPU
 * profile (and each line the server's CPU per request); READ_PROFILE_WORKERS the server's processes (1); READ_PROFILE_READS='one resolve' picks the reads; DB_URL picks the store (a scratch SQLite file by default).
 */
import { accessionBody } from './data';
import { describe, loadWithCpu, profileAgainstServer, startBareServer, startExpressServer } from './lib';

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
    const bytes = await call('GET', url);
    const express = await startExpressServer(bytes);
    const nodeHttp = await startBareServer(bytes);
    try {
      const ours = await loadWithCpu(server.child.pid, server.base + url, H);
      const bare = await loadWithCpu(express.child.pid, express.base, {});
      const plain = await loadWithCpu(nodeHttp.child.pid, nodeHttp.base, {});
      console.log(`GET ${what}: ${describe(ours.stats)}, ${ours.cpuUs} µs server CPU each; ${(ours.stats.rps / bare.stats.rps).toFixed(2)} of bare Express (${bare.stats.rps} op/s, ${bare.cpuUs} µs each), ${(ours.stats.rps / plain.stats.rps).toFixed(3)} of node:http (${plain.stats.rps} op/s, ${plain.cpuUs} µs each)`);
    } finally {
      await express.stop();
      await nodeHttp.stop();
    }
  }
});
