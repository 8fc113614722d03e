import type { Database } from './connect';
import { committedFreshness } from './freshness';

/**
 * Values this process computed from committed records, kept until the next write anywhere: every
 * record write appends to the change log in its transaction, so a moved head (committedFreshness:
 * read once per turn of the event loop, on the read connection where there is one) drops them
 * all. Exact across processes.
 * Only for values read outside a transaction. A kept value is shared by every caller: it is
 * never changed after it is kept.
 */
interface Memo {
  head: number;
  values: Map<string, unknown>;
  /** What large values weigh beyond the 1 every value counts (the bound is on their sum). */
  extraWeight: number;
}
const kept = new WeakMap<Database, Memo>();
/** About 20 MB: a value counts 1, a tree waypoint its entries, a linked record 1 per KB of JSON. */
const MAX_WEIGHT = 20_000;

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

export async function untilNextWrite(db: Database): Promise<Kept> {
  const { head } = await committedFreshness(db);
  let memo = kept.get(db);
  if (!memo || memo.head !== head) kept.set(db, (memo = { head, values: new Map(), extraWeight: 0 }));
  if (memo.values.size + memo.extraWeight > MAX_WEIGHT) {
    memo.values.clear();
    memo.extraWeight = 0;
  }
  return new Kept(memo);
}

/**
 * The value kept under `key` until the next write, computed by `load` when there is none.
 * `weigh` tells what a large value counts towards the bound.
 */
export async function keptUntilNextWrite<T>(db: Database, key: string, load: () => Promise<T>, weigh: (value: T) => number = () => 1): Promise<T> {
  const values = await untilNextWrite(db);
  if (values.has(key)) return values.get<T>(key)!;
  const value = await load();
  values.set(key, value, weigh(value));
  return value;
}
