import type { Database } from './database';
import { committedFreshness, type ReadScope } from './freshness';

/**
 * Values this process computed from committed records, kept until the next write anywhere: every
 * record write appends to the change log in its transaction, so a moved head (committedFreshness:
 * read once per turn of the event loop, on the read connection where there is one) drops them
 * all, and so does every commit of this process.
 * On SQLite that is exact: one writer at a time, so entries commit in the order of their numbers.
 * On MySQL a transaction numbers its entry when it inserts it and may commit after a later-numbered
 * one: the head a process read can already count past a change that is not yet visible, and does
 * not move when it becomes visible. This process's own commits drop what it keeps (exact); for
 * another process's, what is kept is dropped a second after it was first kept (MYSQL_KEPT_MS),
 * so a value is at most that stale.
 * Only for values read outside a transaction. A kept value is shared by every caller: it is
 * never changed after it is kept.
 */
interface Memo {
  head: number;
  /** When the first value was kept (Date.now()). */
  since: number;
  values: Map<string, unknown>;
  /** What large values weigh beyond the 1 every value counts (the bound is on their sum). */
  extraWeight: number;
}
const kept = new WeakMap<Database, Memo>();
/** About 20 MB: a value counts 1, a tree waypoint its entries, a linked record 1 per KB of JSON. */
const MAX_WEIGHT = 20_000;
/** On MySQL, how long a value is kept at most (above): the bound on what another process's late commit leaves stale. */
export const MYSQL_KEPT_MS = 1_000;

/** The values kept since the last write, as one request sees them. */
export class Kept {
  constructor(private readonly memo: Memo) {}
  /** The change log's head these values were kept at. */
  get head(): number {
    return this.memo.head;
  }
  has(key: string): boolean {
    return this.memo.values.has(key);
  }
  get<T>(key: string): T | undefined {
    return this.memo.values.get(key) as T | undefined;
  }
  set(key: string, value: unknown, weight = 1): void {
    this.memo.values.set(key, value);
    this.memo.extraWeight += Math.max(0, weight - 1);
  }
}

/** Where kept values are asked for: the store, and the asking request's reads (freshness.ts) where there is one. */
export interface KeptReader {
  db: Database;
  readScope?: ReadScope;
}

/**
 * What is kept, as one caller sees it: the values kept at the freshness of its request (read once
 * per request, the access check's included), else of this turn of the event loop.
 */
export async function untilNextWrite({ db, readScope }: KeptReader): Promise<Kept> {
  const { head } = await committedFreshness(db, readScope);
  let memo = kept.get(db);
  if (!memo) forgetOnOwnWrites(db);
  const now = Date.now();
  if (!memo || memo.head !== head || (db.dialect === 'mysql' && now - memo.since > MYSQL_KEPT_MS)) {
    memo = { head, since: now, values: new Map(), extraWeight: 0 };
    kept.set(db, memo);
  }
  if (memo.values.size + memo.extraWeight > MAX_WEIGHT) {
    memo.values.clear();
    memo.extraWeight = 0;
  }
  return new Kept(memo);
}

const listening = new WeakSet<Database>();

/**
 * Every write of this process drops what it keeps (Database.onWrite): on MySQL its change may be
 * numbered below the head already read, and a write through Knex may log no change at all.
 */
function forgetOnOwnWrites(db: Database): void {
  if (listening.has(db)) return;
  listening.add(db);
  // A value being loaded meanwhile lands in the dropped memo, which no later caller sees.
  db.onWrite.push(() => kept.delete(db));
}

/**
 * The value kept under `key` until the next write, computed by `load` when there is none.
 * `weigh` tells what a large value counts towards the bound.
 */
export async function keptUntilNextWrite<T>(
  reader: KeptReader, key: string, load: () => Promise<T>, weigh: (value: T) => number = () => 1,
): Promise<T> {
  const values = await untilNextWrite(reader);
  if (values.has(key)) return values.get<T>(key)!;
  const value = await load();
  values.set(key, value, weigh(value));
  return value;
}
