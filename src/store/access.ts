/** Who may do what: group members and grants, and the version that tells every process they changed. */
import { type Handle, readsOf, sqlOf, type Tx } from './database';

/**
 * Called in the transaction of any change to who may do what: a group's members or grants, a
 * session ended or handed to another user, a user or a repository deleted, a preference saved or
 * deleted. Every process's AccessCache (access/cache.ts) drops what it kept when it sees the
 * version move.
 */
export async function bumpAccessVersion(h: Handle): Promise<void> {
  await sqlOf(h)('access_version').where({ id: 1 }).increment('version', 1);
}

/** The permissions a user holds through its groups, by repository id (distinct pairs). */
export async function grantRowsOf(h: Handle, username: string): Promise<Array<{ repo_id: number; permission: string }>> {
  return readsOf(h)('group_members as m')
    .join('group_grants as g', 'g.group_rid', 'm.group_rid')
    .where('m.username', username)
    .distinct('g.repo_id', 'g.permission');
}

/** The URIs of the groups of each of `usernames` (optionally in one repository), ordered by URI. */
export async function groupUrisOfUsers(h: Handle, usernames: string[], repoId?: number): Promise<Array<{ username: string; uri: string }>> {
  const query = readsOf(h)('group_members as m').join('records as r', 'r.rid', 'm.group_rid').whereIn('m.username', usernames);
  if (repoId !== undefined) query.andWhere('m.repo_id', repoId);
  return query.select('m.username', 'r.uri').orderBy('r.uri');
}

/** The groups a user is a member of (optionally in one repository): each one's repository and record. */
export async function groupsJoinedBy(h: Handle, username: string, repoId?: number): Promise<Array<{ repo_id: number; json: string }>> {
  const query = readsOf(h)('group_members as m').join('records as r', 'r.rid', 'm.group_rid');
  query.where(repoId === undefined ? { 'm.username': username } : { 'm.username': username, 'm.repo_id': repoId });
  return query.select('m.repo_id', 'r.json');
}

/** A group's members and grants are these now (the group record says so; these rows answer who holds what). */
export async function replaceGroupMembership(trx: Tx, groupRid: number, repoId: number, members: string[], grants: string[]): Promise<void> {
  await deleteGroupMembership(trx, groupRid);
  if (members.length) await trx('group_members').insert(members.map((username) => ({ group_rid: groupRid, repo_id: repoId, username })));
  if (grants.length) await trx('group_grants').insert(grants.map((permission) => ({ group_rid: groupRid, repo_id: repoId, permission })));
}

export async function deleteGroupMembership(trx: Tx, groupRid: number): Promise<void> {
  await trx('group_members').where({ group_rid: groupRid }).delete();
  await trx('group_grants').where({ group_rid: groupRid }).delete();
}
