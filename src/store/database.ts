import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { TouchRules } from './transaction-memo';

export type Dialect = 'sqlite' | 'mysql';

export interface Database {
  knex: Knex;
  dialect: Dialect;
  /** Human-readable location, without credentials. */
  describe: string;
  /**
   * Runs `fn` in one transaction, again from the start when it lost a race (see isRetryable); on
   * SQLite possibly as a savepoint of a transaction shared with other callers, committed before any
   * of them gets its answer (transactions.ts).
   */
  transaction<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /** Called after every committed transaction (the indexer uses it to pick changes up at once). */
  onCommit: Array<() => void>;
  /**
   * Called after every write of this process: each commit, and any statement other than a SELECT
   * sent through Knex outside the store's transactions (what the process reads next must show it).
   */
  onWrite: Array<() => void>;
  /**
   * SQLite file stores: a connection for single reads outside any transaction (GET one record).
   * The pool's one connection is the writer's: a read there waits for a long write (an import) to
   * commit, and goes through the pool; WAL lets this one read the last commit meanwhile.
   */
  readConnection?: () => BetterSqlite3.Database;
  /**
   * What a change to a record of each type touches (x-archive.touches, touches.ts): filled once the
   * registry is loaded (declareTouches), read by every transaction.
   */
  touches: TouchRules;
  /** Lets the store go: the pool and the read connection. */
  close(): Promise<void>;
}

/** The transaction operations pass around: a store function given it runs its statements in it. */
export type Tx = Knex.Transaction;

/**
 * Where a store function runs: in a transaction, or on the store's pool (each statement on its
 * own). A bare Knex is what record hooks are handed outside a transaction.
 */
export type Handle = Database | Knex | Tx;

/** The query builder of a handle. */
export function sqlOf(h: Handle): Knex {
  return typeof h === 'function' ? h : h.knex;
}
