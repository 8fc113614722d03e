import type BetterSqlite3 from 'better-sqlite3';
import type { Queryable } from './dialect';
import { onMysql } from './dialect';
import { onlyVisible } from './pending';
import { inOrder, type ListedRow, type ListQuery, sqliteBindings } from './record-rows';

/** The listings of records of a type (a page, an id_set, all_ids, everything): their rows, counts and ids. */

function listBase(db: Queryable, q: ListQuery) {
  const query = onlyVisible(db, db('records').where({ type: q.type }));
  if (q.repoId !== undefined) query.andWhere({ repo_id: q.repoId });
  if (!q.includeHidden) query.andWhere({ hidden: false });
  if (!q.includeSuppressed) query.andWhere({ suppressed: false });
  if (q.modifiedSinceMs) query.andWhere('system_mtime_ms', '>=', q.modifiedSinceMs);
  if (q.ids) query.whereIn('id', q.ids);
  return query;
}

export async function countRecords(db: Queryable, q: ListQuery): Promise<number> {
  const row = await listBase(db, q).count({ n: '*' }).first();
  return Number((row as { n?: unknown } | undefined)?.n ?? 0);
}

/**
 * A listing's rows, each record's JSON as stored text. Strings live in the JavaScript heap and
 * go with the next young collection; a Buffer per record (the stored bytes, once read to save
 * decoding them) is memory outside the heap, which V8 frees only once tens of megabytes have
 * piled up: pages of 250 under load raised a server's peak RSS by about 50 MB.
 */
export async function listRecords(db: Queryable, q: ListQuery): Promise<ListedRow[]> {
  const columns = ['rid', 'type', 'id', 'uri', 'json'];
  if (q.limit === undefined) return (await listBase(db, q).select(columns).orderBy(q.sortColumn, q.sortDirection)) as ListedRow[];
  // A page far down a listing: the rows before it are skipped in the index (rid alone), and
  // only the page's rows are read whole; one query would read every skipped row too.
  const rids = (await ridsInOrder(db, q)).map((r: { rid: number }) => Number(r.rid));
  return inOrder(rids, (await db('records').whereIn('rid', rids).select(columns)) as ListedRow[]);
}

/**
 * The listing's rids in its order, only the page's where it has a limit. Ids are unique per
 * type; other sort columns tie, and a tie needs an order for pages to hold still.
 */
function ridsInOrder(db: Queryable, q: ListQuery) {
  const rids = listBase(db, q).select('rid').orderBy(q.sortColumn, q.sortDirection);
  if (q.sortColumn !== 'id') rids.orderBy('rid');
  if (q.limit !== undefined) rids.limit(q.limit).offset(q.offset ?? 0);
  return rids;
}

function idsInOrder(db: Queryable, q: ListQuery) {
  return listBase(db, q).select('id').orderBy(q.sortColumn, q.sortDirection);
}

/**
 * The listing's ids. On MySQL/MariaDB the server joins them into one string (with their count,
 * so a join cut short by group_concat_max_len or max_allowed_packet is noticed and read row by
 * row instead): 100,000 row objects, kept until the last one arrived, outlived the young
 * generation (8 concurrent all_ids on MariaDB raised a server's peak RSS by 89 MB).
 */
export async function listRecordIds(db: Queryable, q: ListQuery): Promise<number[]> {
  if (!onMysql(db)) return (await idsInOrder(db, q)).map((r: { id: number }) => Number(r.id));
  // sortColumn and sortDirection come from fixed lists (SORT_COLUMNS, asc / desc), never from the caller's text.
  const joined = db.raw(`GROUP_CONCAT(id ORDER BY ${q.sortColumn} ${q.sortDirection} SEPARATOR ',') AS ids`);
  const row = (await listBase(db, q).select(db.raw('COUNT(*) AS n'), joined).first()) as { n: number; ids: string | Buffer | null };
  const ids = row.ids === null ? [] : row.ids.toString().split(',').map(Number);
  if (ids.length === Number(row.n)) return ids;
  const streamed: number[] = [];
  for await (const r of idsInOrder(db, q).stream()) streamed.push(Number((r as { id: number }).id));
  return streamed;
}

/** listRecords() as one JSON array of the records' stored text, joined by SQLite on a read connection: one string per page. */
export function listRecordTextOn(db: Queryable, conn: BetterSqlite3.Database, q: ListQuery): string {
  const tie = q.sortColumn === 'id' ? '' : ', rid';
  const { sql, bindings } = ridsInOrder(db, q).toSQL().toNative();
  // sortColumn and sortDirection come from fixed lists (SORT_COLUMNS, asc / desc), never from the caller's text.
  const joined = conn
    .prepare(`SELECT group_concat(json, ',' ORDER BY ${q.sortColumn} ${q.sortDirection}${tie}) FROM records WHERE rid IN (${sql})`)
    .pluck()
    .get(...sqliteBindings(bindings)) as string | null;
  return `[${joined ?? ''}]`;
}

/** listRecordIds() on a SQLite read connection: the ids alone, no row objects. */
export function listRecordIdsOn(db: Queryable, conn: BetterSqlite3.Database, q: ListQuery): number[] {
  const { sql, bindings } = idsInOrder(db, q).toSQL().toNative();
  return conn.prepare(sql).pluck().all(...sqliteBindings(bindings)) as number[];
}
