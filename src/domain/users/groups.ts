import { errors } from '../../errors';
import type { Actor, Services } from '../../records/context';
import type { TypeHooks } from '../../records/context';
import { lookupHash, lookupValue, uniqueKeys } from '../../records/keys';
import { createRecord, updateRecord } from '../../records/write';
import { RecordQueries } from '../../store/records';
import { prepareRecord } from '../../validation';
import type { Group, Repository } from '../../../generated/types';
import { GLOBAL_REPO_ID } from '../../registry';
import { ADMINISTRATOR_GRANTS, DEFAULT_REPOSITORY_GROUPS, PERMISSION_BY_CODE } from '../../access/permission-table';
import { bumpAccessVersion } from '../../access/access-version';
import { deleteGroupMembership, replaceGroupMembership } from '../../store/access';
import { type Handle, type Tx } from '../../store/database';
import { recordByUniqueKey } from '../../store/domain-reads';

export const ADMINISTRATORS = 'administrators';

/** Usernames among `names` that name no user. */
async function unknownUsers(trx: Tx, names: string[]): Promise<string[]> {
  const q = new RecordQueries(trx);
  const missing: string[] = [];
  for (const name of names) {
    const found = await q.findByLookup('user', 0, 'username', [lookupHash(lookupValue(undefined, [name]))]);
    if (!found.length) missing.push(name);
  }
  return missing;
}

/**
 * Group rules (endpoints.md section 5): members must exist, grants come only from the permission
 * table, derived codes are dropped, global codes only in global-repository groups.
 */
/** A repository's side of groups: a new repository gets its default groups (combined with the repository area's own hooks in domain/index.ts). */
export const repositoryGroupHooks: TypeHooks = {
  async afterSave(trx, s, saved) {
    if (saved.created && saved.id !== 1) {
      await createDefaultGroups(trx, s, saved.actor, saved.id, (saved.record as Repository).repo_code);
    }
  },
};

export const groupHooks: TypeHooks = {
  async beforeSave(trx, _s, where, body) {
    const group = body as Group;
    const grants: string[] = [];
    const unknown: string[] = [];
    for (const code of group.grants_permissions ?? []) {
      const def = PERMISSION_BY_CODE.get(code);
      if (!def) unknown.push(code);
      else if (def.impliedBy) continue;
      else if (def.level === 'global' && where.repoId !== GLOBAL_REPO_ID) throw errors.accessDenied();
      else if (!grants.includes(code)) grants.push(code);
    }
    if (unknown.length) {
      // The original answers 500 here; an unknown code is the client's mistake.
      throw errors.unknownPermissionCodes(unknown);
    }
    const members = [...new Set((group.member_usernames ?? []).map((m) => m.trim().toLowerCase()))];
    const missing = await unknownUsers(trx, members);
    if (missing.length) throw errors.unknownUsers(missing);
    group.grants_permissions = grants;
    group.member_usernames = members;
  },

  async derive(trx, _s, saved) {
    const repo_id = saved.where.repoId!;
    const group = saved.record as Group;
    await replaceGroupMembership(trx, saved.rid, repo_id, group.member_usernames ?? [], group.grants_permissions ?? []);
    await bumpAccessVersion(trx);
  },

  async beforeDelete(trx, _s, row) {
    await deleteGroupMembership(trx, row.rid!);
    await bumpAccessVersion(trx);
  },
};

async function createGroup(trx: Tx, s: Services, actor: Actor, repoId: number, body: Group) {
  const { record, warnings } = prepareRecord(s.registry, s.enums, 'group', body);
  return createRecord(s, actor, { type: s.registry.type('group'), repoId }, record, warnings, { trx });
}

export async function createDefaultGroups(trx: Tx, s: Services, actor: Actor, repoId: number, repoCode: string) {
  for (const group of DEFAULT_REPOSITORY_GROUPS) {
    await createGroup(trx, s, actor, repoId, {
      group_code: group.code,
      description: group.description(repoCode),
      grants_permissions: group.grants,
    });
  }
}

/** The rid and record of a group, by its code, in a repository. */
export async function findGroup(db: Handle, s: Services, repoId: number, groupCode: string) {
  const [key] = uniqueKeys(s.registry.type('group'), { group_code: groupCode }, repoId);
  const hit = await recordByUniqueKey(db, 'group', key);
  return hit ? { rid: hit.rid, id: hit.id, record: JSON.parse(hit.json) as Group } : undefined;
}

export async function ensureAdministratorsGroup(trx: Tx, s: Services, actor: Actor) {
  const existing = await findGroup(trx, s, GLOBAL_REPO_ID, ADMINISTRATORS);
  if (existing) return;
  await createGroup(trx, s, actor, GLOBAL_REPO_ID, {
    group_code: ADMINISTRATORS,
    description: 'Administrators',
    member_usernames: ['admin'],
    grants_permissions: ADMINISTRATOR_GRANTS,
  });
}

/** Adds or removes a member of a group, as an update of the group record. */
export async function setMembership(
  trx: Tx, s: Services, actor: Actor, repoId: number, groupCode: string, username: string, member: boolean,
) {
  const group = await findGroup(trx, s, repoId, groupCode);
  if (!group) throw errors.notFound('Group');
  const members = new Set(group.record.member_usernames ?? []);
  if (members.has(username) === member) return;
  if (member) members.add(username);
  else members.delete(username);
  const { record, warnings } = prepareRecord(s.registry, s.enums, 'group', { ...group.record, member_usernames: [...members] });
  await updateRecord(s, actor, { type: s.registry.type('group'), repoId }, group.id, record, warnings, { trx });
}
