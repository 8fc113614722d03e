import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importers } from '../../src/exchange/import';
import { IndexedRecords } from '../../src/search/indexer/records';
import { createRepository, startTestApp, STORE, type TestApp } from '../helpers';

/** Enough that reading and preparing them takes several slices (SLICE_MS) on a fast machine too: 2,000 once took 25 ms. */
const RECORDS = 6000;

/** How many times the event loop turned (a setImmediate of ours ran) while `work` ran. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; result: T }> {
  let turns = 0;
  let on = true;
  const spin = () => {
    if (!on) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const result = await work();
  on = false;
  return { turns, result };
}

/**
 * The in-process indexer lets the event loop turn inside a batch (src/event-loop.ts): on SQLite
 * a read answers before it returns, so reading, preparing and building the documents of 500
 * records went through without a turn, and a request beside an indexing burst waited for it.
 * Counted in turns, not milliseconds: a busy machine gives more turns, never fewer.
 */
describe(`the indexer lets the event loop turn (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let uris: string[];
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-indexer-turns-'));
    t = await startTestApp({ INDEXER: 'off' });
    const repo = await createRepository(t);
    const file = path.join(dir, 'rows.csv');
    fs.writeFileSync(file, ['accession_title,accession_number_1,accession_number_2,accession_accession_date,subject_term,subject_term_type,subject_source',
      ...Array.from({ length: RECORDS }, (_, i) => `Turning ${i},TURN,${i},2024-01-01,Turning topic ${i % 20},topical,local`)].join('\n'));
    await importers.accession_csv.run(t.services, repo, { username: 'admin' }, { path: file, name: 'rows.csv' }, { log: () => undefined, progress: () => undefined });
    uris = await t.services.db.knex('records').where({ type: 'accession', repo_id: repo }).orderBy('rid').pluck('uri');
    assert.equal(uris.length, RECORDS);
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('turns while it reads and prepares a batch, and reads every record of it with its links resolved', async () => {
    const records = new IndexedRecords(t.services);
    const { turns, result } = await turnsDuring(() => records.recordsFor(uris));
    assert.equal(result.found.size, RECORDS);
    const accessions = result.byType.get('accession')!;
    assert.equal(accessions.length, RECORDS);
    assert.ok(accessions.every((a) => a.subjects?.[0]?._resolved?.title), 'each accession has its subject resolved');
    assert.ok(turns >= 3, `${turns} turns while ${RECORDS} records were read and prepared`);
  });

  it('turns while it builds the documents, and builds one per record', async () => {
    const records = new IndexedRecords(t.services);
    const { byType } = await records.recordsFor(uris);
    const { turns, result } = await turnsDuring(() => records.documentsOf(byType));
    assert.equal(result.length, RECORDS);
    assert.ok(turns >= 3, `${turns} turns while ${RECORDS} documents were built`);
  });

  it('turns while it finds the records whose documents carry the changed ones', async () => {
    const subjects: string[] = await t.services.db.knex('records').where({ type: 'subject' }).andWhere('json', 'like', '%Turning topic%').pluck('uri');
    assert.equal(subjects.length, 20);
    const records = new IndexedRecords(t.services);
    const { turns, result } = await turnsDuring(() => records.referrersOf([...subjects, ...uris]));
    // Every accession resolves its subject: each is a referrer of one.
    assert.equal(new Set(result).size >= RECORDS, true, `${new Set(result).size} referrers`);
    assert.ok(turns >= 1, `${turns} turns while the links of ${RECORDS + 20} records were read`);
  });
});
