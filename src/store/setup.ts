/** What start-up and `archive-records migrate` make sure of beyond the migrations. */
import { recountChildren } from './child-counts';
import { type Handle, sqlOf } from './database';

/**
 * Every type's id sequence exists before the first create, so concurrent first creates only ever
 * increment a row (two inserts of the same new row would deadlock on MariaDB).
 */
export async function ensureIdSequences(h: Handle, types: string[]): Promise<void> {
  await sqlOf(h)('id_sequences').insert(types.map((type) => ({ type, last_id: 0 }))).onConflict('type').ignore();
}

/** Counts every tree's children again, in a transaction of its own. */
export async function recountAllChildren(h: Handle): Promise<void> {
  await sqlOf(h).transaction((trx) => recountChildren(trx));
}
