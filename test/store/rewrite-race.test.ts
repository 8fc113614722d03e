import assert from 'node:assert/strict';
import knexFactory, { type Knex } from 'knex';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * The server rewrites records besides the one a caller saves: deleting a subject drops the links
 * accessions hold to it, a merge re-points them, a transfer moves them. On MySQL such a rewrite in
 * a transaction whose snapshot predates another client's save of the linking record must build on
 * that save, not lose its own change (the link kept, dangling) or the client's. SQLite has one
 * writer at a time: there the race cannot happen.
 */
describe(`a rewrite of a record another client saves meanwhile (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let token: string;
  let repo: number;
  let other: Knex;

  before(async function () {
    if (STORE !== 'mariadb') this.skip();
    t = await startTestApp();
    token = await t.adminToken();
    repo = await createRepository(t);
    other = knexFactory({ client: 'mysql2', connection: t.config.dbUrl.replace(/^mariadb:/, 'mysql:'), pool: { min: 1, max: 2 } });
  });

  after(async () => {
    await other?.destroy();
    await t?.close();
  });

  const as = (req: ReturnType<TestApp['http']['get']>) => req.set('X-ArchivesSpace-Session', token);

  /**
   * Until the server runs a locking read in this database (it waits there for `other`'s row locks).
   * The process list, not innodb_trx: MariaDB did not always list a transaction waiting in its first statement.
   */
  async function someoneWaits(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const [rows] = await other.raw(`SELECT COUNT(*) AS n FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()
        AND command IN ('Query', 'Execute') AND info LIKE '%for update'`);
      if (Number(rows[0].n) > 0) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the server ran no locking read');
  }

  /** Sends `request` while `trx` (another client's) is open, commits it once the server waits for it, and answers the response. */
  async function whileHeld(trx: Knex.Transaction, request: PromiseLike<{ status: number; text: string; body: any }>) {
    const answer = Promise.resolve(request);
    try {
      await someoneWaits();
    } catch (err) {
      await trx.rollback();
      await answer;
      throw err;
    }
    await trx.commit();
    return answer;
  }

  const newSubject = async (term: string) => (await as(t.http.post('/subjects')).send({
    source: 'local', vocabulary: '/vocabularies/1', terms: [{ term, term_type: 'topical', vocabulary: '/vocabularies/1' }],
  })).body.uri as string;

  it('deleting a subject while a client saves an accession linking it: both changes kept, no link left', async () => {
    const subject = await newSubject('Saved meanwhile');
    const created = await as(t.http.post(`/repositories/${repo}/accessions`)).send({
      id_0: 'RACE', title: 'Before', accession_date: '2020-01-01', subjects: [{ ref: subject }],
    });
    assert.equal(created.status, 200, created.text);
    const uri = created.body.uri as string;

    // Another client's save, as the server writes one, left open: it holds the accession's row.
    const trx = await other.transaction();
    const [row] = await trx('records').where({ uri }).select('json', 'lock_version');
    const saved = { ...JSON.parse(row.json), title: 'Saved meanwhile', lock_version: row.lock_version + 1 };
    await trx('records').where({ uri }).update({ json: JSON.stringify(saved), lock_version: row.lock_version + 1 });

    const deleted = await whileHeld(trx, as(t.http.delete(subject)));
    assert.equal(deleted.status, 200, deleted.text);

    const after = await as(t.http.get(uri));
    assert.equal(after.status, 200, after.text);
    assert.equal(after.body.title, 'Saved meanwhile', 'the client\'s save is kept');
    assert.deepEqual(after.body.subjects, [], 'the link to the deleted subject is dropped');
    assert.equal(after.body.lock_version, row.lock_version + 2, 'the rewrite counts as an update after the save');
    const links = await other('record_refs as x').join('records as r', 'r.rid', 'x.from_rid').where({ 'r.uri': uri, 'x.to_uri': subject }).count({ n: '*' });
    assert.equal(Number(links[0].n), 0, 'no stored link to the deleted subject');
  });

  it('deleting a subject while a client links an accession to it: the new link is found and dropped', async () => {
    const subject = await newSubject('Linked meanwhile');
    const created = await as(t.http.post(`/repositories/${repo}/accessions`)).send({ id_0: 'RACE2', title: 'Unlinked', accession_date: '2020-01-01' });
    assert.equal(created.status, 200, created.text);
    const uri = created.body.uri as string;

    // Another client's save adding the link (the record and its link row), not yet committed.
    const trx = await other.transaction();
    const [row] = await trx('records').where({ uri }).select('rid', 'json', 'lock_version');
    const saved = { ...JSON.parse(row.json), subjects: [{ ref: subject }], lock_version: row.lock_version + 1 };
    await trx('records').where({ uri }).update({ json: JSON.stringify(saved), lock_version: row.lock_version + 1 });
    await trx('record_refs').insert({ from_rid: row.rid, property: 'subjects', to_uri: subject });

    const deleted = await whileHeld(trx, as(t.http.delete(subject)));
    assert.equal(deleted.status, 200, deleted.text);

    const after = await as(t.http.get(uri));
    assert.deepEqual(after.body.subjects, [], 'the link saved meanwhile is dropped with the subject');
  });
});
