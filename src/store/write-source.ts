import type { Transactor } from './transaction-memo';

/**
 * Who is writing and through what (a route, a job, a command): handed to Database.transaction
 * (TransactionOptions.source) and kept with the transaction, so that the versions the store keeps
 * (history.ts) name it whichever engine function wrote (an update, a link dropped by a delete, a
 * subtree carried along) without each one passing it on. Not kept in async context: Node 20 hooks
 * every promise of the process once an AsyncLocalStorage is used (freshness.ts ReadScope).
 */
export interface WriteSource {
  /** The username, where a user is behind the write. */
  by?: string;
  /** `POST /repositories/2/accessions/1`, `job 12 (import_ead)`, `cli import`. */
  via: string;
}

const sources = new WeakMap<object, WriteSource>();

/** What `trx` writes from now on is `source`'s (a group's transaction: each member's in its turn). */
export function setWriteSource(trx: object, source: WriteSource | undefined): void {
  if (source) sources.set(trx, source);
  else sources.delete(trx);
}

/** The source of what `db` writes: its outermost transaction's; undefined outside any or where none was given (a test's direct call). */
export function writeSourceOf(db: object): WriteSource | undefined {
  let trx = db as Transactor;
  while (trx.parentTransaction) trx = trx.parentTransaction;
  return sources.get(trx);
}
