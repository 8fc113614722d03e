/**
 * A GET is never queued behind a long write: on a SQLite file store it reads through its own
 * connection (the pool's one connection is the writer's), on MariaDB through another pooled
 * connection. It sees the last commit, not the open transaction's rows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

  it('answers 404 for a record that does not exist, through the same path', async () => {
    const token = await t.adminToken();
    const repo = await createRepository(t);
    const res = await t.http.get(`/repositories/${repo}/accessions/999999`).set({ 'X-ArchivesSpace-Session': token });
    assert.equal(res.status, 404);
    assert.ok(res.body.error, res.text);
  });
});
