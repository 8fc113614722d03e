/**
 * What the search indexer asks of the store: the change log past its checkpoint, its lease (one
 * indexing process at a time), the store's identity, the records that link to changed ones, and
 * a rebuild's pages of records. Reads outside any transaction, through the pool.
 */
import type { Database } from './database';
import { committedRows } from './statements';
import { changeLogHead, LINKS_ASKED } from './records';
import { visibleArgs } from './pending';

const LEASE = 'indexer_lease';

/** One change-log entry: a record written (or removed) in the transaction that wrote `seq`. */
export interface ChangeLogEntry {
  seq: number;
  uri: string;
  at_ms: number;
}

/** A record as a rebuild's page reads it. */
export interface RebuildRow {
  rid: number;
  type: string;
  uri: string;
  json: string;
  hidden: boolean;
}

/** The store's identity: an index records the one it was built from. */
export async function storeIdOf(db: Database): Promise<string> {
  const row = await db.reads('search_state').where({ name: 'store_id' }).first('value');
  return String(row.value);
}

/** The newest change-log entry (0 when empty). */
export function latestChange(db: Database): Promise<number> {
  return changeLogHead(db.reads);
}

/**
 * The change log as the indexer reads it: on the same committed view as its record reads
 * (recordReads: SQLite's read connection, one snapshot per turn of the event loop), so that a
 * record is never read from a view older than the entry that named it. Read on a fresher
 * connection, an entry another process committed after the turn's snapshot began named a record
 * the snapshot did not hold yet, which the indexer then took for deleted.
 */
const CHANGES_AFTER_SQL = 'SELECT `seq`, `uri`, `at_ms` FROM `change_log` WHERE `seq` > ? ORDER BY `seq` LIMIT ?';
const CHANGES_BETWEEN_SQL = 'SELECT `seq`, `uri`, `at_ms` FROM `change_log` WHERE `seq` > ? AND `seq` <= ? ORDER BY `seq` LIMIT ?';
const COUNT_BETWEEN_SQL = 'SELECT COUNT(*) AS `n` FROM `change_log` WHERE `seq` > ? AND `seq` <= ?';

const entries = (rows: Array<{ seq: unknown; uri: unknown; at_ms: unknown }>): ChangeLogEntry[] =>
  rows.map((r) => ({ seq: Number(r.seq), uri: String(r.uri), at_ms: Number(r.at_ms) }));

/** Up to `limit` change-log entries after `seq`, in order. */
export async function changesAfter(db: Database, seq: number, limit: number): Promise<ChangeLogEntry[]> {
  return entries(await committedRows(db, CHANGES_AFTER_SQL, [seq, limit]));
}

/** Up to `limit` change-log entries after `seq` up to `through`, in order (a second look at a range with holes). */
export async function changesBetween(db: Database, seq: number, through: number, limit: number): Promise<ChangeLogEntry[]> {
  return entries(await committedRows(db, CHANGES_BETWEEN_SQL, [seq, through, limit]));
}

/** How many change-log entries lie after `seq` up to `through`: along the primary key, a range count. */
export async function countChangesBetween(db: Database, seq: number, through: number): Promise<number> {
  const [row] = await committedRows<{ n: unknown }>(db, COUNT_BETWEEN_SQL, [seq, through]);
  return Number(row?.n ?? 0);
}

/**
 * How far a follower of the change log may move its checkpoint over `rows` (in order after
 * `checkpoint`; `at_ms` is when the row was written, or when the follower first saw it): up to
 * the first hole in the sequence that may still be a write committing, that is one whose next
 * row is younger than `gapWaitMs`. A hole is normal on MySQL (a rolled-back insert, an id given
 * back) and everywhere on Galera (each node numbers in steps of auto_increment_increment from
 * its own offset), so a follower must not stop reading at one: it reads past holes and keeps
 * the checkpoint here (the indexer, see Indexer.round).
 */
export function committedThrough(rows: Array<{ seq: number; at_ms: number }>, checkpoint: number, nowMs: number, gapWaitMs: number): number {
  let through = checkpoint;
  for (const row of rows) {
    if (row.seq !== through + 1 && nowMs - row.at_ms < gapWaitMs) break;
    through = row.seq;
  }
  return through;
}

