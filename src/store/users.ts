/** Users' credentials (a password's hash per username, with the user record's id). */
import { type Handle, readsOf, sqlOf } from './database';

export interface CredentialsRow {
  username: string;
  user_id: number;
  password_hash: string;
}

/** Sets a user's password hash: the row is changed, or made when there is none. */
export async function saveCredentials(h: Handle, username: string, userId: number, passwordHash: string): Promise<void> {
  const db = sqlOf(h);
  const updated = await db('credentials').where({ username }).update({ password_hash: passwordHash, user_id: userId });
  if (!updated) await db('credentials').insert({ username, user_id: userId, password_hash: passwordHash });
}

export async function credentialsOf(h: Handle, username: string): Promise<CredentialsRow | undefined> {
  return readsOf(h)('credentials').where({ username }).first();
}

/** The user record's id of a username (their credentials row), if they have one. */
export async function userIdOf(h: Handle, username: string): Promise<number | undefined> {
  const row = await readsOf(h)('credentials').where({ username }).first('user_id');
  return row ? Number(row.user_id) : undefined;
}

/** The id and stored JSON of the user record of a username (of `userType`), found through its credentials. */
export async function userRowByName(h: Handle, userType: string, username: string): Promise<{ id: number; json: string } | undefined> {
  const id = await userIdOf(h, username);
  if (id === undefined) return undefined;
  const row = await readsOf(h)('records').where({ type: userType, id }).first('json');
  return row ? { id, json: row.json } : undefined;
}

export async function deleteCredentials(h: Handle, username: string): Promise<void> {
  await sqlOf(h)('credentials').where({ username }).delete();
}

/** Usernames starting with `prefix` (its LIKE wildcards the caller's to escape or strip), in order. */
export async function usernamesStartingWith(h: Handle, prefix: string, limit: number): Promise<string[]> {
  const rows = await readsOf(h)('credentials').where('username', 'like', `${prefix}%`).orderBy('username').limit(limit).select('username');
  return rows.map((r: { username: string }) => r.username);
}
