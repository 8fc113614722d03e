import crypto from 'node:crypto';
import type { Handle } from '../store/database';
import { errors } from '../errors';
import type { Config } from '../config';
import { deleteSessionByHash, endSession, insertSession, repointSession as repointSessionRow, sessionByHash, touchSession } from '../store/sessions';

/** Sessions live in the database so that any app process can serve any request. */
export interface Session {
  username: string;
  expiring: boolean;
  /** When the store last saw the session used (set by findSession). */
  lastActiveMs?: number;
}

/** What the store keeps of a session token. */
export function digest(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** Activity is written at most this often per session, not on every request. */
export const TOUCH_INTERVAL_MS = 5000;

/**
 * Notes a session's activity without making the request wait for it: the write queues for the
 * store's writer, which a long import holds for its whole transaction, and a read must not wait
 * behind it. A touch that fails (the store busy past DB_WAIT_SECONDS, the store closed) is
 * dropped: the next request after TOUCH_INTERVAL_MS tries again, far inside the idle time after
 * which a session times out.
 */
export function touchInBackground(db: Handle, hash: string, now: number): void {
  touchSession(db, hash, now).catch(() => undefined);
}

export async function createSession(db: Handle, username: string, expiring: boolean): Promise<string> {
  const token = crypto.randomBytes(32).toString('hex');
  const now = Date.now();
  await insertSession(db, { token_hash: digest(token), username, expiring, created_ms: now, last_active_ms: now });
  return token;
}

/** The session a token names; throws the reference's 412 answers for unknown or timed-out tokens. */
export async function findSession(db: Handle, config: Config, token: string): Promise<Session> {
  const hash = digest(token);
  const row = await sessionByHash(db, hash);
  if (!row) throw errors.sessionGone(token);
  const now = Date.now();
  const idleMs = now - Number(row.last_active_ms);
  const expiring = !!row.expiring;
  if (expiring && config.sessionExpireAfterSeconds >= 0 && idleMs > config.sessionExpireAfterSeconds * 1000) {
    await deleteSessionByHash(db, hash);
    throw errors.sessionExpired(token);
  }
  if (!expiring && idleMs > config.sessionNonexpirableForceExpireAfterSeconds * 1000) {
    await deleteSessionByHash(db, hash);
    throw errors.sessionGone(token);
  }
  const touched = idleMs > TOUCH_INTERVAL_MS;
  if (touched) touchInBackground(db, hash, now);
  return { username: row.username, expiring, lastActiveMs: touched ? now : Number(row.last_active_ms) };
}

export async function deleteSession(db: Handle, token: string): Promise<void> {
  await endSession(db, digest(token));
}

/** become-user: the caller's session now belongs to another user. */
export async function repointSession(db: Handle, token: string, username: string): Promise<void> {
  await repointSessionRow(db, digest(token), username);
}
