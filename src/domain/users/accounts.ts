import type { Group, User } from '../../../generated/types';
import { can } from '../../access/permissions';
import { deleteSession, repointSession } from '../../access/sessions';
import { ApiError, type ErrorMap, errors } from '../../errors';
import type { Obj } from '../../json';
import { GLOBAL_REPO_ID } from '../../registry';
import { prepareRecord } from '../../validation';
import type { Actor, Services, Where } from '../../records/context';
import { ADMINISTRATORS, setMembership } from './groups';
import { readRecord } from '../../records/load';
import { decorateUsers, normaliseUsername, setPassword, userRecordByName } from './users';
import { createRecord, deleteRecord, updateRecord, type WriteResult } from '../../records/write';
import { bumpAccessVersion } from '../../access/access-version';
import type { Tx } from '../../store/database';
import { groupsJoinedBy } from '../../store/access';
import { deleteSessionsOf } from '../../store/sessions';
import { deleteCredentials, usernamesStartingWith } from '../../store/users';
import { writeTransaction } from '../../records/context';

/**
 * The user operations the /users routes run: a user is a record written by the generic
 * operations, plus what is not in the record (the password, and admin rights and group
 * memberships, which follow group membership). Each checks what the reference checks beyond the
 * route's permission (auth-and-permissions.md sections 1 and 9).
 */

export function userWhere(s: Services): Where {
  return { type: s.registry.type('user') };
}

async function requirePermission(s: Services, actor: Actor | null, code: string, repoId?: number): Promise<void> {
  if (!(await can(s, actor, code, repoId))) throw errors.accessDenied();
}

/** Reads a user record or answers the reference's "User wasn't found". */
export async function readUser(s: Services, userId: number, db?: Tx): Promise<User> {
  try {
    return await readRecord(s, userWhere(s), userId, db) as User;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw errors.userNotFound();
    throw err;
  }
}

/** A user as served: with groups and is_admin, and permissions when asked. */
export async function userJson(s: Services, userId: number, options: { permissions?: boolean; repoId?: number } = {}): Promise<User> {
  const user = await readUser(s, userId);
  await decorateUsers(s, [user], options);
  return user;
}

/** Group URIs (/repositories/R/groups/N) → the groups, each checked to exist. */
async function groupsFromUris(s: Services, uris: string[]): Promise<Array<{ repoId: number; code: string }>> {
  const groups = [];
  for (const uri of uris) {
    const m = /^\/repositories\/(\d+)\/groups\/(\d+)$/.exec(uri);
    if (!m) throw errors.notAUri('groups', 'a group', uri);
    const repoId = Number(m[1]);
    const record = await readRecord(s, { type: s.registry.type('group'), repoId }, Number(m[2])) as Group;
    groups.push({ repoId, code: record.group_code });
  }
  return groups;
}

function setAdmin(trx: Tx, s: Services, actor: Actor, username: string, admin: boolean): Promise<void> {
  return setMembership(trx, s, actor, GLOBAL_REPO_ID, ADMINISTRATORS, username, admin);
}

/** POST /users: is_admin needs administer_system; each group needs manage_repository in its repository. */
export async function createUser(
  s: Services, caller: Actor | null, record: Obj, warnings: ErrorMap, password: string, groupUris: string[],
): Promise<WriteResult> {
  const user = record as User;
  const wantsAdmin = user.is_admin === true;
  if (wantsAdmin) await requirePermission(s, caller, 'administer_system');
  const groups = await groupsFromUris(s, groupUris);
  for (const g of groups) await requirePermission(s, caller, 'manage_repository', g.repoId);
  const username = normaliseUsername(String(user.username));
  const actor = caller ?? { username };
  return writeTransaction(s, async (trx) => {
    const created = await createRecord(s, actor, userWhere(s), record, warnings, { trx });
    await setPassword(trx, username, created.id, password);
    if (wantsAdmin) await setAdmin(trx, s, actor, username, true);
    for (const g of groups) await setMembership(trx, s, actor, g.repoId, g.code, username, true);
    return created;
  });
}

