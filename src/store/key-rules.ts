import type { Tx } from './database';
import type { Queryable } from './dialect';
import { isUniqueViolation } from './store-errors';
import { Statements } from './statements';

/**
 * What deriving keys again after a type's rules changed needs of the store
 * (records/key-rule-changes.ts): the digests of the rules the keys were written with, the type's
 * records a page at a time, and the keys rewritten.
 */

/** The digest of each type's rules its stored keys follow. */
export async function keyRuleDigests(db: Queryable): Promise<Map<string, string>> {
  return new Map((await db('key_rule_versions').select('type', 'digest')).map((r: { type: string; digest: string }) => [r.type, r.digest]));
}

/** Records the digests, one statement for all. */
export async function saveKeyRuleDigests(db: Queryable, digests: Array<{ type: string; digest: string }>): Promise<void> {
  await db('key_rule_versions').insert(digests).onConflict('type').merge();
}

/** The next `limit` records of `type` after row id `afterRid`, in row order. */
export function recordsAfter(db: Queryable, type: string, afterRid: number, limit: number): Promise<Array<{ rid: number; uri: string; repo_id: number; json: string }>> {
  return db('records').where({ type }).andWhere('rid', '>', afterRid).orderBy('rid').limit(limit).select('rid', 'uri', 'repo_id', 'json');
}

/** Deletes the unique and lookup keys of the records with row ids `rids`. */
export async function deleteKeysOf(trx: Tx, rids: number[]): Promise<void> {
  await trx('unique_keys').whereIn('rid', rids).delete();
  await trx('lookup_keys').whereIn('rid', rids).delete();
}

export async function insertLookupKeyRows(trx: Tx, rows: Array<{ type: string; param: string; repo_id: number; value_hash: string; rid: number }>): Promise<void> {
  await (await Statements.of(trx)).insertMany('lookup_keys', rows, { skipDuplicates: true });
}

/** Inserts a unique key; false when another record holds it. */
export async function insertUniqueKeyUnlessTaken(trx: Tx, row: { type: string; rule: string; scope: string; key_hash: string; rid: number }): Promise<boolean> {
  try {
    await trx('unique_keys').insert(row);
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
}
