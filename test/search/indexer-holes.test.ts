import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';

const H = 'X-ArchivesSpace-Session';

/**
 * Holes in the change log's numbering, as a Galera cluster makes them everywhere (each node
 * numbers in steps of the cluster's size) and as MySQL makes them when a transaction commits
 * after a later-numbered one: here made by hand, taking a record's entries out of the log and
 * putting them back later with their numbers.
 */
describe(`indexer and holes in the change log (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let token: string;
  const GAP_WAIT_MS = 1_500;

  before(async () => {
    t = await startTestApp({ INDEXER_GAP_WAIT_MS: String(GAP_WAIT_MS) });
    token = await t.adminToken();
  });
  after(async () => t.close());

  const subject = async (term: string): Promise<string> => {
    const res = await t.http.post('/subjects').set(H, token)
      .send({ source: 'local', vocabulary: '/vocabularies/1', terms: [{ term, term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    assert.equal(res.status, 200, res.text);
    return res.body.uri as string;
  };
  const indexed = async () => new Set(await t.services.search!.index.uris());
  const knex = () => t.services.db.knex;

  it('reads past a hole at once, applies what commits into it later, and moves the checkpoint past it once it settled', async () => {
    const indexer = t.services.search!.indexer;
    await indexer.drain();
    await indexer.stop();
    const late = await subject(`Late ${Date.now()}`);
    const early = await subject(`Early ${Date.now()}`);
    // `late`'s entries leave a hole below `early`'s: a transaction numbered first, not committed yet.
    const held = await knex()('change_log').where({ uri: late }).select();
    assert.ok(held.length >= 1);
    await knex()('change_log').where({ uri: late }).delete();
    indexer.start();
    const started = Date.now();
    await indexer.drain(10_000);
    assert.ok(Date.now() - started < GAP_WAIT_MS, `drain waited ${Date.now() - started} ms at the hole`);
    let docs = await indexed();
    assert.ok(docs.has(early), 'the entry past the hole is applied at once');
    assert.ok(!docs.has(late));
    const head = await indexer.head();
    const holeAt = Math.min(...held.map((r) => Number(r.seq)));
    assert.ok((await t.services.search!.index.state()).checkpoint < holeAt, 'the checkpoint waits below the hole');
    const health = await t.http.get('/health');
    assert.equal(health.body.queue.pending, 0, 'nothing waits to be indexed');

    // The held transaction commits, its entries keep their numbers (and the time it wrote them).
    await knex()('change_log').insert(held);
    await indexer.drain(10_000);
    docs = await indexed();
    assert.ok(docs.has(late), 'the entry that committed into the hole is applied');

    // Once the entries past the hole were read GAP_WAIT_MS ago, the checkpoint passes it.
    await new Promise((r) => setTimeout(r, GAP_WAIT_MS + 100));
    await indexer.runOnce();
    assert.equal((await t.services.search!.index.state()).checkpoint, head);
  });

  it('numbers in steps of three (a node of a three-node cluster): no wait at any hole, nothing left out', async () => {
    const indexer = t.services.search!.indexer;
    await indexer.drain();
    await indexer.stop();
    const uris: string[] = [];
    for (let i = 0; i < 6; i++) uris.push(await subject(`Stepped ${i} ${Date.now()}`));
    // Renumber their entries 3 apart above the head, as a node with auto_increment_increment=3 would.
    const rows = await knex()('change_log').whereIn('uri', uris).orderBy('seq').select();
    await knex()('change_log').whereIn('uri', uris).delete();
    const base = Math.max(...rows.map((r) => Number(r.seq))) + 10;
    await knex()('change_log').insert(rows.map((r, i) => ({ ...r, seq: base + 3 * i })));
    indexer.start();
    const started = Date.now();
    await indexer.drain(10_000);
    assert.ok(Date.now() - started < GAP_WAIT_MS, `drain waited ${Date.now() - started} ms`);
    const docs = await indexed();
    for (const uri of uris) assert.ok(docs.has(uri), `${uri} indexed`);
    // A new write after them is found at once too.
    const next = await subject(`After the steps ${Date.now()}`);
    await indexer.drain(10_000);
    assert.ok((await indexed()).has(next));
  });
});
