import type { Knex } from 'knex';
import { UriList, UriSet } from './uri-list';

/**
 * What a transaction learned from its own reads and may reuse until it ends, so that a file of
 * 20,000 components written in one transaction does not ask the store the same things 20,000
 * times (on MySQL each question is a round trip): which linked records exist, which sibling
 * groups' parents it holds locked, and the last position it gave in a sibling group. It also
 * holds back its change-log entries, written together just before it commits.
 *
 * Why nothing kept can be wrong: while the transaction runs, no other writer changes what it
 * kept (SQLite has one writer; on MySQL the group's parent row is locked until the end, and a
 * plain read there answers from the transaction's snapshot anyway, as a kept answer does). What
 * the transaction itself does is followed: a deletion of records forgets which exist (a
 * process-wide count, so a deletion anywhere does), and only place() changes kept positions.
 * A nested transaction (a savepoint, which may roll back) keeps nothing and ends the keeping of
 * the transaction it runs in (for that caller: a group member starts a memo of its own, startOwnMemo).
 */
export interface TransactionMemo {
  /** uri → the row's type and repository, for records found to exist. */
  existing: Map<string, { uri: string; type: string; repo_id: number }>;
  /** Sibling groups whose parent row this transaction has locked (MySQL). */
  lockedGroups: Set<string>;
  /** Sibling group → the highest position in it, where place() appended last. */
  lastPosition: Map<string, number>;
  /** Sibling groups this transaction placed a node in (positions.ts placeIn). */
  placed: Set<string>;
  /**
   * uri → row id, type and root of the records this transaction inserted (a file's components
   * name a parent written a moment before): forgotten when a record is deleted or moved.
   */
  inserted: Map<string, { rid: number; type: string; root_uri: string | null; repo_id?: number }>;
  /**
   * uri → a stand-in row id (negative), type and root of records prepared to be inserted together
   * later (RecordQueries.notePending, insertAll): a row of a sheet is placed under a parent prepared
   * a moment before it, whose row id is known only once their hundred is inserted. Not forgotten
   * on a deletion (they are not stored yet); emptied as they are inserted.
   */
  pending: Map<string, { rid: number; type: string; root_uri: string | null }>;
  /** The last stand-in row id handed out (pending). */
  standIns: number;
  /**
   * Table → rows of records inserted by this transaction (lookup keys, links) written together
   * before it commits or before anything reads or deletes such rows (RecordQueries): present only
   * where the opener asked (holdDerivedRows), for transactions that write many records.
   */
  heldRows?: Map<string, object[]>;
  /**
   * Unique keys of records this transaction inserted, held back like heldRows, each with how its
   * writer reports a clash (found only when they are written): present only where the opener
   * asked for them too (holdDerivedRows with uniqueKeys).
   */
  heldKeys?: HeldKey[];
  /** The record types whose unique keys are held (heldKeys); every type where the opener named none. */
  heldKeyTypes?: ReadonlySet<string>;
  /**
   * Change-log entries of the transaction, written as one statement per 100 when it is about to
   * commit: present only while Database.transaction holds them back (holdChanges).
   */
  pendingChanges?: Array<{ type: string; uri: string; op: string; at_ms: number }>;
  /**
   * Type → the ids taken in reserve and the next one to hand out (RecordQueries.nextId): present
   * only where the opener gives back the unused ones before commit (Database.transaction).
   */
  idBlocks?: Map<string, { next: number; last: number }>;
  /** What the transaction's changes touch (touches.ts): present from holdChanges or collectTouches on, until applyTouches. */
  touches?: TouchCollector;
  deletions: number;
  off: boolean;
}

/** One step of a touch path (x-archive.touches): the record's tree root, or the records of a type that link to it. */
export type TouchStep = { root: true } | { linkedFrom: string };

/** Type → the paths from a changed record of it to the records its change touches. */
export type TouchRules = Map<string, TouchStep[][]>;

/**
 * The touches a transaction collects (touches.ts): the records it upserted whose type touches
 * others (their targets are found when it ends, from the records and links as they are then),
 * the targets found before a deletion (the row and its links are about to go), and every URI it
 * wrote or deleted (a record the transaction wrote has a new system_mtime already). The records
 * changed and written are kept as ids (UriList, UriSet), not a string each: an import writes tens
 * of thousands in one transaction.
 */
