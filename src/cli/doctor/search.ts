/**
 * The search index's check. HOOK: not written yet. It should open the configured index
 * (ctx.config.search: the embedded file at SEARCH_PATH, or Typesense) without starting an indexer,
 * and report whether it answers, which store it was built from, its checkpoint against the head of
 * change_log (the backlog), and, when it is behind or built from another store, the fix
 * (`archive-records reindex`).
 */
import type { DoctorCheck } from './types';

export const searchCheck: DoctorCheck = {
  name: 'search index',
  async run() {
    return { name: 'search index', status: 'skip', summary: 'not checked yet' };
  },
};
