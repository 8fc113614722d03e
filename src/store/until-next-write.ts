import type { Database } from './connect';
import { committedChangeLogHead } from './records';

/**
 * Values this process computed from committed records, kept until the next write anywhere: every
 * record write appends to the change log in its transaction, so a moved head (read per call, one
 * index lookup, on the read connection where there is one) drops them all. Exact across processes.
 * Only for values read outside a transaction.
 */
const kept = new WeakMap<Database, { head: number; values: Map<string, unknown> }>();
const MAX_VALUES = 50_000;

export async function untilNextWrite(db: Database): Promise<Map<string, unknown>> {
  const head = await committedChangeLogHead(db);
  let memo = kept.get(db);
  if (!memo || memo.head !== head) kept.set(db, (memo = { head, values: new Map() }));
  if (memo.values.size > MAX_VALUES) memo.values.clear();
  return memo.values;
}

/** The value kept under `key` until the next write, computed by `load` when there is none. */
export async function keptUntilNextWrite<T>(db: Database, key: string, load: () => Promise<T>): Promise<T> {
  const kept = await untilNextWrite(db);
  if (kept.has(key)) return kept.get(key) as T;
  const value = await load();
  kept.set(key, value);
  return value;
}