export interface TouchCollector {
  rules: TouchRules;
  /** Type → the records of it upserted (a record upserted twice is there twice). */
  changed: Map<string, UriList>;
  targets: Set<string>;
  written: UriSet;
  /** Row ids whose deletion's targets were found already (a tree's nodes, found together). */
  deletionsNoted: Set<number>;
  /**
   * Rows of likely targets the transaction read locked (FOR UPDATE) with an earlier batch, by URI
   * (touches.ts lockedTargetsRead): their touch needs no read of its own. Held since, so current.
   */
  lockedRows: Map<string, LockedRow>;
}

/** A record's row as a touch reads it (locked). */
export interface LockedRow {
  rid: number;
  type: string;
  uri: string;
  json: string;
}

/** Turns a clash of a record's unique key (the rule, the record that holds the key) into the error its writer reports. */
export type ExplainClash = (rule: string, holderRid: number | null) => Promise<Error>;

export interface HeldKey {
  row: { type: string; rule: string; scope: string; key_hash: string; rid: number };
  explain: ExplainClash;
}

const memos = new WeakMap<object, TransactionMemo>();
let deletions = 0;

/** Records were deleted: no transaction trusts what it kept about which records exist. */
export function noteDeletion(): void {
  deletions++;
}

function emptyMemo(): TransactionMemo {
  return { existing: new Map(), lockedGroups: new Set(), lastPosition: new Map(), placed: new Set(), inserted: new Map(), pending: new Map(), standIns: 0, deletions, off: false };
}

/** The memo kept for `trx`, made on first use. */
function memoFor(trx: object): TransactionMemo {
  let memo = memos.get(trx);
  if (!memo) memos.set(trx, (memo = emptyMemo()));
  return memo;
}

/** What a Knex transaction says of itself: whether it is one, and the transaction a savepoint runs in. */
export type Transactor = { isTransaction?: boolean; parentTransaction?: Transactor };

/** The memo of `db` when it is a transaction that keeps one; undefined otherwise. */
export function transactionMemo(db: Knex | Knex.Transaction): TransactionMemo | undefined {
  const trx = db as unknown as Transactor;
  if (!trx.isTransaction) return undefined;
  if (trx.parentTransaction) {
    for (let outer: Transactor | undefined = trx.parentTransaction; outer; outer = outer.parentTransaction) memoFor(outer).off = true;
    return undefined;
  }
  const memo = memoFor(trx);
  if (memo.off) return undefined;
  if (memo.deletions !== deletions) {
    memo.existing.clear();
    memo.inserted.clear();
    memo.deletions = deletions;
  }
  return memo;
}

/**
 * `trx` goes on with another caller's whole transaction (a member of a group committed together,
 * transactions.ts, run in a savepoint): what it kept so far is forgotten, so a member that rolls
 * back leaves nothing behind for the next, and the next keeps a memo of its own, as a
 * transaction would.
 */
export function startOwnMemo(trx: Knex.Transaction): void {
  memos.delete(trx);
}

/**
 * The change-log entries of `trx` are held back until releaseHeldChanges: for a transaction whose
 * opener writes them before it commits (Database.transaction). A nested transaction writes its
 * own at once (so they may come before entries of the outer one written earlier: the indexer
 * reads each record as it is at the end, whatever the order); what the outer one held is still
 * written at its end.
 */
export function holdChanges(trx: Knex.Transaction): void {
  const memo = memoFor(trx);
  memo.pendingChanges = [];
  memo.idBlocks = new Map();
}

/** Where `db`'s change-log entries go for now: the held list of its transaction, or undefined (write them). */
export function heldChanges(db: Knex | Knex.Transaction): TransactionMemo['pendingChanges'] {
  return memos.get(db)?.pendingChanges;
}

/** Takes what `trx` held back (the caller writes it), and holds no more. */
export function releaseHeldChanges(trx: Knex.Transaction): NonNullable<TransactionMemo['pendingChanges']> {
  const memo = memos.get(trx);
  const held = memo?.pendingChanges ?? [];
  if (memo) memo.pendingChanges = undefined;
  return held;
}

/** `trx` collects what its changes touch (touches.ts), by `rules`: nothing where no type touches another. */
export function collectTouches(trx: Knex.Transaction, rules: TouchRules): void {
  if (!rules.size) return;
  memoFor(trx).touches = { rules, changed: new Map(), targets: new Set(), written: new UriSet(), deletionsNoted: new Set(), lockedRows: new Map() };
}

