import assert from 'node:assert/strict';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';
import { viewerAndNobody } from '../exchange/viewer';
import { accessCacheFor } from '../../src/access/cache';
import { bumpAccessVersion } from '../../src/access/access-version';
import { FreshnessReads, freshnessReadsOf } from '../../src/store/freshness';

describe(`what a process keeps of sessions, grants and repositories (${STORE})`, () => {
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'KEPT');
  });
  after(async () => t?.close());

  /** The SQL a request ran. */
  async function queriesOf(run: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const listen = (q: { sql: string }) => seen.push(q.sql);
    t.services.db.knex.on('query', listen);
    try {
      await run();
    } finally {
      t.services.db.knex.off('query', listen);
    }
    return seen;
  }

  it('reads one version row per request instead of the session, the grants and the repository again', async () => {
    const acc = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'K1', title: 'Kept' });
    await t.http.get(acc.body.uri).set(H).expect(200);
    // The indexer's round for the create reads the version row too: done before counting (a CI
    // run once counted its read with the GET's).
    await t.services.search?.indexer.drain();
    // The version row is read by a prepared statement (not through Knex's query builder on MySQL): counted where it is read.
    const db = t.services.db;
    const reads = freshnessReadsOf(db);
    const original = reads.read;
    let versionReads = 0;
    reads.read = function (this: FreshnessReads) { versionReads++; return original.call(this); };
    let sql: string[];
    try {
      sql = await queriesOf(() => t.http.get(acc.body.uri).set(H).expect(200));
    } finally {
      reads.read = original;
    }
    assert.equal(versionReads, 1, 'the version row is read for the request');
    assert.equal(sql.filter((q) => /from [`"]?(sessions|group_members)[`"]?/i.test(q)).length, 0, sql.join('\n'));
    assert.equal(sql.filter((q) => /[`"]type[`"] = \?/.test(q) && /[`"]id[`"] = \?/.test(q) && /rid/.test(q) && !/json/.test(q)).length, 0, `no repository look-up: ${sql.join('\n')}`);
  });

  it('reads the version once for a GET that resolves links and for a listing page, whose kept values are checked against that read', async () => {
    const subject = await t.http.post('/subjects').set(H).send({ source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Kept once', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const acc = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'K2', title: 'Linked', subjects: [{ ref: subject.body.uri }] });
    // The indexer's round for these writes reads too: counted before, not with the GETs.
    await t.services.search?.indexer.drain();
    const reads = freshnessReadsOf(t.services.db);
    const original = reads.read;
    let versionReads = 0;
    reads.read = function (this: FreshnessReads) { versionReads++; return original.call(this); };
    try {
      for (const url of [`${acc.body.uri}?resolve[]=subjects`, `/repositories/${repo}/accessions?page=1`]) {
        // Twice: the first loads what is kept, the second finds it.
        for (let i = 0; i < 2; i++) {
          versionReads = 0;
          const res = await t.http.get(url).set(H).expect(200);
          assert.equal(versionReads, 1, `${url}: the version row is read once`);
          if (url.includes('resolve')) assert.equal(res.body.subjects[0]._resolved.title, 'Kept once');
          else assert.ok(res.body.total >= 1);
        }
      }
    } finally {
      reads.read = original;
    }
  });

  it('reads the version once for the requests of one turn of the event loop, and again after a commit of this process', async () => {
    const db = t.services.db;
    const freshness = freshnessReadsOf(db);
    const original = freshness.read;
    let reads = 0;
    freshness.read = function (this: FreshnessReads) { reads++; return original.call(this); };
    try {
      const nextTurn = () => new Promise((r) => setImmediate(r));
      await nextTurn();
      await Promise.all([accessCacheFor(db).sync(db), accessCacheFor(db).sync(db), accessCacheFor(db).sync(db)]);
      assert.equal(reads, 1, 'three requests of one turn share one read');
      await nextTurn();
      await accessCacheFor(db).sync(db);
      assert.equal(reads, 2, 'the next turn reads again');
      const before = reads;
      await db.transaction((trx) => bumpAccessVersion(trx));
      await accessCacheFor(db).sync(db);
      assert.equal(reads, before + 1, 'after a commit of this process the version is read again');
    } finally {
      freshness.read = original;
    }
  });

  it('keeps the preferred defaults of a write too, and follows a preference saved at once', async () => {
    await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'P0', title: 'Before' }).expect(200);
    const sql = await queriesOf(() => t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'P1', title: 'Kept defaults' }).expect(200));
    assert.equal(sql.filter((q) => /from [`"]?credentials[`"]?/i.test(q)).length, 0, sql.join('\n'));
    const unpublished = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'P2', title: 'Default publish' });
    assert.equal((await t.http.get(unpublished.body.uri).set(H)).body.publish, false);
    await t.http.post(`/repositories/${repo}/preferences`).set(H).send({ defaults: { publish: true } }).expect(200);
    const published = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'P3', title: 'Preferred publish' });
    assert.equal((await t.http.get(published.body.uri).set(H)).body.publish, true, 'the new preference applies to the next write');
  });

  it('sees at once a membership removed, a session ended and a repository deleted', async () => {
    const other = await createRepository(t, 'GONE');
    const { viewer } = await viewerAndNobody(t, other, 'kept');
    const V = { 'X-ArchivesSpace-Session': viewer };
    await t.http.get(`/repositories/${other}/accessions`).query({ page: 1 }).set(V).expect(200);
    const group = (await t.http.get(`/repositories/${other}/groups`).query({ group_code: 'repository-viewers' }).set(H)).body[0];
    const current = (await t.http.get(group.uri).set(H)).body;
    await t.http.post(group.uri).set(H).send({ ...current, member_usernames: [] }).expect(200);
    assert.equal((await t.http.get(`/repositories/${other}/accessions`).query({ page: 1 }).set(V)).status, 403);

    await t.http.get(`/repositories/${other}`).set(H).expect(200);
    await t.http.delete(`/repositories/${other}`).set(H).expect(200);
    const gone = await t.http.get(`/repositories/${other}/accessions`).query({ page: 1 }).set(H);
    assert.deepEqual([gone.status, gone.body], [400, { error: { repo_id: ['Failed validation -- The Repository must exist'] } }]);

    await t.http.get('/users/current-user').set(V).expect(200);
    await t.http.post('/logout').set(V).expect(200);
    assert.equal((await t.http.get('/users/current-user').set(V)).status, 412);
  });
});
