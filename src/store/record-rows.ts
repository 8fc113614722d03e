import type { Queryable } from './dialect';
import { onMysql } from './dialect';
import { onlyVisible } from './pending';

/**
 * The rows of the generic records table as the store hands them out, and what every query of it
 * shares: the locking clause, the flags made booleans, rows put back in a caller's order.
 */

/** A record that links to another: what a rewrite of it needs to find it, and what decides how. */
export interface Linking {
  rid: number;
  type: string;
  id: number;
  repo_id: number;
  uri: string;
}

/** A record's row without its JSON: what finding, placing and moving it needs. */
export interface RowKeys {
  rid: number;
  type: string;
  id: number;
  repo_id: number;
  uri: string;
  lock_version: number;
  root_uri: string | null;
  parent_key: string | null;
}

export const ROW_KEYS = ['rid', 'type', 'id', 'repo_id', 'uri', 'lock_version', 'root_uri', 'parent_key'];

export function rowKeys(row: Record<string, unknown> | undefined): RowKeys | undefined {
  if (!row) return undefined;
  return {
    rid: Number(row.rid), type: String(row.type), id: Number(row.id), repo_id: Number(row.repo_id), uri: String(row.uri),
    lock_version: Number(row.lock_version), root_uri: (row.root_uri as string | null) ?? null, parent_key: (row.parent_key as string | null) ?? null,
  };
}

/** One row of the generic records table. `json` is the complete record as served. */
export interface RecordRow {
  rid?: number;
  type: string;
  id: number;
  repo_id: number;
  uri: string;
  json: string;
  lock_version: number;
  create_time_ms: number;
  system_mtime_ms: number;
  user_mtime_ms: number;
  suppressed?: boolean;
  hidden?: boolean;
}

/** A listed record: its JSON as stored bytes. */
export interface ListedRow {
  rid: number;
  type: string;
  id: number;
  uri: string;
  json: string;
}

export interface KeyRow {
  rule: string;
  scope: string;
  hash: string;
}

export interface LookupRow {
  param: string;
  hash: string;
}

export interface RefRow {
  property: string;
  uri: string;
}

export interface ListQuery {
  type: string;
  repoId?: number;
  modifiedSinceMs?: number;
  sortColumn: string;
  sortDirection: 'asc' | 'desc';
  ids?: number[];
  limit?: number;
  offset?: number;
  includeHidden?: boolean;
  includeSuppressed?: boolean;
}

/** Sortable columns of the generic table, by the name clients use. */
export const SORT_COLUMNS: Record<string, string> = {
  id: 'id',
  create_time: 'create_time_ms',
  system_mtime: 'system_mtime_ms',
  user_mtime: 'user_mtime_ms',
  lock_version: 'lock_version',
};

/** Reads one record by type and id. */
export interface RecordGetter {
  get(type: string, id: number): Promise<RecordRow | undefined>;
  getByUris(uris: string[]): Promise<RecordRow[]>;
}


/**
 * The clause that makes a read in a MySQL transaction a locking one: it reads what is committed
 * (a plain read answers from the transaction's snapshot) and holds the rows (and, on an index
 * range, the gaps between them) until the transaction ends. Empty elsewhere: SQLite has one
 * writer at a time, and outside a transaction nothing would be held.
 */
export function lockedRead(db: Queryable): string {
  return onMysql(db) && (db as { isTransaction?: boolean }).isTransaction === true ? ' FOR UPDATE' : '';
}

/** Knex's bindings as better-sqlite3 takes them (Knex's own runner turns booleans into 0 and 1 too). */
export function sqliteBindings(bindings: readonly unknown[]): unknown[] {
  return bindings.map((b) => (typeof b === 'boolean' ? Number(b) : b));
}

/** RecordRow's columns (a record's tree place and keys are not read with it). */
export const ROW_COLUMNS = 'rid, type, id, repo_id, uri, json, lock_version, create_time_ms, system_mtime_ms, user_mtime_ms, suppressed, hidden';

/** A row better-sqlite3 read (its integers are numbers already): only the flags made booleans, in place. */
export function flagsOf(row: RecordRow | undefined): RecordRow | undefined {
  if (row) {
    row.suppressed = !!row.suppressed;
    row.hidden = !!row.hidden;
  }
  return row;
}

// Rows come back from either driver with numbers as strings or numbers and flags as 0/1.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function normalise(row: any): RecordRow | undefined {
  if (!row) return undefined;
  return {
    ...row,
    rid: Number(row.rid),
    id: Number(row.id),
    repo_id: Number(row.repo_id),
    lock_version: Number(row.lock_version),
    create_time_ms: Number(row.create_time_ms),
    system_mtime_ms: Number(row.system_mtime_ms),
    user_mtime_ms: Number(row.user_mtime_ms),
    suppressed: !!row.suppressed,
    hidden: !!row.hidden,
  };
}

/** Rows fetched by rid, in the order of `rids` (rows gone meanwhile are left out). */
export function inOrder<T extends { rid?: number }>(rids: number[], rows: T[]): T[] {
  const byRid = new Map(rows.map((r) => [Number(r.rid), r]));
  return rids.map((rid) => byRid.get(rid)).filter((r): r is T => r !== undefined);
}

/** The records at `uris`, whole, in one statement. */
export async function rowsOfUris(db: Queryable, uris: string[]): Promise<RecordRow[]> {
  if (!uris.length) return [];
  const rows = await onlyVisible(db, db('records').whereIn('uri', uris));
  return rows.map(normalise) as RecordRow[];
}
