/**
 * Writes under load, for profiling (not part of make bench): a fresh store, a started server,
 * creates of accessions over 8 connections for BENCH_SECONDS, then a bulk load of archival
 * objects (the server's peak RSS after it). WRITE_PROFILE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' gives the server's CPU
 * profile (one per process); WRITE_PROFILE_WORKERS the server's processes (1); WRITE_PROFILE_OUTPUT=1 prints the server's output at the end; DB_URL picks the store (a scratch SQLite file by default).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accessionBody, agentFor, childBody, subjectsFor } from './data';
import knexFactory from 'knex';
import { callsAs, cpuMs, cpuSplit, describe, describeWait, load, loop, peakRssMb, startServer, threadTimes } from './lib';

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'write-profile-'));
  const dbUrl = process.env.DB_URL ?? `sqlite://${dir}/store.db`;
  const nodeArgs = (process.env.WRITE_PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = await startServer({ DB_URL: dbUrl, WORKERS: process.env.WRITE_PROFILE_WORKERS ?? '1' }, nodeArgs);
  try {
    const { H, call } = await callsAs(server.base, process.env.WRITE_PROFILE_USER ?? 'admin', process.env.WRITE_PROFILE_PASSWORD ?? 'admin');
    const repo = await call('POST', '/repositories', { repo_code: `P${Date.now()}`, name: 'Profile' });
    const subjects: string[] = [];
    for (let i = 0; i < 10; i++) {
      subjects.push((await call('POST', '/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `T${i} ${repo.id}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] })).uri);
    }
    const agents = [(await call('POST', '/agents/people', { names: [{ primary_name: 'P', name_order: 'inverted', sort_name: 'P' }] })).uri];
    const phases = (process.env.WRITE_PROFILE_PHASES ?? 'create update bulk').split(' ');
    let serial = 0;
    // The server's CPU time (every thread) per operation of a phase, from `before` (cpuMs) until now.
    const perOp = (before: number, ops: number) => Math.round(((cpuMs(server.child.pid) - before) * 1000) / Math.max(1, ops));
    if (!phases.includes('create')) {
      for (let i = 0; i < 200; i++) await call('POST', `/repositories/${repo.id}/accessions`, accessionBody('C', String(++serial), serial, subjectsFor(serial, subjects), agentFor(serial, agents)));
    } else {
    const cpuBefore = cpuMs(server.child.pid);
    const threadsBefore = threadTimes(server.child.pid);
    const created = await load(`${server.base}/repositories/${repo.id}/accessions`, H, {
      method: 'POST',
      requests: [{ setupRequest: (req: any) => ({ ...req, body: JSON.stringify(accessionBody('C', String(++serial), serial, subjectsFor(serial, subjects), agentFor(serial, agents))) }) }],
    });
    const split = cpuSplit(server.child.pid, threadsBefore, created.count);
    console.log(`create: ${describe(created)}; server CPU ${perOp(cpuBefore, created.count)} µs/op (${split.mainUs} in the thread serving requests, ${split.otherUs} in the others; the serving thread ${describeWait(split)})`);
    }
    if (phases.includes('update')) {
    let updates = 0;
    const versions = new Map<number, number>();
    // The ids created (on MySQL a process takes ids in blocks: they need not run from 1).
    const ids = (await call('GET', `/repositories/${repo.id}/accessions?all_ids=true`)) as number[];
    const cpuBefore = cpuMs(server.child.pid);
    const threadsBefore = threadTimes(server.child.pid);
    const updated = await load(`${server.base}/repositories/${repo.id}/accessions/${ids[0]}`, H, {
      method: 'POST',
      requests: [{
        setupRequest: (req: any) => {
          const id = ids[updates++ % Math.max(1, ids.length - 10)];
          const v = versions.get(id) ?? 0;
          versions.set(id, v + 1);
          const body = { ...accessionBody('U', String(id), id, subjectsFor(id, subjects), agentFor(id, agents)), lock_version: v, title: `rev ${v}` };
          return { ...req, path: `/repositories/${repo.id}/accessions/${id}`, body: JSON.stringify(body) };
        },
      }],
    });
    const split = cpuSplit(server.child.pid, threadsBefore, updated.count);
    console.log(`update: ${describe(updated)}; server CPU ${perOp(cpuBefore, updated.count)} µs/op (${split.mainUs} in the thread serving requests, ${split.otherUs} in the others; the serving thread ${describeWait(split)})`);
    }
    if (phases.includes('raw') && dbUrl.startsWith('sqlite://')) {
      // The create baseline of make bench: a raw Knex insert of a stored record, one transaction per row.
      const raw = knexFactory({ client: 'better-sqlite3', connection: { filename: dbUrl.slice('sqlite://'.length) }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
      const json = JSON.stringify(await call('GET', `/repositories/${repo.id}/accessions/${serial > 0 ? 1 : 1}`).catch(() => ({})));
      const stats = await loop(async (i) => {
        const now = Date.now();
        await raw.transaction(async (trx) => {
          await trx('records').insert({ type: 'bench_raw', id: 20_000_000 + i, repo_id: repo.id, uri: `/raw/${process.pid}/${i}`, json, lock_version: 0, create_time_ms: now, system_mtime_ms: now, user_mtime_ms: now });
        });
      });
      console.log(`raw create: ${describe(stats)}`);
      await raw.destroy();
    }
    if (!phases.includes('bulk')) return;
    const resource = await call('POST', `/repositories/${repo.id}/resources`, {
      id_0: 'R', title: 'R', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'inclusive', label: 'creation', begin: '1850', end: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng' } }],
    });
    const t = Date.now();
    const cpuBefore = cpuMs(server.child.pid);
    const n = Number(process.env.WRITE_PROFILE_BULK ?? 10000);
    for (let i = 0; i < n; i += 500) {
      const children = [];
      for (let j = i; j < i + 500; j++) {
        children.push(childBody(j, resource.uri));
      }
      await call('POST', `/repositories/${repo.id}/resources/${resource.id}/children`, { jsonmodel_type: 'archival_record_children', children });
    }
    console.log(`bulk: ${Math.round(n / ((Date.now() - t) / 1000))} records/s; server CPU ${perOp(cpuBefore, n)} µs/record; server peak RSS ${Math.round(peakRssMb(server.child.pid))} MB`);
  } finally {
    await server.stop();
    if (process.env.WRITE_PROFILE_OUTPUT) console.log(server.output());
    if (!process.env.DB_URL) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
