import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { TouchRules } from './transaction-memo';
import type { WriteSource } from './write-source';

export type Dialect = 'sqlite' | 'mysql';

/**
 * `batched`: the transaction writes one record (a create or update of a request) and may send what
 * it does not need answered with its next statement or its COMMIT (MySQL: pipeline.ts). Left off
 * for transactions that write many records and say which one failed (imports, bulk routes,
 * transfers): a kept statement's error would surface at a later record's statement.
 */
export interface TransactionOptions {
  batched?: boolean;
  /** Who writes, through what: named by the versions the transaction keeps (history.ts). */
  source?: WriteSource;
}

export interface Database {
  /** The writer: transactions, and the statements that write outside them. */
  knex: Knex;
  /**
   * Reads outside any transaction, over committed rows. On a SQLite file store a pool of read
   * connections of their own (connect.ts): never queued behind the writer, which a long import
   * holds for its whole transaction. A write of this process is committed before its caller
   * hears of it, so a read that follows sees it. Elsewhere (MySQL's pool, SQLite :memory:) the
   * writer's knex itself.
   */
  reads: Knex;
  dialect: Dialect;
  /** Human-readable location, without credentials. */
  describe: string;
  /**
   * Runs `fn` in one transaction, again from the start when it lost a race (see isRetryable); on
   * SQLite possibly as a savepoint of a transaction shared with other callers, committed before any
   * of them gets its answer (transactions.ts).
   */
  transaction<T>(fn: (trx: Knex.Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Called after every committed transaction (the indexer uses it to pick changes up at once). */
  onCommit: Array<() => void>;
  /**
   * Called after every write of this process: each commit, and any statement other than a SELECT
   * sent through Knex outside the store's transactions (what the process reads next must show it).
   */
  onWrite: Array<() => void>;
  /**
   * SQLite file stores: a connection for the hottest single reads outside any transaction (GET one
   * record, the freshness read, a listing's page), answered synchronously, the reads of one turn of
   * the event loop in one snapshot (connect.ts); WAL lets it read the last commit while the writer
   * holds a transaction. The other reads go through `reads`.
   */
  readConnection?: () => BetterSqlite3.Database;
  /**
   * What a change to a record of each type touches (x-archive.touches, touches.ts): filled once the
   * registry is loaded (declareTouches), read by every transaction.
   */
  touches: TouchRules;
  /** Lets the store go: the pool and the read connections. */
  close(): Promise<void>;
}

/** The transaction operations pass around: a store function given it runs its statements in it. */
export type Tx = Knex.Transaction;

/**
 * Where a store function runs: in a transaction, or on the store's pool (each statement on its
 * own). A bare Knex is what record hooks are handed outside a transaction.
 */
export type Handle = Database | Knex | Tx;

/** The query builder of a handle (a Database: its writer, for statements that write). */
export function sqlOf(h: Handle): Knex {
  return typeof h === 'function' ? h : h.knex;
}

/** The query builder for reads on a handle: a Database's read connections, or the transaction or knex handed in. */
export function readsOf(h: Handle): Knex {
  return typeof h === 'function' ? h : h.reads;
}
