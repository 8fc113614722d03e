/** Reads of the change log that clients follow: the update feed, notifications, the delete feed. */
import { type Handle, readsOf } from './database';

/** Changes after `seq`, in order, at most `limit`. */
export async function changesAfter(h: Handle, seq: number, limit: number): Promise<Array<{ seq: number; uri: string; op: string; at_ms: number }>> {
  return readsOf(h)('change_log').where('seq', '>', seq).orderBy('seq').limit(limit).select('seq', 'uri', 'op', 'at_ms');
}

/** Changes to records of `types` after `after` up to `head`, in order, at most `limit`. */
export async function changesOfTypes(h: Handle, after: number, head: number, types: string[], limit: number): Promise<Array<{ seq: number; type: string; at_ms: number }>> {
  return readsOf(h)('change_log')
    .where('seq', '>', after).andWhere('seq', '<=', head).whereIn('type', types).orderBy('seq').limit(limit).select('seq', 'type', 'at_ms');
}

/** A page of the URIs deleted since `sinceMs` (in order of deletion), and how many there are in all. */
export async function deletionsSince(h: Handle, sinceMs: number, offset: number, limit: number): Promise<{ total: number; uris: string[] }> {
  const base = () => readsOf(h)('change_log').where({ op: 'delete' }).andWhere('at_ms', '>=', sinceMs);
  const total = Number((await base().count({ n: '*' }).first())?.n ?? 0);
  const uris = await base().orderBy('seq').offset(offset).limit(limit).pluck('uri');
  return { total, uris };
}
