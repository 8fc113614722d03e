import type { Knex } from 'knex';

/**
 * Called in the transaction of any change to who may do what: a group's members or grants, a
 * session ended or handed to another user, a user or a repository deleted, a preference saved or
 * deleted. Every process's
 * AccessCache (cache.ts) drops what it kept when it sees the version move.
 */
export async function bumpAccessVersion(db: Knex | Knex.Transaction): Promise<void> {
  await db('access_version').where({ id: 1 }).increment('version', 1);
}
