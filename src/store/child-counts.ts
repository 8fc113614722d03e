import type { Queryable } from './dialect';

/**
 * Children per sibling group (`parent_key`), kept in `tree_child_counts` by triggers on
 * `records` (migration 014): every path that writes a tree keeps them exact without knowing it.
 */

type Db = Queryable;

export async function childCount(db: Db, parentKey: string): Promise<number> {
  const row = await db('tree_child_counts').where({ parent_key: parentKey }).first('n');
  return row ? Number(row.n) : 0;
}

/** Counts of many sibling groups in one read; a group without an entry has no children. */
export async function childCountsOf(db: Db, parentKeys: string[]): Promise<Map<string, number>> {
  if (!parentKeys.length) return new Map();
  const rows = await db('tree_child_counts').whereIn('parent_key', parentKeys).andWhere('n', '>', 0).select('parent_key', 'n');
  return new Map(rows.map((r: { parent_key: string; n: number }) => [r.parent_key, Number(r.n)]));
}

const actualCounts = (db: Db) =>
  db('records').whereNotNull('parent_key').groupBy('parent_key').select('parent_key').count({ n: '*' });

/** Sibling groups whose kept count differs from the records (for `archive-records doctor`). */
export async function childCountDrift(db: Db): Promise<Array<{ parent_key: string; kept: number; actual: number }>> {
  const actual = new Map((await actualCounts(db) as Array<{ parent_key: unknown; n: unknown }>).map((r) => [String(r.parent_key), Number(r.n)]));
  const kept = new Map((await db('tree_child_counts').select('parent_key', 'n') as Array<{ parent_key: unknown; n: unknown }>).map((r) => [String(r.parent_key), Number(r.n)]));
  const drift: Array<{ parent_key: string; kept: number; actual: number }> = [];
  for (const key of new Set([...actual.keys(), ...kept.keys()])) {
    const a = actual.get(key) ?? 0;
    const k = kept.get(key) ?? 0;
    if (a !== k) drift.push({ parent_key: key, kept: k, actual: a });
  }
  return drift;
}

/** Counts every sibling group again (`archive-records migrate` does, after a restore or a hand edit). */
export async function recountChildren(db: Db): Promise<void> {
  await db('tree_child_counts').delete();
  await db.raw('INSERT INTO tree_child_counts (parent_key, n) SELECT parent_key, COUNT(*) FROM records WHERE parent_key IS NOT NULL GROUP BY parent_key');
}
