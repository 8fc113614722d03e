/**
 * The plans SQLite makes of the store's hot reads, from the statements they send: each searches an
 * index, none scans the records, and none takes records_pending_job's index for `pending_job IS
 * NULL` (true of nearly every row: SQLite, without statistics, took that index once an IN list had
 * some 25 URIs, and read every record for each read: 0.45 s at 200,000 records). MariaDB plans with
 * statistics and writes no pending condition; its plans are not checked here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { linksInto } from '../../src/store/indexing';
import { countRecords, listRecordIdsOn, listRecordTextOn } from '../../src/store/record-listing';
import { recordReads } from '../../src/store/records';
import { reportPage } from '../../src/store/report-reads';
import { createRepository, startTestApp, STORE, type TestApp } from '../helpers';

describe(`query plans of the hot reads (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let dir: string;
  let repo: number;
  const uris: string[] = [];

  before(async function () {
    if (STORE !== 'sqlite') this.skip();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-plans-'));
    t = await startTestApp({ DB_URL: `sqlite://${path.join(dir, 'archive.db')}` });
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t);
    for (let i = 0; i < 60; i++) {
      const res = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'QP', id_1: String(i), title: `Plan ${i}`, accession_date: '2020-01-01' });
      assert.equal(res.status, 200, res.text);
      uris.push(res.body.uri);
    }
  });
  after(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The statements `read` sends to SQLite (through Knex or straight to the read connection), each with the plan SQLite makes of it. */
  const plansOf = async (read: () => Promise<unknown>): Promise<Array<{ sql: string; plan: string }>> => {
    const conn = t.services.db.readConnection!();
    const sent: Array<{ sql: string; bindings: unknown[] }> = [];
    const onQuery = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
    const prepare = conn.prepare;
    conn.prepare = function (this: typeof conn, sql: string) {
      const statement = prepare.call(this, sql);
      const all = statement.all.bind(statement);
      const get = statement.get.bind(statement);
      statement.all = (...args: unknown[]) => (sent.push({ sql, bindings: args }), all(...args));
      statement.get = (...args: unknown[]) => (sent.push({ sql, bindings: args }), get(...args));
      return statement;
    } as typeof conn.prepare;
    for (const k of [t.services.db.knex, t.services.db.reads]) k.on('query', onQuery);
    try {
      await read();
    } finally {
      conn.prepare = prepare;
      for (const k of [t.services.db.knex, t.services.db.reads]) k.off('query', onQuery);
    }
    assert.ok(sent.length, 'the read sent statements');
    return sent.map(({ sql, bindings }) => ({
      sql,
      // Knex binds booleans as SQLite stores them.
      plan: (conn.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...bindings.map((b) => (typeof b === 'boolean' ? Number(b) : b))) as Array<{ detail: string }>)
        .map((r) => r.detail).join('; '),
    }));
  };
  /** `inIndexOrder`: a keyset page, whose rows must come in the index's order (sorting them reads every row past the cursor). */
  const searchesAnIndex = (plans: Array<{ sql: string; plan: string }>, inIndexOrder = false) => {
    for (const { sql, plan } of plans.filter((p) => /\brecords\b/.test(p.sql))) {
      assert.doesNotMatch(plan, /records_pending_job/, `${sql}\n${plan}`);
      assert.doesNotMatch(plan, /SCAN (records|r)\b/, `${sql}\n${plan}`);
      if (inIndexOrder) assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY/, `${sql}\n${plan}`);
    }
  };

  it('records by URI list, and by type and id, through the read connection', async () => {
    searchesAnIndex(await plansOf(() => recordReads(t.services).getByUris(uris.slice(0, 50))));
    searchesAnIndex(await plansOf(() => recordReads(t.services).get('accession', Number(uris[0].split('/').pop()))));
  });

  it('a listing page far down, its count and all_ids, from the listing index alone', async () => {
    const db = t.services.db;
    const conn = db.readConnection!();
    const q = { type: 'accession', repoId: repo, sortColumn: 'id', sortDirection: 'asc' as const, limit: 10, offset: 40 };
    const plans = [
      ...await plansOf(async () => listRecordTextOn(db.reads, conn, q)),
      ...await plansOf(() => countRecords(db.reads, q)),
      ...await plansOf(async () => listRecordIdsOn(db.reads, conn, { ...q, limit: undefined, offset: undefined })),
    ];
    searchesAnIndex(plans);
    // The rows passed over are not read (their JSON with them): every listed condition, the
    // visible records' `+pending_job IS NULL` too, is answered by the index (migration 025).
    for (const { sql, plan } of plans) assert.match(plan, /COVERING INDEX records_listing_visible/, `${sql}\n${plan}`);
  });

  it("a report's page, and the links into records the indexer asks for", async () => {
    searchesAnIndex(await plansOf(() => reportPage(t.services.db, { type: 'accession', repoId: repo, includeSuppressed: false, afterId: 10, limit: 20 })), true);
    searchesAnIndex(await plansOf(() => linksInto(t.services.db, uris.slice(0, 30), ['subjects', 'linked_agents'])));
  });
});