/** POST /users/:id: yourself, or anyone with manage_users; is_admin only by an administrator; no renaming. */
export async function updateUser(
  s: Services, caller: Actor | null, userId: number, record: Obj, warnings: ErrorMap, password?: string,
): Promise<WriteResult> {
  const user = record as User;
  const current = await readUser(s, userId);
  const self = caller?.username === current.username;
  const mayAdminister = await can(s, caller, 'administer_system');
  if (!self) {
    await requirePermission(s, caller, 'manage_users');
    if (user.is_admin === true && !mayAdminister) throw errors.accessDenied();
  }
  const username = normaliseUsername(String(user.username));
  if (username !== current.username) {
    throw errors.refusedOnSave('username', 'cannot be changed; create a new user instead');
  }
  const actor = caller!;
  return writeTransaction(s, async (trx) => {
    const updated = await updateRecord(s, actor, userWhere(s), userId, record, warnings, { trx });
    if (password) await setPassword(trx, username, userId, password);
    if (!self && mayAdminister && typeof user.is_admin === 'boolean') await setAdmin(trx, s, actor, username, user.is_admin);
    return updated;
  });
}

/** DELETE /users/:id: its memberships, password and sessions go with it; system users stay. */
export async function deleteUser(s: Services, actor: Actor, userId: number): Promise<{ status: 'Deleted'; id: number }> {
  const user = await readUser(s, userId);
  if (user.is_system_user) throw errors.accessDenied();
  await writeTransaction(s, async (trx) => {
    const memberships = await groupsJoinedBy(trx, user.username);
    for (const m of memberships) {
      await setMembership(trx, s, actor, Number(m.repo_id), (JSON.parse(m.json) as Group).group_code, user.username, false);
    }
    await deleteCredentials(trx, user.username);
    await deleteSessionsOf(trx, user.username);
    await bumpAccessVersion(trx);
    await deleteRecord(s, userWhere(s), userId, { trx });
  });
  return { status: 'Deleted', id: userId };
}

/** GET /users/:id/activate and /deactivate; deactivating ends the user's sessions. */
export async function setUserActive(s: Services, actor: Actor, userId: number, active: boolean): Promise<User> {
  const user = await readUser(s, userId);
  if (user.is_system_user) throw errors.userNotFound();
  const { record, warnings } = prepareRecord(s.registry, s.enums, 'user', { ...user, is_active_user: active });
  await updateRecord(s, actor, userWhere(s), userId, record, warnings);
  if (!active) {
    await writeTransaction(s, async (trx) => {
      await deleteSessionsOf(trx, user.username);
      await bumpAccessVersion(trx);
    });
  }
  return userJson(s, userId, { permissions: true });
}

/** POST /users/:id/password: your own only; the calling session ends. */
export async function changeOwnPassword(s: Services, caller: Actor | null, userId: number, password: string, token?: string): Promise<void> {
  const user = caller ? await readUser(s, userId) : undefined;
  if (!user || user.username !== caller!.username) throw errors.accessDenied();
  await setPassword(s.db, user.username, userId, password);
  if (token) await deleteSession(s.db, token);
}

/** POST /users/:username/become-user: the calling session now belongs to that user. */
export async function becomeUser(s: Services, token: string | undefined, rawUsername: string): Promise<Obj> {
  const found = await userRecordByName(s.db, normaliseUsername(rawUsername));
  if (!found || !token) throw errors.notFoundException();
  await repointSession(s.db, token, found.record.username);
  return { session: token, user: await userJson(s, found.id, { permissions: true }) };
}

/**
 * POST /users/:id/groups: replaces the user's memberships in one repository. The original skips
 * every check when groups[] is empty; here the repository's manager is always needed.
 */
export async function replaceRepositoryGroups(s: Services, actor: Actor, userId: number, repoId: number, groupUris: string[]): Promise<void> {
  await requirePermission(s, actor, 'manage_repository', repoId);
  const groups = await groupsFromUris(s, groupUris);
  for (const g of groups) {
    if (g.repoId !== repoId) throw errors.notIn('groups', 'group', `repository ${repoId}`);
  }
  const user = await readUser(s, userId);
  await writeTransaction(s, async (trx) => {
    const current = await groupsJoinedBy(trx, user.username, repoId);
    for (const row of current) await setMembership(trx, s, actor, repoId, (JSON.parse(row.json) as Group).group_code, user.username, false);
    for (const g of groups) await setMembership(trx, s, actor, repoId, g.code, user.username, true);
  });
}

/** GET /users/current-user: the caller, with permissions. */
export async function currentUser(s: Services, caller: Actor | null): Promise<User> {
  if (!caller) throw errors.notFoundException();
  const found = await userRecordByName(s.db, caller.username);
  if (!found) throw errors.notFoundException();
  return userJson(s, found.id, { permissions: true });
}

/** GET /users/complete: usernames starting with a prefix (at most 50). */
export async function completeUsernames(s: Services, query: string): Promise<string[]> {
  const prefix = query.toLowerCase().replace(/[%_\\]/g, '');
  return usernamesStartingWith(s.db, prefix, 50);
}
