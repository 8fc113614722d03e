import type { Knex } from 'knex';
import { errors } from '../errors';
import type { Services } from '../operations/context';
import { createSession } from './sessions';
import { decoyHash, hashPassword, verifyPassword } from './passwords';

const USERNAME = /^[a-zA-Z0-9\-_. @]+$/;

/** Usernames are compared lower-cased and trimmed; odd characters are refused (auth file section 1). */
export function normaliseUsername(raw: string): string {
  const name = raw.trim().toLowerCase();
  if (!USERNAME.test(name) || name.includes('  ')) throw errors.invalidUsername();
  return name;
}

export async function setPassword(knex: Knex, username: string, userId: number, password: string): Promise<void> {
  const password_hash = await hashPassword(password);
  const updated = await knex('credentials').where({ username }).update({ password_hash, user_id: userId });
  if (!updated) await knex('credentials').insert({ username, user_id: userId, password_hash });
}

export async function userRecord(knex: Knex, userId: number): Promise<Record<string, unknown> | undefined> {
  const row = await knex('records').where({ type: 'user', id: userId }).first('json');
  return row ? JSON.parse(row.json) : undefined;
}

/**
 * Checks the password and opens a session. An unknown user costs one hash verification too,
 * so the answer time does not tell whether a username exists.
 */
export async function login(s: Services, rawUsername: string, password: string, expiring: boolean) {
  const username = normaliseUsername(rawUsername);
  const cred = await s.db.knex('credentials').where({ username }).first();
  const ok = await verifyPassword(password, cred?.password_hash ?? (await decoyHash()));
  if (!cred || !ok) throw errors.loginFailed();
  const user = await userRecord(s.db.knex, Number(cred.user_id));
  if (!user || user.is_active_user === false) throw errors.loginFailed();
  const session = await createSession(s.db.knex, username, expiring);
  const body: Record<string, unknown> = { session, user: { ...user, permissions: { _archivesspace: ['edit_user_self'] } } };
  if (!expiring) body.expire_after_seconds = s.config.sessionNonexpirableForceExpireAfterSeconds;
  return body;
}
