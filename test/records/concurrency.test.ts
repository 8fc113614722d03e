import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sampleRecord } from '../fixtures';
import { freshDatabase, startTestApp, STORE } from '../helpers';
import { Server, startServer } from '../processes';

const ROUNDS = Number(process.env.CONCURRENCY_ROUNDS ?? 500);
const CLIENTS = 8;
/** make test runs this file again with WORKERS=2: the writers then reach two server processes. */
const WORKERS = Number(process.env.WORKERS ?? 1);

/**
 * Several writers at once, through a real listening server (so requests really overlap):
 * optimistic locking never loses an update and unique keys never admit two holders.
 */
describe(`concurrent writers (${STORE}, WORKERS=${WORKERS})`, function () {
  this.timeout(600_000);
  let base: string;
  let repo: number;
  let token: string;
  let close: () => Promise<void>;

  before(async () => {
    if (WORKERS > 1) {
      // The built server as processes (node:cluster), each with its own pool, on one store.
      const password = crypto.randomBytes(8).toString('hex');
      const db = freshDatabase();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-race-'));
      const server: Server = await startServer({
        DB_URL: STORE === 'sqlite' ? `sqlite://${path.join(dir, 'archive.db')}` : db.dbUrl,
        SEARCH_PATH: path.join(dir, 'search.db'), ADMIN_PASSWORD: password, LOG_REQUESTS: 'false', WORKERS: String(WORKERS),
      });
      base = server.base;
      token = (await (await fetch(`${base}/users/admin/login?password=${password}`, { method: 'POST' })).json()).session;
      close = async () => {
        const exited = server.exited;
        server.child.kill('SIGTERM');
        await exited;
        await db.drop();
        fs.rmSync(dir, { recursive: true, force: true });
      };
    } else {
      const t = await startTestApp();
      token = await t.adminToken();
      const server: http.Server = t.app.listen(0);
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = async () => {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
        await t.close();
      };
    }
    const created = await post('/repositories', { repo_code: 'RACE', name: 'Repository RACE' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    repo = created.body.id;
  });
  after(async () => close());

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST', headers: { 'X-ArchivesSpace-Session': token, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

  it(`${CLIENTS} clients updating one record with the same lock_version: one wins each round, none is lost (${ROUNDS} rounds)`, async () => {
    const created = await post(`/repositories/${repo}/accessions`, sampleRecord('accession', repo));
    const uri = created.body.uri;
    let wins = 0;
    const others = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const current = await (await fetch(`${base}${uri}`, { headers: { 'X-ArchivesSpace-Session': token } })).json();
      const answers = await Promise.all(
        Array.from({ length: CLIENTS }, (_, c) => post(uri, { ...current, title: `round ${round} client ${c}` })),
      );
      const ok = answers.filter((a) => a.status === 200).length;
      for (const a of answers) if (a.status !== 200) others.set(a.status, (others.get(a.status) ?? 0) + 1);
      assert.equal(ok, 1, `round ${round}: ${JSON.stringify(answers.map((a) => a.status))}`);
      wins += ok;
    }
    assert.deepEqual([...others.keys()], [409]);
    const final = await (await fetch(`${base}${uri}`, { headers: { 'X-ArchivesSpace-Session': token } })).json();
    assert.equal(final.lock_version, wins, 'final lock_version counts every acknowledged update');
    console.log(`      ${ROUNDS} rounds x ${CLIENTS} clients: ${wins} updates won, ${others.get(409)} refused with 409, 0 lost`);
  });

  it('concurrent creates with the same identifier: exactly one wins, the rest get the reference 400', async () => {
    for (let round = 0; round < 50; round++) {
      const answers = await Promise.all(Array.from({ length: CLIENTS }, () => post(`/repositories/${repo}/accessions`, { id_0: 'SAME', id_1: String(round) })));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, ...Array(CLIENTS - 1).fill(400)], `round ${round}: ${JSON.stringify(answers.map((a) => a.body))}`);
      for (const a of answers.filter((x) => x.status === 400)) assert.deepEqual(a.body, { error: { id_0: ['That ID is already in use'] } });
    }
  });

  it('concurrent batches that share one identifier: one is written whole, the others not at all', async () => {
    const before = (await (await fetch(`${base}/repositories/${repo}/accessions?page=1`, { headers: { 'X-ArchivesSpace-Session': token } })).json()).total;
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => post(`/repositories/${repo}/batch_imports`, [
        ...Array.from({ length: 5 }, (__, i) => ({ jsonmodel_type: 'accession', uri: `/repositories/${repo}/accessions/import_${i}`, id_0: 'BATCH', id_1: `${round}-${c}-${i}`, title: `Batch ${round} client ${c} record ${i}` })),
        // The one every batch of the round claims: a unique key taken only when it is written.
        { jsonmodel_type: 'accession', uri: `/repositories/${repo}/accessions/import_shared`, id_0: 'SHARED', id_1: String(round), title: `Shared ${round}` },
      ])));
      const written = answers.filter((a) => a.status === 200 && !a.body.at(-1)?.errors);
      assert.equal(written.length, 1, `round ${round}: ${JSON.stringify(answers.map((a) => [a.status, a.body.at?.(-1)]))}`);
    }
    const after = (await (await fetch(`${base}/repositories/${repo}/accessions?page=1`, { headers: { 'X-ArchivesSpace-Session': token } })).json()).total;
    assert.equal(after - before, 10 * 6, 'six records per round: the winning batch whole, nothing of the others');
  });

  it('concurrent inserts into one tree keep positions unique and gapless', async () => {
    const resource = await post(`/repositories/${repo}/resources`, sampleRecord('resource', repo));
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      post(`/repositories/${repo}/archival_objects`, { title: `c${i}`, level: 'file', resource: { ref: resource.body.uri }, position: i % 3 })));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
    const root = await (await fetch(`${base}${resource.body.uri}/tree/root`, { headers: { 'X-ArchivesSpace-Session': token } })).json();
    const positions = root.precomputed_waypoints[''][0].map((e: { position: number }) => e.position);
    assert.deepEqual(positions, Array.from({ length: 40 }, (_, i) => i));
  });
});
