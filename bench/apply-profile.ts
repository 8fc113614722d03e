/**
 * A rebuild of the embedded index in one thread (the index in process, not in its worker), so one
 * CPU profile shows both sides of it: reading and building documents, and writing them.
 *   node --cpu-prof -r tsx/cjs bench/apply-profile.ts <DB_URL>
 * The store is only read; the index goes to a scratch file.
 *
 * With a second argument, an existing index file (the bench's archive.search.db, kept with
 * BENCH_KEEP=1; copy it first, it is written): live writes instead, as the indexer's rounds make
 * them under load: APPLY_PROFILE_DOCS (4000) accessions' documents applied APPLY_PROFILE_BATCH (8)
 * per commit, as replacements (APPLY_PROFILE_NEW=1: as new documents), timed per document.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { closeServices, openServices } from '../src/services';
import { EmbeddedIndex } from '../src/search/embedded';
import { FieldCatalogue } from '../src/search/fields';
import { Indexer } from '../src/search/indexer';
import type { SearchDoc } from '../src/search/documents';
import type { Services } from '../src/records/context';

const dbUrl = process.argv[2];
if (!dbUrl) throw new Error('usage: bench/apply-profile.ts <DB_URL> [index file]');
const liveIndex = process.argv[3];

void (async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apply-profile-'));
  const s = await openServices(loadConfig({ ...process.env, DB_URL: dbUrl, SEARCH_PATH: path.join(dir, 'unused.db'), INDEXER: 'off', JOBS: 'off' }));
  try {
    const mapped = Object.values(s.registry.types).flatMap((t) => Object.keys(t.search?.fields ?? {}));
    const index = new EmbeddedIndex(liveIndex ?? path.join(dir, 'index.db'), new FieldCatalogue(mapped), {});
    const indexer = new Indexer(s, index, { batchSize: s.config.search.indexerBatchSize, pauseMs: 0 });
    if (liveIndex) {
      await liveWrites(s, index, indexer);
      await index.close();
      return;
    }
    const t0 = process.hrtime.bigint();
    const done = await indexer.rebuild();
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`${done} records in ${seconds.toFixed(1)} s: ${Math.round(done / seconds)} records/s in one thread`);
    await indexer.stop();
    await index.close();
    // With -r ./bench/statement-timer.cjs: its per-statement table.
    process.emit('SIGINT');
  } finally {
    await closeServices(s);
    fs.rmSync(dir, { recursive: true, force: true });
  }
})();

/** Live writes: documents of existing accessions applied a few per commit, timed per document. */
async function liveWrites(s: Services, index: EmbeddedIndex, indexer: Indexer): Promise<void> {
  const count = Number(process.env.APPLY_PROFILE_DOCS ?? 4000);
  const batch = Number(process.env.APPLY_PROFILE_BATCH ?? 8);
  const fresh = process.env.APPLY_PROFILE_NEW === '1';
  const state = await index.state();
  const uris: string[] = await s.db.knex('records').where({ type: 'accession' }).orderBy('rid').limit(count).pluck('uri');
  const batches: SearchDoc[][] = [];
  for (let i = 0; i < uris.length; i += batch) batches.push((await indexer.documentsFor(uris.slice(i, i + batch))).docs);
  const t0 = process.hrtime.bigint();
  for (const docs of batches) {
    const written = docs.map((d) => (fresh ? { ...d, uri: `${d.uri}0000`, id: `${d.id}0000` } : { ...d, title: `${d.title} (edited)` }));
    await index.apply(written, [], { checkpoint: state.checkpoint, storeId: state.storeId });
  }
  const us = Number(process.hrtime.bigint() - t0) / 1000 / uris.length;
  console.log(`${uris.length} documents, ${batch} per commit (${fresh ? 'new' : 'replaced'}): ${us.toFixed(0)} µs per document`);
}
