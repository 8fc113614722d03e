/**
 * Inserts at position 0 of one big sibling group under load, for profiling and A/B runs (not part
 * of make bench, whose tree row does the same under 100k children): a fresh store, a resource with
 * TREE_PROFILE_CHILDREN children (20,000) loaded through POST …/children, then creates of archival
 * objects at position 0 over 8 connections for BENCH_SECONDS, TREE_PROFILE_ROUNDS times (2; the
 * first is a warm-up). TREE_PROFILE_NODE_ARGS gives node flags to the server; DB_URL picks the
 * store (a scratch SQLite file by default).
 */
import { childBody, resourceBody } from './data';
import { describe, loadWithCpu, profileAgainstServer } from './lib';

const nodeArgs = (process.env.TREE_PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean);
profileAgainstServer('tree-insert-profile', {}, nodeArgs, async (server) => {
  const login = await (await fetch(`${server.base}/users/admin/login?password=admin`, { method: 'POST' })).json() as { session: string };
  const H = { 'X-ArchivesSpace-Session': login.session, 'content-type': 'application/json' };
  const call = async (url: string, body: unknown) => {
    const res = await fetch(server.base + url, { method: 'POST', headers: H, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const repo = await call('/repositories', { repo_code: `T${Date.now()}`, name: 'Tree inserts' });
  const resource = await call(`/repositories/${repo.id}/resources`, resourceBody('TREE', 'Tree'));
  const children = Number(process.env.TREE_PROFILE_CHILDREN ?? 20000);
  for (let i = 0; i < children; i += 500) {
    await call(`${resource.uri}/children`, { children: Array.from({ length: Math.min(500, children - i) }, (_, k) => childBody(i + k, resource.uri)) });
  }
  let firsts = 0;
  const insertFirst = {
    method: 'POST',
    requests: [{ setupRequest: (req: any) => ({ ...req, body: JSON.stringify({ title: `New first ${++firsts}`, level: 'file', resource: { ref: resource.uri }, position: 0 }) }) }],
  };
  for (let round = 1; round <= Number(process.env.TREE_PROFILE_ROUNDS ?? 2); round++) {
    const { stats, cpuUs } = await loadWithCpu(server.child.pid, `${server.base}/repositories/${repo.id}/archival_objects`, H, insertFirst);
    console.log(`insert at position 0 of ${children} siblings, round ${round}: ${describe(stats)}; server CPU ${cpuUs} µs/op`);
  }
});
