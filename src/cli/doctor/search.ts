/**
 * The search index's check: does the configured index answer, was it built from this store, did a
 * rebuild stop part-way, and how many change-log entries it has not applied yet. It opens the
 * index alone (no indexer runs), and never creates one: a missing embedded index is reported.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openIndex } from '../../search';
import { storeIdOf } from '../../store/indexing';
import { changeLogHead } from '../../store/records';
import { sqlOf } from '../../store/database';
import type { SearchIndex } from '../../search/port';
import type { CheckResult, DoctorCheck } from './types';

const REINDEX = 'run `archive-records reindex` (it resumes a stopped rebuild), or start the server, which rebuilds it';

export const searchCheck: DoctorCheck = {
  name: 'search index',
  async run(ctx) {
    const c = ctx.config.search;
    const name = this.name;
    const where = c.adapter === 'typesense' ? `Typesense at ${c.typesenseUrl}, collection ${c.typesenseCollection}` : path.resolve(c.path);
    if (c.adapter === 'embedded' && !fs.existsSync(c.path)) {
      return { name, status: 'warn', summary: `no index at ${where}`, fix: `check SEARCH_PATH; ${REINDEX}` };
    }
    let index: SearchIndex | undefined;
    try {
      let state;
      let documents;
      try {
        index = openIndex(c, ctx.registry).index;
        state = await index.state();
        documents = await index.count();
      } catch (err) {
        return {
          name, status: 'fail', summary: `does not answer: ${where}`, details: { error: err instanceof Error ? err.message : String(err) },
          fix: c.adapter === 'typesense' ? 'check that Typesense runs and TYPESENSE_URL / TYPESENSE_API_KEY' : 'check SEARCH_PATH and the file\'s permissions; or delete the file and `archive-records reindex`',
        };
      }
      const store = sqlOf(ctx.db!);
      const [storeId, head] = await Promise.all([storeIdOf(ctx.db!), changeLogHead(store)]);
      const pending = Math.max(0, head - state.checkpoint);
      const details = { index: where, documents, checkpoint: state.checkpoint, head, pending };
      const found = `${documents} documents in ${where}`;
      if (state.storeId !== storeId) {
        return { name, status: 'warn', summary: `${found}, built from another store (or never built)`, details, fix: REINDEX };
      }
      if (typeof state.rebuiltTo === 'number') {
        return { name, status: 'warn', summary: `${found}: a rebuild stopped part-way (after store row ${state.rebuiltTo})`, details, fix: REINDEX };
      }
      if (pending) {
        return {
          name, status: 'warn', summary: `${found}; ${pending} change-log entries not indexed yet`, details,
          fix: 'a running server (or `archive-records indexer`) applies them within seconds; if none runs, start one or run `archive-records reindex`',
        };
      }
      return { name, status: 'ok', summary: `${found}, up to date with the store`, details } satisfies CheckResult;
    } finally {
      await index?.close();
    }
  },
};
