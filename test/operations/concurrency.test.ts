import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

const ROUNDS = Number(process.env.CONCURRENCY_ROUNDS ?? 500);
const CLIENTS = 8;

/**
 * Several writers at once, through a real listening server (so requests really overlap):
 * optimistic locking never loses an update and unique keys never admit two holders.
 */
describe(`concurrent writers (${STORE})`, function () {
  this.timeout(600_000);
  let t: TestApp;
  let server: http.Server;
  let base: string;
  let repo: number;
  let token: string;

  before(async () => {
    t = await startTestApp();
    token = await t.adminToken();
    repo = await createRepository(t, 'RACE');
    server = t.app.listen(0);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await t.close();
  });

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
