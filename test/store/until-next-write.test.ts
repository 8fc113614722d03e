import assert from 'node:assert/strict';
import knexFactory, { type Knex } from 'knex';
import { startTestApp, STORE, TestApp } from '../helpers';

/**
 * Values kept until the next write (linked records of resolve[], list totals, tree waypoints) and
 * a change-log entry committed after a later-numbered one: on MySQL a write transaction takes its
 * change-log number when it inserts the entry, not when it commits, so the head another process
 * reads can pass a change not yet visible, and stay there once it is. SQLite has one writer at a
 * time: its entries commit in their order, so the race cannot happen there.
 */
describe(`values kept until the next write (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let token: string;
  let repo: number;
  let other: Knex;

  before(async function () {
    if (STORE !== 'mariadb') this.skip();
    t = await startTestApp();
    token = await t.adminToken();
    repo = (await t.http.post('/repositories').set('X-ArchivesSpace-Session', token).send({ repo_code: 'KEPT', name: 'Kept' })).body.id;
    // Another process's writer: its own connection to the same database.
    other = knexFactory({ client: 'mysql2', connection: t.config.dbUrl.replace(/^mariadb:/, 'mysql:'), pool: { min: 1, max: 1 } });
  });

  after(async () => {
    await other?.destroy();
    await t?.close();
  });

  const post = (url: string, body: object) => t.http.post(url).set('X-ArchivesSpace-Session', token).send(body);
  const subjectTitle = async (accessionUri: string) => {
    const res = await t.http.get(accessionUri).query({ 'resolve[]': 'subjects' }).set('X-ArchivesSpace-Session', token);
    assert.equal(res.status, 200, res.text);
    return res.body.subjects[0]._resolved.title as string;
  };

  /** A transaction of another process's writer, left open until `commit`. */
  async function otherProcess() {
    const trx = await other.transaction();
    return { trx, commit: () => trx.commit() };
  }

  /** A transaction of this process's store (its commit told to what the process keeps), left open until `commit`. */
  async function thisProcess() {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let opened!: (trx: Knex.Transaction) => void;
    const trx = new Promise<Knex.Transaction>((r) => { opened = r; });
    const done = t.services.db.transaction(async (inner) => { opened(inner); await gate; });
    return { trx: await trx, commit: async () => { release(); await done; } };
  }

  /**
   * A subject linked from an accession, and a write transaction (`open`) that renames the subject
   * as a writer does (record, change-log entry) and is left open while a later-numbered change
   * commits and the accession is read with its subject resolved (the subject kept at that head).
   */
  async function renameLeftOpen(open: () => Promise<{ trx: Knex.Transaction; commit: () => Promise<unknown> }>, suffix: string) {
    const subject = (await post('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `Old ${suffix}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] })).body;
    const accession = (await post(`/repositories/${repo}/accessions`, { id_0: `K${suffix}`, title: 't', accession_date: '2020-01-01', subjects: [{ ref: subject.uri }] })).body;
    assert.ok(accession.uri, JSON.stringify(accession));
    assert.equal(await subjectTitle(accession.uri), `Old ${suffix}`);
    const { trx, commit } = await open();
    const row = await trx('records').where({ uri: subject.uri }).first('json');
    const renamed = { ...JSON.parse(row.json), title: `New ${suffix}` };
    await trx('records').where({ uri: subject.uri }).update({ json: JSON.stringify(renamed) });
    await trx('change_log').insert({ type: 'subject', uri: subject.uri, op: 'upsert', at_ms: Date.now() });
    await post('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `Other ${suffix}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    assert.equal(await subjectTitle(accession.uri), `Old ${suffix}`);
    return { commit, accession };
  }

  it("sees another process's change committed after a later-numbered one within a second", async () => {
    const { commit, accession } = await renameLeftOpen(otherProcess, 'a');
    await commit();
    const committed = Date.now();
    let title = await subjectTitle(accession.uri);
    while (title !== 'New a' && Date.now() - committed < 3_000) {
      await new Promise((r) => setTimeout(r, 50));
      title = await subjectTitle(accession.uri);
    }
    assert.equal(title, 'New a');
    assert.ok(Date.now() - committed < 1_500, `seen after ${Date.now() - committed} ms`);
  });

  it("sees this process's own change at once, whatever its number", async () => {
    const { commit, accession } = await renameLeftOpen(thisProcess, 'b');
    await commit();
    assert.equal(await subjectTitle(accession.uri), 'New b');
  });

  it("serves a record read before another process's committed update and delete as it is now, and one created after", async () => {
    const created = (await post(`/repositories/${repo}/accessions`, { id_0: 'KG', title: 'before', accession_date: '2020-01-01' })).body;
    const get = () => t.http.get(created.uri).set('X-ArchivesSpace-Session', token);
    assert.equal((await get()).body.title, 'before');
    await other.transaction(async (trx) => {
      const row = await trx('records').where({ uri: created.uri }).first('json');
      await trx('records').where({ uri: created.uri }).update({ json: JSON.stringify({ ...JSON.parse(row.json), title: 'after' }) });
      await trx('change_log').insert({ type: 'accession', uri: created.uri, op: 'upsert', at_ms: Date.now() });
    });
    assert.equal((await get()).body.title, 'after');
    await other.transaction(async (trx) => {
      await trx('records').where({ uri: created.uri }).delete();
      await trx('change_log').insert({ type: 'accession', uri: created.uri, op: 'delete', at_ms: Date.now() });
    });
    assert.equal((await get()).status, 404);
    const again = (await post(`/repositories/${repo}/accessions`, { id_0: 'KG2', title: 'new', accession_date: '2020-01-01' })).body;
    assert.equal((await t.http.get(again.uri).set('X-ArchivesSpace-Session', token)).body.title, 'new');
  });
});
