import type { Config } from '../config';
import type { Registry } from '../registry';
import type { Database } from '../store/connect';
import type { EnumerationCatalog } from '../validation/enumerations';
import type { TransactionOptions, Tx } from '../store/database';
import type { ReadScope } from '../store/freshness';
import type { WriteSource } from '../store/write-source';
import type { Queryable } from '../store/dialect';
import type { Obj } from '../json';
import type { RecordRow } from '../store/records';
import type { PlaceColumns } from '../store/positions';
import type { TypeInfo } from '../registry';
import type { Actor } from '../access/grants';
export type { Actor } from '../access/grants';

/**
 * What every operation needs, with no knowledge of HTTP. Higher layers add their own services
 * by augmenting this interface (src/search adds `search`), so this module names none of them.
 */
export interface Services {
  config: Config;
  db: Database;
  registry: Registry;
  enums: EnumerationCatalog;
  /** Domain rules of the few types that have them, by type name. */
  hooks: Record<string, TypeHooks>;
  /** Deflates and prunes revision history in the background (records/history.ts). */
  historyUpkeep?: { stop(): void };
  /**
   * A request's or job's own view of the services (http/app.ts, jobs/runner.ts) carries these two:
   * the request's freshness read, shared by every kept value it uses (store/freshness.ts), and who
   * writes through what, named by the versions its transactions keep (writeTransaction).
   */
  readScope?: ReadScope;
  writeSource?: WriteSource;
}

/** Runs `fn` in a transaction of the store (Database.transaction) whose kept versions name the caller's source. */
export function writeTransaction<T>(s: Pick<Services, 'db' | 'writeSource'>, fn: (trx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  // eslint-disable-next-line no-restricted-syntax -- the one place that opens them
  return s.db.transaction(fn, s.writeSource ? { ...options, source: s.writeSource } : options);
}


/** Seconds-precision UTC timestamps, as the reference writes them (2024-05-01T12:00:00Z). */
export function isoSeconds(ms: number): string {
  // Writes of the same second share its text (a bulk load writes hundreds a second, each three times).
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastSecondText = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastSecondText;
}

let lastSecond = Number.NaN;
let lastSecondText = '';

/** Which record type, in which repository, a call is about. */
export interface Where {
  type: TypeInfo;
  /** The path's repository for repository-scoped types. */
  repoId?: number;
  /** The caller may see suppressed records (auth-and-permissions.md section 10). */
  showSuppressed?: boolean;
}

export interface SavedRecord {
  where: Where;
  rid: number;
  id: number;
  record: Obj;
  created: boolean;
  actor: Actor;
  /** What beforeSave returned. */
  state?: unknown;
  /** The stored record before an update. */
  previous?: Obj;
}

/** Domain rules that only some types have (groups, repositories); everything else is generic. */
export interface TypeHooks {
  /**
   * May adjust the validated body or refuse it; runs inside the write's transaction. `previous`
   * is the stored record on update. What it returns reaches afterSave as `state`.
   */
  beforeSave?(trx: Tx, s: Services, where: Where, body: Obj, previous?: Obj): Promise<unknown>;
  /**
   * Where a record about to be created goes in its tree, given what beforeSave returned: its row
   * is inserted there (one statement fewer per node than placing it after).
   */
  placeOnCreate?(trx: Tx, s: Services, where: Where, state: unknown): Promise<PlaceColumns>;
  /** Keeps derived tables in step; runs inside the write's transaction. */
  afterSave?(trx: Tx, s: Services, saved: SavedRecord): Promise<void>;
  /**
   * Tables derived from the saved record alone (a group's members and grants): run after every
   * save, and by the imports that write records at the store layer with their own ids.
   */
  derive?(trx: Tx, s: Services, saved: SavedRecord): Promise<void>;
  beforeDelete?(trx: Tx, s: Services, row: RecordRow): Promise<void>;
  /** Adds fields computed from storage (tree position, ancestors...) to records being served. */
  decorate?(db: Queryable, s: Services, records: Obj[]): Promise<void>;
  /**
   * Fields a served record carries that are computed at read time, never stored (what decorate
   * adds, what beforeSave drops): a copy taken over the API leaves them out.
   */
  derivedFields?: string[];
  /** Before a record of this type is merged into another (what it owns moves to the target). */
  beforeMerge?(trx: Tx, s: Services, target: RecordRow, victim: RecordRow): Promise<void>;
  /** A tree root's whole tree as one object (GET <root>/:id/tree and resolve[]=tree). */
  wholeTree?(s: Services, repoId: number, id: number): Promise<Obj>;
}

/**
 * One set of hooks doing what both do, for a tree root with domain rules of its own (digital
 * objects): read-time fields add up; a write hook may come from one of them only.
 */
export function combineHooks(a: TypeHooks, b: TypeHooks): TypeHooks {
  for (const key of ['beforeSave', 'afterSave', 'derive', 'beforeDelete', 'beforeMerge', 'wholeTree'] as const) {
    if (a[key] && b[key]) throw new Error(`two hook sets of one type both define ${key}: merge them into one`);
  }
  const decorate: TypeHooks['decorate'] = a.decorate && b.decorate
    ? async (db, s, records) => { await a.decorate!(db, s, records); await b.decorate!(db, s, records); }
    : a.decorate ?? b.decorate;
  return { ...a, ...b, decorate, derivedFields: [...(a.derivedFields ?? []), ...(b.derivedFields ?? [])] };
}