/** Takes the indexer's lease for `holder` until `untilMs`, or renews it: false when another holder's lease still runs at `nowMs`. */
export async function takeIndexerLease(db: Database, holder: string, nowMs: number, untilMs: number): Promise<boolean> {
  const n = await db.knex('search_state')
    .where({ name: LEASE })
    .andWhere((w) => w.where('value', holder).orWhere('expires_ms', '<', nowMs))
    .update({ value: holder, expires_ms: untilMs });
  return n === 1;
}

/** Gives the lease up if `holder` holds it (failures ignored: it runs out anyway). */
export async function releaseIndexerLease(db: Database, holder: string): Promise<void> {
  await db.knex('search_state').where({ name: LEASE, value: holder }).update({ expires_ms: 0 }).catch(() => undefined);
}

/**
 * The records linking to any of `uris` through one of `properties`: each linking record's uri and
 * type and the property that links, once each per statement. The properties are asked in the
 * statement: a resource's components all link to it (`resource`, `parent`), and reading those
 * links to drop them cost 0.57 s a question at 100,000 components (36 ms filtered).
 */
export async function linksInto(db: Database, uris: string[], properties: string[]): Promise<Array<{ uri: string; type: string; property: string }>> {
  const out: Array<{ uri: string; type: string; property: string }> = [];
  if (!properties.length) return out;
  for (let i = 0; i < uris.length; i += LINKS_ASKED) {
    const rows = await db.reads('record_refs as x')
      .join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(db.reads, 'r'))
      .whereIn('x.to_uri', uris.slice(i, i + LINKS_ASKED)).whereIn('x.property', properties)
      .distinct('r.uri', 'r.type', 'x.property');
    out.push(...(rows as Array<{ uri: string; type: string; property: string }>));
  }
  return out;
}

/**
 * The URIs the records at `uris` link to, once each per statement. Read in two plain steps, rows
 * by URI, then their links by row id: joined in one statement, filtering on the targets' type
 * made SQLite walk every record of that type and its links (16 ms a question at 20,000 links),
 * and without that filter MariaDB read the whole (to_uri, from_rid) index to answer DISTINCT
 * (seconds a question at 190,000 links).
 */
export async function linksOutOf(db: Database, uris: string[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < uris.length; i += LINKS_ASKED) {
    const rids = await db.reads('records').whereRaw(...visibleArgs(db.reads)).whereIn('uri', uris.slice(i, i + LINKS_ASKED)).pluck('rid');
    if (!rids.length) continue;
    out.push(...await db.reads('record_refs').whereIn('from_rid', rids).distinct().pluck('to_uri'));
  }
  return out;
}

/** Records of `types` that are not hidden, all of them or those up to row `throughRid`. */
export async function countSearchable(db: Database, types: string[], throughRid?: number): Promise<number> {
  const query = db.reads('records').whereRaw(...visibleArgs(db.reads)).whereIn('type', types).andWhere('hidden', false);
  if (throughRid !== undefined) query.andWhere('rid', '<=', throughRid);
  return Number((await query.count('* as n').first())?.n ?? 0);
}

/**
 * Up to `limit` records after row `rid`, in row order, of every type. Along the primary key
 * alone: filtering on type in SQL makes the engine walk the type index and sort every remaining
 * row for each page (quadratic in the store's size).
 */
export async function recordPageAfter(db: Database, rid: number, limit: number): Promise<RebuildRow[]> {
  const rows = await db.reads('records').whereRaw(...visibleArgs(db.reads)).where('rid', '>', rid).orderBy('rid').limit(limit).select('rid', 'type', 'uri', 'json', 'hidden');
  return rows.map((r) => ({ rid: Number(r.rid), type: r.type, uri: r.uri, json: r.json, hidden: !!r.hidden }));
}

/** Those of `uris` that are records of `types`, not hidden. */
export async function searchableAmong(db: Database, uris: string[], types: string[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < uris.length; i += 1000) {
    out.push(...await db.reads('records').whereRaw(...visibleArgs(db.reads)).whereIn('uri', uris.slice(i, i + 1000)).whereIn('type', types).andWhere('hidden', false).pluck('uri'));
  }
  return out;
}
