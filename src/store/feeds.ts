/** Reads of the change log that clients follow: the update feed, notifications, the delete feed. */
import { type Handle, sqlOf } from './database';

/** Changes after `seq`, in order, at most `limit`. */
export async function changesAfter(h: Handle, seq: number, limit: number): Promise<Array<{ seq: number; type: string; uri: string; op: string; at_ms: number }>> {
  const rows = await sqlOf(h)('change_log').where('seq', '>', seq).orderBy('seq').limit(limit).select('seq', 'type', 'uri', 'op', 'at_ms');
  return rows.map((r) => ({ seq: Number(r.seq), type: String(r.type), uri: String(r.uri), op: String(r.op), at_ms: Number(r.at_ms) }));
}

/**
 * The operation of each of `uris`' last change-log entry before `beforeSeq` (absent: none): what
 * tells a record's first write from a later one. Two look-ups along the log's URI index.
 */
export async function lastOpsBefore(h: Handle, uris: string[], beforeSeq: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < uris.length; i += 500) {
    const last = await sqlOf(h)('change_log').whereIn('uri', uris.slice(i, i + 500)).andWhere('seq', '<', beforeSeq).groupBy('uri').max({ seq: 'seq' });
    const seqs = last.map((r) => Number(r.seq));
    if (!seqs.length) continue;
    for (const r of await sqlOf(h)('change_log').whereIn('seq', seqs).select('uri', 'op')) out.set(String(r.uri), String(r.op));
  }
  return out;
}

/** Changes to records of `types` after `after` up to `head`, in order, at most `limit`. */
export async function changesOfTypes(h: Handle, after: number, head: number, types: string[], limit: number): Promise<Array<{ seq: number; type: string; at_ms: number }>> {
  return sqlOf(h)('change_log')
    .where('seq', '>', after).andWhere('seq', '<=', head).whereIn('type', types).orderBy('seq').limit(limit).select('seq', 'type', 'at_ms');
}

/** A page of the URIs deleted since `sinceMs` (in order of deletion), and how many there are in all. */
export async function deletionsSince(h: Handle, sinceMs: number, offset: number, limit: number): Promise<{ total: number; uris: string[] }> {
  const base = () => sqlOf(h)('change_log').where({ op: 'delete' }).andWhere('at_ms', '>=', sinceMs);
  const total = Number((await base().count({ n: '*' }).first())?.n ?? 0);
  const uris = await base().orderBy('seq').offset(offset).limit(limit).pluck('uri');
  return { total, uris };
}
