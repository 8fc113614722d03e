/**
 * Records found by what they hold rather than by their keys: a field's value in their JSON (an
 * importer matching agents, subjects and containers it meets again), and the shown records that
 * link to one (an agent's export lists them). Plus the record queries on the pool, for readers
 * outside any transaction.
 */
import type { Obj } from '../json';
import type { Database, Tx } from './database';
import { visibleArgs } from './pending';



/**
 * Up to `limit` records of `type` (in repository `repoId`, when given) whose JSON holds
 * `"key":value` as stored, read in `within`. The text is a pre-filter: callers confirm on the
 * parsed record (the same text may stand deeper in another field).
 */
export async function recordsWithJsonValue(
  within: Database | Tx, where: { type: string; repoId?: number }, key: string, value: unknown, limit: number,
): Promise<Array<{ uri: string; record: Obj }>> {
  const db = typeof within === 'function' ? within : within.reads;
  // '!' escapes LIKE's wildcards the same way in SQLite and MySQL (a backslash does not).
  const needle = `%${`${JSON.stringify(key)}:${JSON.stringify(value)}`.replace(/[%_!]/g, (c) => `!${c}`)}%`;
  const q = db('records').whereRaw(...visibleArgs(db)).where({ type: where.type });
  if (where.repoId !== undefined) q.andWhere({ repo_id: where.repoId });
  const rows: Array<{ uri: string; json: string }> = await q.andWhereRaw("json LIKE ? ESCAPE '!'", [needle]).limit(limit).select('uri', 'json');
  return rows.map((r) => ({ uri: r.uri, record: JSON.parse(r.json) as Obj }));
}

/**
 * The unsuppressed, shown records that link to `uri` (through record_refs), once each, in URI
 * order, with their repository.
 */
export async function shownRecordsLinkingTo(db: Database, uri: string): Promise<Array<{ uri: string; repoId: number; record: Obj }>> {
  const rows: Array<{ uri: string; repo_id: number; json: string }> = await db.reads('records as r').whereRaw(...visibleArgs(db.reads, 'r'))
    .join('record_refs as x', 'x.from_rid', 'r.rid')
    .where({ 'x.to_uri': uri, 'r.suppressed': false, 'r.hidden': false })
    .distinct('r.uri', 'r.repo_id', 'r.json')
    .orderBy('r.uri');
  return rows.map((r) => ({ uri: r.uri, repoId: Number(r.repo_id), record: JSON.parse(r.json) as Obj }));
}
