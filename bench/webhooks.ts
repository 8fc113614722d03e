/**
 * Webhook delivery delay (issue 46): the built server on a scratch store takes 1,000 record
 * writes/s (200 children every 200 ms) for BENCH_WEBHOOK_SECONDS while subscribers on 127.0.0.1
 * receive every change; each event's delay runs from its change's time to its arrival. Run
 * twice: with two live subscribers, then with the same two beside a dead one (port closed) and
 * a hanging one (never answers). `npx tsc -p tsconfig.json && npx tsx bench/webhooks.ts`
 * (BENCH_STORES=sqlite,mariadb; MARIADB_URL as bench/run.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { childBody, resourceBody } from './data';
import { cpuMs, startServer } from './lib';
import { type Receiver, startReceiver } from '../test/domain/receiver';

const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
const PER_TICK = 200;
const TICK_MS = 200;
const STORES = (process.env.BENCH_STORES ?? 'sqlite').split(',');
const MARIADB_URL = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
const SECRET = 'bench-secret-of-enough-length';

const percentile = (sorted: number[], p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);

async function run(store: string, dead: boolean): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  const dbName = `bench_webhooks_${crypto.randomBytes(4).toString('hex')}`;
  const dbUrl = store === 'sqlite' ? `sqlite://${path.join(dir, 'archive.db')}` : `${MARIADB_URL}/${dbName}`;
  const password = 'bench';
  const server = await startServer({ DB_URL: dbUrl, SEARCH_PATH: path.join(dir, 'search.db'), ADMIN_PASSWORD: password, WEBHOOK_TIMEOUT_MS: '5000' });
  const receivers: Receiver[] = [];
  try {
    const token = (await (await fetch(`${server.base}/users/admin/login?password=${password}`, { method: 'POST' })).json()).session as string;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${server.base}${p}`, { method, headers: { 'X-ArchivesSpace-Session': token, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const repo = (await call('POST', '/repositories', { repo_code: 'HOOKS', name: 'Hooks' })).id;
    const resource = await call('POST', `/repositories/${repo}/resources`, resourceBody('WH', 'Webhooks bench'));
    for (let i = 0; i < 2; i++) {
      const r = await startReceiver(SECRET);
      receivers.push(r);
      await call('POST', '/webhooks/subscriptions', { url: r.url, secret: SECRET });
    }
    if (dead) {
      const hanging = await startReceiver(SECRET);
      hanging.answer = () => 0;
      receivers.push(hanging);
      await call('POST', '/webhooks/subscriptions', { url: hanging.url, secret: SECRET });
      await call('POST', '/webhooks/subscriptions', { url: 'http://127.0.0.1:9/closed', secret: SECRET });
    }
    const t0 = Date.now();
    let written = 0;
    for (let tick = 0; Date.now() - t0 < SECONDS * 1000; tick++) {
      const children = Array.from({ length: PER_TICK }, (_, k) => childBody(written + k, resource.uri));
      await call('POST', `/repositories/${repo}/resources/${resource.id}/children`, { jsonmodel_type: 'archival_record_children', children });
      written += PER_TICK;
      const next = t0 + (tick + 1) * TICK_MS - Date.now();
      if (next > 0) await new Promise((r) => setTimeout(r, next));
    }
    const rate = Math.round(written / ((Date.now() - t0) / 1000));
    const live = receivers.slice(0, 2);
    const until = Date.now() + 60_000;
    while (live.some((r) => r.accepted().filter((e) => e.type === 'archival_object').length < written) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    for (const [i, r] of live.entries()) {
      const got = r.all.filter((x) => x.status === 200 && x.event.type === 'archival_object');
      const delays = got.map((x) => x.atMs - Date.parse(x.event.time)).sort((a, b) => a - b);
      const ids = got.map((x) => x.event.id);
      console.log(JSON.stringify({
        store, scenario: dead ? 'beside a dead and a hanging subscriber' : 'live subscribers only', subscriber: i + 1, writes_per_s: rate,
        events: written, received: got.length, distinct: new Set(ids).size,
        delay_ms: { p50: percentile(delays, 0.5), p95: percentile(delays, 0.95), max: delays.at(-1) ?? 0 },
      }));
    }
  } finally {
    await server.stop();
    for (const r of receivers) await r.close();
    fs.rmSync(dir, { recursive: true, force: true });
    if (store !== 'sqlite') {
      const u = new URL(MARIADB_URL);
      const admin = knexFactory({ client: 'mysql2', connection: { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) } });
      await admin.raw(`DROP DATABASE IF EXISTS \`${dbName}\``).finally(() => admin.destroy());
    }
  }
}

/**
 * Delivery alone: BENCH_WEBHOOK_BACKLOG changes written while a subscription is disabled, then
 * enabled; its rate is the backlog over the time until the last event arrives.
 */
