/**
 * Sessions (by the hash of their token) and the login throttle's failure counts: both live in the
 * store so that any app process can serve any request and every process counts the same attempts.
 */
import { bumpAccessVersion } from './access';
import { type Handle, readsOf, sqlOf, type Tx } from './database';

export interface SessionRow {
  token_hash: string;
  username: string;
  expiring: boolean | number;
  created_ms: number;
  last_active_ms: number;
}

export async function insertSession(h: Handle, row: SessionRow): Promise<void> {
  await sqlOf(h)('sessions').insert(row);
}

export async function sessionByHash(h: Handle, hash: string): Promise<SessionRow | undefined> {
  return readsOf(h)('sessions').where({ token_hash: hash }).first();
}

export async function deleteSessionByHash(h: Handle, hash: string): Promise<void> {
  await sqlOf(h)('sessions').where({ token_hash: hash }).delete();
}

/** The session was seen in use at `now`. */
export async function touchSession(h: Handle, hash: string, now: number): Promise<void> {
  await sqlOf(h)('sessions').where({ token_hash: hash }).update({ last_active_ms: now });
}

/** Logout: the session ends, in a transaction of its own that moves the access version. */
export async function endSession(h: Handle, hash: string): Promise<void> {
  await sqlOf(h).transaction(async (trx) => {
    await trx('sessions').where({ token_hash: hash }).delete();
    await bumpAccessVersion(trx);
  });
}

/** become-user: the session now belongs to `username` (its own transaction, as endSession). */
export async function repointSession(h: Handle, hash: string, username: string): Promise<void> {
  await sqlOf(h).transaction(async (trx) => {
    await trx('sessions').where({ token_hash: hash }).update({ username });
    await bumpAccessVersion(trx);
  });
}

/** Ends every session of a user. */
export async function deleteSessionsOf(h: Handle, username: string): Promise<void> {
  await sqlOf(h)('sessions').where({ username }).delete();
}

/**
 * Counts one failure for `key` in its window (a new window when there is none or it ended at
 * `now`), unless the window already holds `maxFailures`: then nothing is counted and the answer
 * is when the window ends. Single conditional statements, so parallel attempts cannot all slip
 * under the limit.
 */
export async function countLoginFailure(trx: Tx, key: string, now: number, windowMs: number, maxFailures: number): Promise<number | undefined> {
  await trx('login_failures').insert({ throttle_key: key, failures: 0, ends_ms: now + windowMs }).onConflict('throttle_key').ignore();
  await trx('login_failures').where({ throttle_key: key }).andWhere('ends_ms', '<=', now).update({ failures: 0, ends_ms: now + windowMs });
  const counted = await trx('login_failures').where({ throttle_key: key }).andWhere('failures', '<', maxFailures)
    .update({ failures: trx.raw('failures + 1') });
  if (counted) return undefined;
  const row = await trx('login_failures').where({ throttle_key: key }).first('ends_ms');
  return Number(row?.ends_ms ?? now);
}

export async function deleteEndedLoginWindows(trx: Tx, now: number): Promise<void> {
  await trx('login_failures').where('ends_ms', '<=', now).delete();
}

/** Takes back one counted failure of each key whose window is still open. */
export async function forgiveLoginFailures(trx: Tx, keys: string[], now: number): Promise<void> {
  await trx('login_failures').whereIn('throttle_key', keys).andWhere('failures', '>', 0).andWhere('ends_ms', '>', now)
    .update({ failures: trx.raw('failures - 1') });
}