/**
 * The touch collector of the transaction `db` runs in: the outermost one's (a savepoint's changes
 * touch on behalf of its transaction; one that rolls back may leave a target touched, which only
 * costs a harvester a record it did not need).
 */
export function touchCollector(db: Knex | Knex.Transaction): TouchCollector | undefined {
  let trx = db as unknown as Transactor;
  if (!trx.isTransaction) return undefined;
  while (trx.parentTransaction) trx = trx.parentTransaction;
  return memos.get(trx)?.touches;
}

/** Takes the collector of `trx` away (what it collected is applied), so the touches' own change-log entries are not collected. */
export function takeTouchCollector(trx: Knex.Transaction): TouchCollector | undefined {
  const memo = memos.get(trx);
  const collector = memo?.touches;
  if (memo) memo.touches = undefined;
  return collector;
}

/** Records entered in the change log: written, and where their type touches others, to be followed at the end. */
export function noteChanges(db: Knex | Knex.Transaction, records: Array<{ type: string; uri: string }>, op: 'upsert' | 'delete'): void {
  const collector = touchCollector(db);
  if (!collector) return;
  for (const r of records) {
    collector.written.add(r.uri);
    if (op !== 'upsert' || !collector.rules.has(r.type)) continue;
    const list = collector.changed.get(r.type);
    if (list) list.push(r.uri);
    else collector.changed.set(r.type, UriList.of([r.uri]));
  }
}

/**
 * The lookup keys and links of records `trx` inserts are held back and written a hundred rows a
 * statement (RecordQueries): for a transaction that writes many records (an import, a batch of
 * children), where on MySQL each row written alone was a round trip of its own. A nested
 * transaction (a savepoint) neither holds rows nor sees those its outer one holds: the flows that
 * hold open none that reads links or lookup keys (only value lists get one).
 *
 * With `uniqueKeys`, the records' unique keys too: a clash is then found when they are written,
 * after later records, and reported as the record's own writer would (ExplainClash) — for a
 * transaction that is refused as a whole when one of its records is (a batch of children), not
 * for one whose refusal names where it was in its work when it failed (an import names the
 * file's path of the record). Given a list of types, only those types' keys are held: a
 * spreadsheet's archival objects, whose clashes it has looked for row by row before writing, but
 * not the agents and subjects it creates, whose clash names the one to link instead.
 */
export function holdDerivedRows(trx: Knex.Transaction, options: { uniqueKeys?: boolean | readonly string[] } = {}): void {
  const memo = memoFor(trx);
  memo.heldRows ??= new Map();
  if (!options.uniqueKeys) return;
  memo.heldKeys ??= [];
  if (typeof options.uniqueKeys !== 'boolean') memo.heldKeyTypes = new Set([...memo.heldKeyTypes ?? [], ...options.uniqueKeys]);
}

/**
 * Where `db`'s derived rows go for now: the held rows of its transaction, or undefined (write
 * them). Read from the memo even when it keeps nothing else (a nested transaction turned it off):
 * what it holds must still be written.
 */
export function heldRows(db: Knex | Knex.Transaction): Map<string, object[]> | undefined {
  return memos.get(db)?.heldRows;
}

/**
 * The records of `db` prepared and not inserted yet (TransactionMemo.pending), read from the memo
 * even when it keeps nothing else (as heldRows): their inserts must still resolve them.
 */
export function pendingInserts(db: Knex | Knex.Transaction): TransactionMemo['pending'] | undefined {
  return memos.get(db)?.pending;
}

/** A sibling group kept under a parent's stand-in row id (pending) goes on under the row id it was inserted with. */
export function renameGroup(db: Knex | Knex.Transaction, from: string, to: string): void {
  const memo = memos.get(db);
  if (!memo || from === to) return;
  if (memo.placed.delete(from)) memo.placed.add(to);
  if (memo.lockedGroups.delete(from)) memo.lockedGroups.add(to);
  const last = memo.lastPosition.get(from);
  if (last !== undefined) {
    memo.lastPosition.delete(from);
    memo.lastPosition.set(to, last);
  }
}

/**
 * Where `db`'s unique keys of fresh records (of `type`: one of those held) go for now (as
 * heldRows): the held list, or undefined (write them). Without a type: the list, whatever it holds.
 */
export function heldKeys(db: Knex | Knex.Transaction, type?: string): HeldKey[] | undefined {
  const memo = memos.get(db);
  if (type !== undefined && memo?.heldKeyTypes && !memo.heldKeyTypes.has(type)) return undefined;
  return memo?.heldKeys;
}
