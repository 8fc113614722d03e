/**
 * A rebuild of the embedded index in one thread (the index in process, not in its worker), so one
 * CPU profile shows both sides of it: reading and building documents, and writing them.
 *   node --cpu-prof -r tsx/cjs bench/apply-profile.ts <DB_URL>
 * The store is only read; the index goes to a scratch file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { closeServices, openServices } from '../src/services';
import { EmbeddedIndex } from '../src/search/embedded';
import { FieldCatalogue } from '../src/search/fields';
import { Indexer } from '../src/search/indexer';

const dbUrl = process.argv[2];
if (!dbUrl) throw new Error('usage: bench/apply-profile.ts <DB_URL>');

void (async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apply-profile-'));
  const s = await openServices(loadConfig({ ...process.env, DB_URL: dbUrl, SEARCH_PATH: path.join(dir, 'unused.db'), INDEXER: 'off', JOBS: 'off' }));
  try {
    const mapped = Object.values(s.registry.types).flatMap((t) => Object.keys(t.search?.fields ?? {}));
    const index = new EmbeddedIndex(path.join(dir, 'index.db'), new FieldCatalogue(mapped), {});
    const indexer = new Indexer(s, index, { batchSize: s.config.search.indexerBatchSize, pauseMs: 0 });
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
