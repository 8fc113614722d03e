/**
 * SQLite's writers commit in groups (src/store/transactions.ts): callers queued in the same turn
 * run as savepoints of one transaction and get their answers after its one COMMIT. Each caller
 * still succeeds or fails alone; a group that fails as a whole runs again without writing
 * anything twice. On MySQL every caller has its own transaction (the same assertions hold, with
 * one commit per caller).
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';
import { createRecord, updateRecord } from '../../src/records/write';
import { prepareRecord } from '../../src/validation';

describe(`writers committed in groups (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  let commits = 0;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'GROUP');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    t.services.db.onCommit.push(() => commits++);
  });
  after(async () => t.close());

  const create = (trx: Knex.Transaction, title: string) => {
    const s = t.services;
    const prepared = prepareRecord(s.registry, s.enums, 'accession', { ...sampleRecord('accession', repo), title, id_0: title });
    return createRecord(s, { username: 'admin' } as any, { type: s.registry.type('accession'), repoId: repo }, prepared.record, prepared.warnings, { trx });
  };
  const exists = async (uri: string) => (await t.http.get(uri).set(H)).status === 200;
  const titled = async (title: string) => Number((await t.services.db.knex('records').where({ type: 'accession', repo_id: repo }).whereRaw('json like ?', [`%"title":"${title}"%`]).count('* as n'))[0].n);

  it('callers of the same turn share one commit, each with its own record and id', async () => {
    const before = commits;
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => t.services.db.transaction((trx) => create(trx, `G1-${i}`))));
    const ids = results.map((r) => r.id);
    // On MySQL the eight transactions run side by side: the same ids, in any order.
    const inOrder = STORE === 'sqlite' ? ids : [...ids].sort((x, y) => x - y);
    assert.deepEqual(inOrder, Array.from({ length: 8 }, (_, i) => inOrder[0] + i), 'consecutive ids, in the order of the calls on SQLite');
    for (const r of results) assert.ok(await exists(r.uri), r.uri);
    // One COMMIT for the eight, or a few where the machine is slow (a group stops taking callers after 10 ms).
    if (STORE === 'sqlite') assert.ok(commits - before < 8, `${commits - before} commits for eight callers`);
    else assert.equal(commits - before, 8);
  });

  it('each caller of a group writes as its own source: the versions it replaces name it', async () => {
    const made = await Promise.all(Array.from({ length: 6 }, (_, i) => t.services.db.transaction((trx) => create(trx, `G6-${i}`))));
    const before = commits;
    const where = { type: t.services.registry.type('accession'), repoId: repo };
    await Promise.all(made.map(async (r, i) => {
      const body = (await t.http.get(r.uri).set(H)).body;
      const s = { ...t.services, writeSource: { by: `writer-${i}`, via: `test ${i}` } };
      return updateRecord(s, { username: 'admin' } as any, where, r.id, { ...body, title: `G6 changed ${i}` }, {});
    }));
    if (STORE === 'sqlite') assert.ok(commits - before < 6, `${commits - before} commits for six callers`);
    for (const [i, r] of made.entries()) {
      const history = (await t.http.get(`${r.uri}/history`).set(H).expect(200)).body;
      assert.deepEqual([history.results[1].replaced.by, history.results[1].replaced.via], [`writer-${i}`, `test ${i}`], r.uri);
    }
  });

  it('a caller that fails is rolled back alone and gets its own error; the others commit', async () => {
    const changes = Number((await t.services.db.knex('change_log').count('* as n'))[0].n);
    const calls = [
      t.services.db.transaction((trx) => create(trx, 'G2-a')),
      t.services.db.transaction(async (trx) => {
        await create(trx, 'G2-b');
        throw new Error('refused after writing');
      }),
      t.services.db.transaction((trx) => create(trx, 'G2-c')),
    ];
    const [a, b, c] = await Promise.allSettled(calls);
    assert.equal(a.status, 'fulfilled');
    assert.equal(c.status, 'fulfilled');
    assert.equal(b.status, 'rejected');
    assert.match(String((b as PromiseRejectedResult).reason), /refused after writing/);
    assert.ok(await exists((a as PromiseFulfilledResult<{ uri: string }>).value.uri));
    assert.ok(await exists((c as PromiseFulfilledResult<{ uri: string }>).value.uri));
    assert.equal(await titled('G2-b'), 0, 'the failed caller wrote nothing');
    assert.equal(Number((await t.services.db.knex('change_log').count('* as n'))[0].n), changes + 2, 'and no change-log entry');
  });

  it('a caller alone that fails leaves nothing behind, and the next caller is served', async () => {
    await assert.rejects(t.services.db.transaction(async (trx) => {
      await create(trx, 'G3-a');
      throw new Error('alone and refused');
    }), /alone and refused/);
    assert.equal(await titled('G3-a'), 0);
    const next = await t.services.db.transaction((trx) => create(trx, 'G3-b'));
    assert.ok(await exists(next.uri));
  });

  it('a group that must run again (BUSY: another process wrote first) writes every caller once', async () => {
    let busyOnce = true;
    const runs = { a: 0, b: 0, c: 0 };
    const [a, b, c] = await Promise.all([
      t.services.db.transaction((trx) => (runs.a++, create(trx, 'G4-a'))),
      t.services.db.transaction(async (trx) => {
        runs.b++;
        const written = await create(trx, 'G4-b');
        if (busyOnce) {
          busyOnce = false;
          throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY_SNAPSHOT' });
        }
        return written;
      }),
      t.services.db.transaction((trx) => (runs.c++, create(trx, 'G4-c'))),
    ]);
    for (const r of [a, b, c]) assert.ok(await exists(r.uri), r.uri);
    for (const title of ['G4-a', 'G4-b', 'G4-c']) assert.equal(await titled(title), 1, `${title} written once`);
    assert.equal(runs.b, 2, 'the caller that met BUSY ran again');
    if (STORE === 'sqlite') assert.deepEqual(runs, { a: 2, b: 2, c: 1 }, 'the group so far ran again; the caller after it once');
  });

  it('a caller that lost a race on a unique index runs again on its own', async () => {
    let raceOnce = true;
    const [a, b] = await Promise.all([
      t.services.db.transaction((trx) => create(trx, 'G5-a')),
      t.services.db.transaction(async (trx) => {
        const written = await create(trx, 'G5-b');
        if (raceOnce) {
          raceOnce = false;
          throw Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
        }
        return written;
      }),
    ]);
    assert.ok(await exists(a.uri));
    assert.ok(await exists(b.uri));
    assert.equal(raceOnce, false);
  });
});