async function drain(store: string): Promise<void> {
  const backlog = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 4000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  const dbName = `bench_webhooks_${crypto.randomBytes(4).toString('hex')}`;
  const dbUrl = store === 'sqlite' ? `sqlite://${path.join(dir, 'archive.db')}` : `${MARIADB_URL}/${dbName}`;
  const server = await startServer({ DB_URL: dbUrl, SEARCH_PATH: path.join(dir, 'search.db'), ADMIN_PASSWORD: 'bench' }, process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []);
  const r = await startReceiver(SECRET);
  try {
    const token = (await (await fetch(`${server.base}/users/admin/login?password=bench`, { method: 'POST' })).json()).session as string;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${server.base}${p}`, { method, headers: { 'X-ArchivesSpace-Session': token, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const repo = (await call('POST', '/repositories', { repo_code: 'HOOKS', name: 'Hooks' })).id;
    const resource = await call('POST', `/repositories/${repo}/resources`, resourceBody('WH', 'Webhooks bench'));
    const sub = await call('POST', '/webhooks/subscriptions', { url: r.url, secret: SECRET, enabled: false, record_types: ['archival_object'] });
    for (let i = 0; i < backlog; i += 500) {
      const children = Array.from({ length: 500 }, (_, k) => childBody(i + k, resource.uri));
      await call('POST', `/repositories/${repo}/resources/${resource.id}/children`, { jsonmodel_type: 'archival_record_children', children });
    }
    // The indexer's work on the backlog would count as the delivery's.
    for (;;) {
      const health = (await (await fetch(`${server.base}/health`)).json()) as { index: { checkpoint: number }; queue: { head: number } };
      if (health.index.checkpoint >= health.queue.head) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const t0 = Date.now();
    const cpu0 = cpuMs(server.child.pid);
    await call('POST', sub.uri, { lock_version: 0, enabled: true });
    while (r.accepted().length < backlog && Date.now() - t0 < 120_000) await new Promise((res) => setTimeout(res, 20));
    const seconds = (Date.now() - t0) / 1000;
    const cpuPerEvent = (cpuMs(server.child.pid) - cpu0) / backlog;
    console.log(JSON.stringify({
      store, scenario: 'a backlog delivered alone', events: backlog, received: r.accepted().length, seconds,
      events_per_s: Math.round(r.accepted().length / seconds), server_cpu_ms_per_event: Math.round(cpuPerEvent * 1000) / 1000,
    }));
  } finally {
    await server.stop();
    await r.close();
    fs.rmSync(dir, { recursive: true, force: true });
    if (store !== 'sqlite') {
      const u = new URL(MARIADB_URL);
      const admin = knexFactory({ client: 'mysql2', connection: { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) } });
      await admin.raw(`DROP DATABASE IF EXISTS \`${dbName}\``).finally(() => admin.destroy());
    }
  }
}

async function main(): Promise<void> {
  for (const store of STORES) {
    if (process.env.BENCH_WEBHOOK_PARTS !== 'delay') await drain(store);
    if (process.env.BENCH_WEBHOOK_PARTS === 'drain') continue;
    await run(store, false);
    await run(store, true);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
