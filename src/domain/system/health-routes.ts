/** GET /health: whether the store and the search index answer, and how far indexing lags. */
import type { Services } from '../../records/context';
import { Endpoint, json } from '../../records/endpoint';
import { ping } from '../../store/doctor';

async function check(s: Services) {
  const store = await ping(s.db).then(() => ({ ok: true }), (err: Error) => ({ ok: false, error: err.message }));
  const search = s.search;
  let index: Record<string, unknown> = { ok: false, error: 'search is not configured' };
  let queue: Record<string, unknown> = {};
  if (search) {
    try {
      const state = await search.index.state();
      index = { ok: true, kind: search.index.kind, checkpoint: state.checkpoint, documents: await search.index.count() };
      if (store.ok) {
        const head = await search.indexer.head();
        // The process that indexes reads past holes in the log's numbering (a cluster's nodes number
        // apart): what it has read is what waits. Elsewhere the index's checkpoint, which passes a hole
        // only once it has settled (search/indexer/cursor.ts).
        const through = search.indexer.readThrough() ?? state.checkpoint;
        queue = { head, pending: Math.max(0, head - through) };
      }
    } catch (err) {
      index = { ok: false, kind: search.index.kind, error: (err as Error).message };
    }
    if (search.indexer.lastError) index.indexer_error = search.indexer.lastError;
  }
  return { status: store.ok && index.ok ? 'ok' : 'degraded', store: { ...store, describe: s.db.describe }, index, queue };
}

export function healthEndpoints(): Endpoint[] {
  return [{
    method: 'get', path: '/health', permission: null,
    summary: 'Store and search index reachability and indexing lag (503 when either is down)',
    handle: async (call) => {
      const health = await check(call.s);
      return json(health, health.status === 'ok' ? 200 : 503);
    },
  }];
}
