/**
 * A write whose database connection dies in the middle of its transaction (a Galera node killed,
 * a server restarted, a connection killed by an operator) is answered 503 with Retry-After, never
 * 500, and leaves nothing of itself behind. mysql2 marks such errors `fatal`; the ROLLBACK that
 * follows on the dead connection fails with "Can't add new command when connection is in closed
 * state", which carries no error code, and was answered 500 (seen once in sixteen runs of the
 * Galera SIGKILL test).
 */
import assert from 'node:assert/strict';
import { createRepository, startTestApp, STORE, type TestApp } from '../helpers';

(STORE === 'mariadb' ? describe : describe.skip)('a write that loses its connection (mariadb)', function () {
  this.timeout(60_000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ INDEXER: 'off', JOBS: 'off', WEBHOOKS: 'off' });
  });
  after(async () => t?.close());

  it('answers 503 with Retry-After when its connection is killed while it waits for a row lock, and writes nothing', async () => {
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const repo = await createRepository(t);
    const created = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'LC', id_1: '1', title: 'Before', accession_date: '2020-01-01' });
    assert.equal(created.status, 200, created.text);
    const uri = created.body.uri as string;
    const knex = t.services.db.knex;
    // Another transaction holds the record's row, so the update waits inside its own transaction.
    const holder = await knex.transaction();
    try {
      await holder.raw('SELECT rid FROM records WHERE uri = ? FOR UPDATE', [uri]);
      const [[me]] = await holder.raw('SELECT CONNECTION_ID() AS id');
      // Sent now (supertest sends on then), answered once the row is let go or the connection killed.
      const answer = t.http.post(uri).set(H).send({ id_0: 'LC', id_1: '1', title: 'After', accession_date: '2020-01-01', lock_version: 0 }).then((r) => r);
      let victim: number | undefined;
      for (let i = 0; i < 200 && victim === undefined; i++) {
        const [rows] = await knex.raw(
          // The update's statement, a query or (a Galera node's, statements one by one) a prepared
          // one, on the records table: any statement of the app's was the pick before, and a
          // background one's connection, back in the pool by the KILL, could run the KILL itself.
          "SELECT id FROM information_schema.PROCESSLIST WHERE db = DATABASE() AND id NOT IN (?, CONNECTION_ID()) AND command IN ('Query', 'Execute') AND info LIKE '%`records`%'",
          [me.id],
        );
        victim = rows[0]?.id;
        if (victim === undefined) await new Promise((r) => setTimeout(r, 25));
      }
      if (victim !== undefined) await knex.raw(`KILL CONNECTION ${Number(victim)}`);
      // Without a victim the held row is let go, and the answer says what the update did instead.
      else await holder.rollback();
      const res = await answer;
      assert.ok(victim !== undefined, `the update never waited on the held row: ${res.status} ${res.text}`);
      assert.equal(res.status, 503, res.text);
      assert.equal(res.headers['retry-after'], '5');
      assert.match(res.body.error, /does not answer/);
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    const after = await t.http.get(uri).set(H);
    assert.equal(after.body.title, 'Before');
    assert.equal(after.body.lock_version, 0);
    // The pool drops the dead connection: the next write goes through.
    const again = await t.http.post(uri).set(H).send({ id_0: 'LC', id_1: '1', title: 'After', accession_date: '2020-01-01', lock_version: 0 });
    assert.equal(again.status, 200, again.text);
  });
});
