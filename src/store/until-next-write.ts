import type { Database } from './connect';
import { committedChangeLogHead } from './records';

/**
 * Values this process computed from committed records, kept until the next write anywhere: every
 * record write appends to the change log in its transaction, so a moved head (read per call, one
 * index lookup, on the read connection where there is one) drops them all. Exact across processes.
 * Only for values read outside a transaction.
 */
interface Memo {
  head: number;
  values: Map<string, unknown>;
  /** What large values weigh beyond the 1 every value counts (the bound is on their sum). */
  extraWeight: number;
}
const kept = new WeakMap<Database, Memo>();
const MAX_WEIGHT = 50_000;

async function memoOf(db: Database): Promise<Memo> {
  const head = await committedChangeLogHead(db);
  let memo = kept.get(db);
  if (!memo || memo.head !== head) kept.set(db, (memo = { head, values: new Map(), extraWeight: 0 }));
  if (memo.values.size + memo.extraWeight > MAX_WEIGHT) {
    memo.values.clear();
    memo.extraWeight = 0;
  }
  return memo;
}

export async function untilNextWrite(db: Database): Promise<Map<string, unknown>> {
  return (await memoOf(db)).values;
}

/**
 * The value kept under `key` until the next write, computed by `load` when there is none.
 * `weigh` tells what a large value counts towards the bound (a tree waypoint: its entries).
 * A kept value is shared by every caller: never changed after it is returned.
 */
export async function keptUntilNextWrite<T>(db: Database, key: string, load: () => Promise<T>, weigh: (value: T) => number = () => 1): Promise<T> {
  const memo = await memoOf(db);
  if (memo.values.has(key)) return memo.values.get(key) as T;
  const value = await load();
  memo.values.set(key, value);
  memo.extraWeight += Math.max(0, weigh(value) - 1);
  return value;
}
