import type { Knex } from 'knex';
import type { Database } from './database';
import { Statements } from './statements';
import type { Transactor } from './transaction-memo';

/**
 * Records an import writes in chunks (several short transactions, so other clients' writes get
 * the writer between them) are pending: their row names the job (`records.pending_job`), and no
 * read outside that job's own transactions sees them (every read path that can reach a record by
 * type, id, URI, listing, lookup or tree keeps to `pending_job IS NULL`). Their change-log
 * entries are held back (DerivedRows.appendChanges leaves out a pending record's), so the indexer
 * does not see them either. The job publishes them in one short transaction (publishPending: the
 * change-log entries, then the mark cleared), or they are removed (discardPending) when it fails,
 * is canceled, or its process died (the runner finds them at its next start).
 *
 * Their unique keys are written as any record's: a pending record holds its identifier (a
 * concurrent create of the same identifier is refused as a duplicate, as it would be after the
 * import). Values the job adds to value lists are marked as its own too (value-lists.ts: insertValues,
 * discardPendingValues): publishing clears their mark.
 */

interface PendingWrite {
  job: number;
  /** URIs of the records this job wrote, over all its chunks: their change-log entries wait for publishPending. */
  uris: Set<string>;
}

const marks = new WeakMap<object, PendingWrite>();

/** `trx` writes records pending for `job` (and sees that job's pending records); `uris` is the job's set, shared by its chunks. */
export function markPending(trx: Knex.Transaction, job: number, uris: Set<string>): void {
  marks.set(trx, { job, uris });
}

/** `trx` writes visible records again (a transaction that goes on with other callers' work). */
export function unmarkPending(trx: Knex.Transaction): void {
  marks.delete(trx);
}

/** The pending write `db` belongs to: that of its outermost transaction, if marked. */
export function pendingWriteOf(db: unknown): PendingWrite | undefined {
  let trx = db as Transactor | undefined;
  if (!trx || !trx.isTransaction) return undefined;
  while (trx.parentTransaction) trx = trx.parentTransaction;
  return marks.get(trx);
}

/**
 * The condition that keeps a read to the records it may see, as SQL for `alias` (a table alias or
 * ''): committed, published records; in a pending job's transaction, its own pending ones too.
 */
export function visibleSql(db: unknown, alias = ''): { sql: string; bindings: number[] } {
  // Only SQLite stores hold pending records (import jobs write in chunks there alone:
  // jobs/imports/import-job.ts). On MySQL the condition changed nothing but the plans: a count of
  // a type's records read every row for it (2.3 s at 200,000 records, an index range without).
  if ((db as { client?: { config?: { client?: string } } } | undefined)?.client?.config?.client === 'mysql2') return { sql: '1 = 1', bindings: [] };
  // The unary plus keeps the planner off records_pending_job here: nearly every row is visible, and
  // SQLite (without statistics) took that index for `pending_job IS NULL` once an IN list had some
  // 25 URIs, reading every visible record to find 25 (0.18 s instead of 2 ms at 40,000 records).
  const column = alias ? `+${alias}.pending_job` : '+pending_job';
  const pending = pendingWriteOf(db);
  return pending ? { sql: `(${column} IS NULL OR ${column} = ?)`, bindings: [pending.job] } : { sql: `${column} IS NULL`, bindings: [] };
}

/** `query` kept to the records `db` may see (see visibleSql). */
export function onlyVisible<Q extends Knex.QueryBuilder>(db: unknown, query: Q, alias = ''): Q {
  const { sql, bindings } = visibleSql(db, alias);
  return query.whereRaw(sql, bindings) as Q;
}

/**
 * Makes a job's pending records visible, in one transaction: their change-log entries (in the
 * order they were written), then their mark cleared. Answers how many there were.
 */
export async function publishPending(db: Database, job: number, beforeCommit?: () => Promise<void>): Promise<number> {
  return db.transaction(async (trx) => {
    const st = await Statements.of(trx);
    await st.run('INSERT INTO `change_log` (`type`, `uri`, `op`, `at_ms`) SELECT `type`, `uri`, \'upsert\', ? FROM `records` WHERE `pending_job` = ? ORDER BY `rid`', [Date.now(), job]);
    const published = (await st.run('UPDATE `records` SET `pending_job` = NULL WHERE `pending_job` = ?', [job])).changes;
    // The values it added to value lists are the store's from now on (value-lists.ts: discardPendingValues).
    await st.run('UPDATE `enumeration_values` SET `pending_job` = NULL WHERE `pending_job` = ?', [job]);
    await beforeCommit?.();
    return published;
  });
}

/** Rows removed per transaction when a job's pending records go: each a short hold of the writer. */
const DISCARDED_AT_ONCE = 1000;

/**
 * Removes a job's pending records and everything written with them (keys, links, kept versions,
 * the child counts of their sibling groups), a thousand a transaction, newest first (children
 * before their parents). Answers how many went.
 */
export async function discardPending(db: Database, job: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const n = await db.transaction(async (trx) => {
      const rows: Array<{ rid: number; type: string; id: number; uri: string }> = await trx('records')
        .where('pending_job', job).orderBy('rid', 'desc').limit(DISCARDED_AT_ONCE).select('rid', 'type', 'id', 'uri');
      if (!rows.length) return 0;
      const rids = rows.map((r) => Number(r.rid));
      await trx('unique_keys').whereIn('rid', rids).delete();
      await trx('lookup_keys').whereIn('rid', rids).delete();
      await trx('record_refs').whereIn('from_rid', rids).delete();
      for (const r of rows) await trx('record_history').where({ type: r.type, id: r.id }).delete();
      await trx('records').whereIn('rid', rids).delete();
      // Sibling groups under the records that went are empty now (the triggers counted them down).
      await trx('tree_child_counts').whereIn('parent_key', [...rids.map((rid) => `node:${rid}`), ...rows.map((r) => `root:${r.uri}`)]).delete();
      return rows.length;
    });
    removed += n;
    if (n < DISCARDED_AT_ONCE) return removed;
  }
}

/**
 * The jobs that have pending records, or values on value lists marked as theirs, but are no longer
 * running (their process died, or it stopped before removing them).
 */
export async function abandonedPendingJobs(db: Database): Promise<number[]> {
  const rows: Array<{ job: number }> = [
    ...await db.knex('records').whereNotNull('pending_job').distinct('pending_job as job'),
    ...await db.knex('enumeration_values').whereNotNull('pending_job').distinct('pending_job as job'),
  ];
  if (!rows.length) return [];
  const jobs = [...new Set(rows.map((r) => Number(r.job)))];
  const running = new Set((await db.knex('jobs').whereIn('id', jobs).andWhere('status', 'running').pluck('id')).map(Number));
  return jobs.filter((j) => !running.has(j));
}

/** A records row as `db` inserts it: marked pending (and its URI kept for the job's change log) in a pending job's transaction. */
export function pendingRow<T extends { uri: string }>(db: unknown, row: T): T | (T & { pending_job: number }) {
  const pending = pendingWriteOf(db);
  if (!pending) return row;
  pending.uris.add(row.uri);
  return { ...row, pending_job: pending.job };
}

/** visibleSql as the arguments of whereRaw, for `db` (the builder or transaction the query runs on). */
export function visibleArgs(db: unknown, alias = ''): [string, number[]] {
  const { sql, bindings } = visibleSql(db, alias);
  return [sql, bindings];
}
