/**
 * updateRecords (the batched path find_and_replace_job saves its pages through): every record of
 * a batch larger than one statement's hundred is saved as an update is (new lock_version, JSON,
 * readable over HTTP), and one whose lock_version moved after it was read fails the batch, its
 * transaction writing nothing.
 */
import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { updateRecords } from '../../src/records/write';
import { RecordQueries } from '../../src/store/records';
import type { RecordRow } from '../../src/store/records';
import { prepareRecord } from '../../src/validation';
import type { Obj } from '../../src/json';

describe(`updateRecords: many records saved together (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  const ids: number[] = [];

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    for (let i = 0; i < 130; i++) {
      const res = await t.http.post(`/subjects`).set(H)
        .send({ terms: [{ term: `Batch term ${i}`, term_type: 'topical', vocabulary: '/vocabularies/1' }], vocabulary: '/vocabularies/1', source: 'local' });
      assert.equal(res.status, 200, res.text);
      ids.push(res.body.id);
    }
  });
  after(async () => t.close());

  /** Each subject's row read in `trx`, its first term renamed by `rename`. */
  const edits = async (trx: any, rename: (term: string) => string) => {
    const s = t.services;
    const q = new RecordQueries(trx);
    const out: Array<{ where: any; row: RecordRow; body: Obj }> = [];
    for (const id of ids) {
      const row = (await q.get('subject', id))!;
      const record = JSON.parse(row.json) as Obj;
      record.terms[0].term = rename(record.terms[0].term);
      out.push({ where: { type: s.registry.type('subject') }, row, body: prepareRecord(s.registry, s.enums, 'subject', { ...record, lock_version: row.lock_version }).record });
    }
    return out;
  };

  it('saves every record of a batch past one statement, each with its next lock_version', async () => {
    const s = t.services;
    await s.db.transaction(async (trx) => updateRecords(s, { username: 'admin' } as any, trx, await edits(trx, (term) => `${term} (renamed)`)));
    for (const id of [ids[0], ids[99], ids[100], ids[129]]) {
      const subject = (await t.http.get(`/subjects/${id}`).set(H)).body;
      assert.match(subject.terms[0].term, /^Batch term \d+ \(renamed\)$/);
      assert.equal(subject.lock_version, 1);
      assert.match(subject.title, /\(renamed\)/, 'derived fields computed again');
    }
  });

  it('fails the whole batch when a record was saved after it was read, writing nothing', async () => {
    const s = t.services;
    const before = (await t.http.get(`/subjects/${ids[120]}`).set(H)).body;
    // Read first, then someone else saves record 120, then the batch is written: it must not undo that save.
    const batch = await edits(s.db.knex, (term) => `${term} again`);
    const other = await t.http.post(`/subjects/${ids[120]}`).set(H).send({ ...before, source: 'lcsh' });
    assert.equal(other.status, 200, other.text);
    await assert.rejects(s.db.transaction(async (trx) => updateRecords(s, { username: 'admin' } as any, trx, batch)), (err: any) => err.status === 409);
    for (const id of [ids[0], ids[120], ids[129]]) {
      const subject = (await t.http.get(`/subjects/${id}`).set(H)).body;
      assert.doesNotMatch(subject.terms[0].term, /again/);
    }
    assert.equal((await t.http.get(`/subjects/${ids[120]}`).set(H)).body.source, 'lcsh');
  });
});
