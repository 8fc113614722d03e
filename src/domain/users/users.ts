import { errors } from '../../errors';
import type { Services } from '../../records/context';
import type { TypeHooks } from '../../records/context';
import type { User } from '../../../generated/types';
import type { Obj } from '../../json';
import { holds, loadGrants, permissionsObject } from '../../access/grants';
import { loginKeys, loginThrottleFor } from '../../access/login-throttle';
import { createSession } from '../../access/sessions';
import { decoyHash, hashPassword, verifyPassword } from '../../access/passwords';
import type { Handle } from '../../store/database';
import { groupUrisOfUsers } from '../../store/access';
import { credentialsOf, saveCredentials, userRowByName } from '../../store/users';

const USERNAME = /^[a-zA-Z0-9\-_. @]+$/;

/** Usernames are compared lower-cased and trimmed; odd characters are refused (auth file section 1). */
export function normaliseUsername(raw: string): string {
  const name = raw.trim().toLowerCase();
  if (!USERNAME.test(name) || name.includes('  ')) throw errors.invalidUsername();
  return name;
}

export async function setPassword(db: Handle, username: string, userId: number, password: string): Promise<void> {
  await saveCredentials(db, username, userId, await hashPassword(password));
}

/** is_admin and groups are not stored on the user: they follow group membership. */
export const userHooks: TypeHooks = {
  derivedFields: ['groups', 'is_admin', 'permissions'],
  async beforeSave(_trx, _s, _where, body) {
    const user = body as User;
    user.username = normaliseUsername(String(user.username));
    delete user.is_admin;
    delete user.groups;
  },
};

/** Group URIs per username, in one query. */
async function groupsOf(db: Handle, usernames: string[], repoId?: number): Promise<Map<string, string[]>> {
  const rows = await groupUrisOfUsers(db, usernames, repoId);
  const out = new Map<string, string[]>();
  for (const row of rows) out.set(row.username, [...(out.get(row.username) ?? []), row.uri]);
  return out;
}

/** Adds the membership-derived fields to user records: groups, is_admin, and optionally permissions. */
export async function decorateUsers(s: Services, users: User[], options: { permissions?: boolean; repoId?: number } = {}) {
  if (!users.length) return;
  const groups = await groupsOf(s.db, users.map((u) => u.username), options.repoId);
  for (const user of users) {
    const grants = await loadGrants(s.db, user.username);
    user.groups = groups.get(user.username) ?? [];
    user.is_admin = holds(grants, 'administer_system');
    if (options.permissions) user.permissions = permissionsObject(grants);
  }
}

export async function userRecordByName(db: Handle, username: string): Promise<{ id: number; record: User } | undefined> {
  const row = await userRowByName(db, 'user', username);
  return row ? { id: row.id, record: JSON.parse(row.json) as User } : undefined;
}

/**
 * Checks the password and opens a session. An unknown user costs one hash verification too,
 * so the answer time does not tell whether a username exists. Failures are throttled per
 * username and per client address (429 once LOGIN_MAX_FAILURES are used up in the window).
 */
export async function login(s: Services, rawUsername: string, password: string, expiring: boolean, clientAddress?: string) {
  const username = normaliseUsername(rawUsername);
  const throttle = loginThrottleFor(s);
  const keys = loginKeys(username, clientAddress);
  await throttle.begin(keys);
  const cred = await credentialsOf(s.db, username);
  const ok = await verifyPassword(password, cred?.password_hash ?? (await decoyHash()));
  if (!cred || !ok) throw errors.loginFailed();
  const found = await userRecordByName(s.db, username);
  if (!found || found.record.is_active_user === false) throw errors.loginFailed();
  await throttle.forgive(keys);
  const session = await createSession(s.db, username, expiring);
  await decorateUsers(s, [found.record], { permissions: true });
  const body: Obj = { session, user: found.record };
  if (!expiring) body.expire_after_seconds = s.config.sessionNonexpirableForceExpireAfterSeconds;
  return body;
}
