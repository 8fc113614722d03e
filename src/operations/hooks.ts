import type { Knex } from 'knex';
import type { RecordRow } from '../store/records';
import type { Obj } from '../validation/walk';
import type { Actor, Services } from './context';
import type { Where } from './records';

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
  beforeSave?(trx: Knex.Transaction, s: Services, where: Where, body: Obj, previous?: Obj): Promise<unknown>;
  /** Keeps derived tables in step; runs inside the write's transaction. */
  afterSave?(trx: Knex.Transaction, s: Services, saved: SavedRecord): Promise<void>;
  beforeDelete?(trx: Knex.Transaction, s: Services, row: RecordRow): Promise<void>;
  /** Adds fields computed from storage (tree position, ancestors...) to records being served. */
  decorate?(db: Knex | Knex.Transaction, s: Services, records: Obj[]): Promise<void>;
  /**
   * Fields a served record carries that are computed at read time, never stored (what decorate
   * adds, what beforeSave drops): a copy taken over the API leaves them out.
   */
  derivedFields?: string[];
}
