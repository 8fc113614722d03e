import type { Knex } from 'knex';

/**
 * What a transaction learned from its own reads and may reuse until it ends, so that a file of
 * 20,000 components written in one transaction does not ask the store the same things 20,000
 * times (on MySQL each question is a round trip): which linked records exist, which sibling
 * groups' parents it holds locked, the last position it gave in a sibling group, and on MySQL
 * ids taken from a type's sequence several at a time.
 *
 * Why nothing kept can be wrong: while the transaction runs, no other writer changes what it
 * kept (SQLite has one writer; on MySQL the group's parent row is locked until the end, and a
 * plain read there answers from the transaction's snapshot anyway, as a kept answer does). What
 * the transaction itself does is followed: a deletion of records forgets which exist (a
 * process-wide count, so a deletion anywhere does), and only place() changes kept positions.
 * A nested transaction (a savepoint, which may roll back) keeps nothing and ends the keeping of
 * the transaction it runs in.
 */
export interface TransactionMemo {
  /** uri → the row's type and repository, for records found to exist. */
  existing: Map<string, { uri: string; type: string; repo_id: number }>;
  /** Sibling groups whose parent row this transaction has locked (MySQL). */
  lockedGroups: Set<string>;
  /** Sibling group → the highest position in it, where place() appended last. */
  lastPosition: Map<string, number>;
  /** Type → ids taken from its sequence by this transaction and not handed out yet (MySQL). */
  ids: Map<string, { first: number; next: number; last: number }>;
  deletions: number;
  off: boolean;
}

const memos = new WeakMap<object, TransactionMemo>();
let deletions = 0;

/** Records were deleted: no transaction trusts what it kept about which records exist. */
export function noteDeletion(): void {
  deletions++;
}

function emptyMemo(off: boolean): TransactionMemo {
  return { existing: new Map(), lockedGroups: new Set(), lastPosition: new Map(), ids: new Map(), deletions, off };
}

type Transactor = { isTransaction?: boolean; parentTransaction?: Transactor };

/** The memo of `db` when it is a transaction that keeps one; undefined otherwise. */
export function transactionMemo(db: Knex | Knex.Transaction): TransactionMemo | undefined {
  const trx = db as unknown as Transactor;
  if (!trx.isTransaction) return undefined;
  if (trx.parentTransaction) {
    for (let outer: Transactor | undefined = trx.parentTransaction; outer; outer = outer.parentTransaction) {
      const memo = memos.get(outer);
      if (memo) memo.off = true;
      else memos.set(outer, emptyMemo(true));
    }
    return undefined;
  }
  let memo = memos.get(trx);
  if (!memo) memos.set(trx, (memo = emptyMemo(false)));
  if (memo.off) return undefined;
  if (memo.deletions !== deletions) {
    memo.existing.clear();
    memo.deletions = deletions;
  }
  return memo;
}
