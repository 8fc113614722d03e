/**
 * A GET is never queued behind a long write: on a SQLite file store it reads through its own
 * connection (the pool's one connection is the writer's), on MariaDB through another pooled
 * connection. It sees the last commit, not the open transaction's rows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { recordReads } from '../../src/store/records';
import { createRepository, startTestApp, STORE, type TestApp } from '../helpers';

describe(`reads beside a long write (${STORE})`, () => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-read-'));
    t = await startTestApp(STORE === 'sqlite' ? { DB_URL: `sqlite://${path.join(dir, 'archive.db')}` } : {});
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers GET one record while another transaction holds the writer, with the committed state', async () => {
    const token = await t.adminToken();
    const H = { 'X-ArchivesSpace-Session': token };
    const repo = await createRepository(t);
    const created = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'RC', id_1: '1', title: 'Committed title', accession_date: '2020-01-01' });
    assert.equal(created.status, 200, created.text);
    const uri = `/repositories/${repo}/accessions/${created.body.id}`;

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    // A long write: it changes the record's JSON and keeps its transaction open until released.
    const writing = t.services.db.knex.transaction(async (trx) => {
      await trx('records').where({ uri }).update({ json: JSON.stringify({ uri, title: 'Uncommitted title', jsonmodel_type: 'accession' }) });
      entered();
      await held;
      throw new Error('rolled back on purpose');
    }).catch((err: Error) => err.message);
    await inside;
    try {
      const started = Date.now();
      const res = await t.http.get(uri).set(H);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.title, 'Committed title', 'the open transaction is not read');
      assert.ok(Date.now() - started < 2000, `the GET waited ${Date.now() - started} ms for the writer`);
    } finally {
      release();
    }
    assert.equal(await writing, 'rolled back on purpose');
    const after = await t.http.get(uri).set(H);
    assert.equal(after.body.title, 'Committed title');
  });

  it("sees this process's writes at once, another process's from the next turn of the event loop", async () => {
    const token = await t.adminToken();
    const repo = await createRepository(t);
    const created = await t.http.post(`/repositories/${repo}/accessions`).set({ 'X-ArchivesSpace-Session': token })
      .send({ id_0: 'RW', id_1: '1', title: 'First', accession_date: '2020-01-01' });
    const uri = `/repositories/${repo}/accessions/${created.body.id}`;
    const db = t.services.db;
    const reads = recordReads({ db });
    const title = async () => JSON.parse((await reads.get('accession', created.body.id))!.json).title;
    const stored = (text: string) => JSON.stringify({ uri, title: text, jsonmodel_type: 'accession' });
    // No await of a timer between these steps: on SQLite they run in one turn, where reads share a snapshot.
    assert.equal(await title(), 'First');
    await db.transaction((trx) => trx('records').where({ uri }).update({ json: stored('Committed') }));
    assert.equal(await title(), 'Committed', 'a transaction of this process');
    await db.knex('records').where({ uri }).update({ json: stored('Autocommitted') });
    assert.equal(await title(), 'Autocommitted', 'a statement of this process outside a transaction');
    if (STORE !== 'sqlite') return;
    const other = new BetterSqlite3(path.join(dir, 'archive.db'));
    try {
      other.pragma('busy_timeout = 5000');
      other.prepare('UPDATE records SET json = ? WHERE uri = ?').run(stored('Elsewhere'), uri);
    } finally {
      other.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await title(), 'Elsewhere', 'another connection, from the next turn');
  });

  it('answers reads asked for together (MariaDB: one statement per type a turn) each with its own record', async () => {
    const token = await t.adminToken();
    const H = { 'X-ArchivesSpace-Session': token };
    const repo = await createRepository(t);
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const made = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'TB', id_1: String(i), title: `Together ${i}`, accession_date: '2020-01-01' });
      assert.equal(made.status, 200, made.text);
      ids.push(made.body.id);
    }
    const subject = await t.http.post('/subjects').set(H).send({ source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `Together ${repo}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const reads = recordReads(t.services);
    // More ids than one statement takes, one asked twice, one that does not exist, and another type.
    const asked: Array<[string, number]> = [...ids.map((id) => ['accession', id] as [string, number]), ['accession', ids[3]], ['accession', 999_999], ['subject', subject.body.id]];
    const rows = await Promise.all(asked.map(([type, id]) => reads.get(type, id)));
    ids.forEach((id, i) => {
      assert.equal(rows[i]!.id, id);
      assert.equal(JSON.parse(rows[i]!.json).title, `Together ${i}`);
      assert.equal(rows[i]!.suppressed, false);
    });
    assert.equal(JSON.parse(rows[20]!.json).title, 'Together 3');
    assert.equal(rows[21], undefined);
    assert.equal(rows[22]!.type, 'subject');
    assert.equal(rows[22]!.uri, subject.body.uri);
  });

  it('answers 404 for a record that does not exist, through the same path', async () => {
    const token = await t.adminToken();
    const repo = await createRepository(t);
    const res = await t.http.get(`/repositories/${repo}/accessions/999999`).set({ 'X-ArchivesSpace-Session': token });
    assert.equal(res.status, 404);
    assert.ok(res.body.error, res.text);
  });

  it('answers 503 with Retry-After, not 500, when a write waits longer than DB_WAIT_SECONDS for the store', async function () {
    // A second app on a store whose pool waits 1 s: a write queued behind a held transaction gives up.
    process.env.DB_WAIT_SECONDS = '1';
    let busy: TestApp;
    try {
      busy = await startTestApp();
    } finally {
      delete process.env.DB_WAIT_SECONDS;
    }
    try {
      const token = await busy.adminToken();
      const H = { 'X-ArchivesSpace-Session': token };
      const repo = await createRepository(busy);
      // Holds every connection the pool has (SQLite: its one; MariaDB: all of them) through `open`,
      // and posts a create meanwhile.
      const max = STORE === 'sqlite' ? 1 : Number(process.env.DB_POOL_MAX || 10);
      const postWhileHeld = async (open: (work: () => Promise<void>) => Promise<unknown>, id1: string) => {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let entered!: () => void;
        const inside = new Promise<void>((resolve) => (entered = resolve));
        let holding = 0;
        const holders = Array.from({ length: max }, () => open(async () => {
          if (++holding === max) entered();
          await held;
        }));
        await inside;
        try {
          return await busy.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'BZ', id_1: id1, title: 'Waits', accession_date: '2020-01-01' });
        } finally {
          release();
          await Promise.all(holders);
        }
      };
      const res = await postWhileHeld((work) => busy.services.db.knex.transaction(work), '1');
      assert.equal(res.status, 503, res.text);
      assert.equal(res.headers['retry-after'], '5');
      assert.match(res.body.error, /busy/);
      const list = await busy.http.get(`/repositories/${repo}/accessions?all_ids=true`).set(H);
      assert.deepEqual(list.body, [], 'nothing of the refused write was stored');

      // The same behind a write of the server's own (an import holds the store this way): on
      // SQLite the writes queue in the process for their group's turn, and give up as long.
      const behindOwn = await postWhileHeld((work) => busy.services.db.transaction(work), '2');
      assert.equal(behindOwn.status, 503, behindOwn.text);
      assert.equal(behindOwn.headers['retry-after'], '5');
      const after = await busy.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'BZ', id_1: '3', title: 'Served', accession_date: '2020-01-01' });
      assert.equal(after.status, 200, after.text);
    } finally {
      await busy.close();
    }
  });
});
