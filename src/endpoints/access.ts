import type { Knex } from 'knex';
import { GLOBAL_REPO_ID } from '../registry';
import { ADMINISTRATORS, setMembership } from '../operations/groups';
import { PERMISSIONS } from '../access/permission-table';
import { can } from '../access/permissions';
import { deleteSession, repointSession } from '../access/sessions';
import { decorateUsers, normaliseUsername, setPassword, userRecordByName } from '../operations/users';
import { ApiError, errors } from '../errors';
import type { Actor, Services } from '../operations/context';
import { createRecord, deleteRecord, updateRecord } from '../operations/write';
import { getRecordJson, listAll } from '../operations/read';
import { readRecord } from '../operations/load';
import { Where } from '../operations/context';
import type { Obj } from '../json';
import { prepareRecord } from '../validation';
import { paginatedListing } from './records';
import { Call, Endpoint, json } from './types';

const id = { name: 'id', type: 'integer', required: true } as const;
const withMembers = { name: 'with_members', type: 'boolean', default: true } as const;

function groupWhere(call: Call): Where {
  return { type: call.s.registry.type('group'), repoId: call.repoId };
}

function userWhere(s: Services): Where {
  return { type: s.registry.type('user') };
}

async function requirePermission(call: Call, code: string, repoId?: number): Promise<void> {
  if (!(await can(call.s, call.actor, code, repoId))) throw errors.accessDenied();
}

/** Reads a user record or answers the reference's "User wasn't found". */
async function readUser(s: Services, userId: number, db?: Knex | Knex.Transaction): Promise<Obj> {
  try {
    return await readRecord(s, userWhere(s), userId, db);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw errors.userNotFound();
    throw err;
  }
}

async function userJson(s: Services, userId: number, options: { permissions?: boolean; repoId?: number } = {}) {
  const user = await readUser(s, userId);
  await decorateUsers(s, [user], options);
  return user;
}

/** Group URIs (/repositories/R/groups/N) → the groups, each checked to exist. */
async function groupsFromUris(s: Services, uris: string[]) {
  const groups = [];
  for (const uri of uris) {
    const m = /^\/repositories\/(\d+)\/groups\/(\d+)$/.exec(uri);
    if (!m) throw errors.params({ groups: [`Failed validation -- not a group URI: ${uri}`] });
    const repoId = Number(m[1]);
    const record = await readRecord(s, { type: s.registry.type('group'), repoId }, Number(m[2]));
    groups.push({ repoId, code: record.group_code as string });
  }
  return groups;
}

function groupEndpoints(): Endpoint[] {
  const base = '/repositories/:repo_id/groups';
  return [
    {
      method: 'post', path: base, body: 'group', permission: 'manage_repository', summary: 'Create a group',
      handle: async (call) => json(await createRecord(call.s, call.actor!, groupWhere(call), call.body!.record, call.body!.warnings)),
    },
    {
      method: 'get', path: base, permission: 'manage_repository', summary: 'List the groups of a repository (without members)',
      params: [{ name: 'group_code', type: 'string' }],
      handle: async (call) => {
        const groups: Obj[] = JSON.parse(await listAll(call.s, groupWhere(call), {}));
        const code = call.params.group_code as string | undefined;
        return json(
          groups
            .filter((g) => code === undefined || g.group_code === code)
            .map(({ member_usernames: _members, ...group }) => group),
        );
      },
    },
    {
      method: 'get', path: `${base}/:id`, permission: 'manage_repository', params: [id, withMembers], summary: 'Get a group', errors: ['NotFound'],
      handle: async (call) => {
        const group = JSON.parse(await getRecordJson(call.s, groupWhere(call), call.params.id));
        if (!call.params.with_members) delete group.member_usernames;
        return json(group);
      },
    },
    {
      method: 'post', path: `${base}/:id`, body: 'group', permission: 'manage_repository', params: [id, withMembers], errors: ['NotFound', 'Conflict'],
      summary: 'Update a group (grants always replaced; members replaced unless with_members=false)',
      handle: async (call) => {
        const body = call.body!.record;
        if (!call.params.with_members) {
          const current = await readRecord(call.s, groupWhere(call), call.params.id);
          body.member_usernames = current.member_usernames ?? [];
        }
        return json(await updateRecord(call.s, call.actor!, groupWhere(call), call.params.id, body, call.body!.warnings));
      },
    },
    {
      method: 'delete', path: `${base}/:id`, permission: 'manage_repository', params: [id], summary: 'Delete a group', errors: ['NotFound', 'Conflict'],
      handle: async (call) => json(await deleteRecord(call.s, groupWhere(call), call.params.id)),
    },
  ];
}

async function setAdmin(trx: Knex.Transaction, s: Services, actor: Actor, username: string, admin: boolean) {
  await setMembership(trx, s, actor, GLOBAL_REPO_ID, ADMINISTRATORS, username, admin);
}

function userEndpoints(): Endpoint[] {
  return [
    {
      method: 'post', path: '/users', body: 'user', permission: null,
      params: [{ name: 'password', type: 'string', required: true }, { name: 'groups', type: 'string[]', default: [] }],
      summary: 'Create a user (is_admin needs administer_system; each group needs manage_repository there)',
      handle: async (call) => {
        const { s } = call;
        const record = call.body!.record;
        const wantsAdmin = record.is_admin === true;
        if (wantsAdmin) await requirePermission(call, 'administer_system');
        const groups = await groupsFromUris(s, call.params.groups);
        for (const g of groups) await requirePermission(call, 'manage_repository', g.repoId);
        const username = normaliseUsername(String(record.username));
        const actor = call.actor ?? { username };
        const result = await s.db.transaction(async (trx) => {
          const created = await createRecord(s, actor, userWhere(s), record, call.body!.warnings, { trx });
          await setPassword(trx, username, created.id, call.params.password);
          if (wantsAdmin) await setAdmin(trx, s, actor, username, true);
          for (const g of groups) await setMembership(trx, s, actor, g.repoId, g.code, username, true);
          return created;
        });
        return json(result);
      },
    },
    {
      method: 'get', path: '/users', permission: null, paginated: true, summary: 'List users',
      handle: (call) => paginatedListing(call, userWhere(call.s), (users) => decorateUsers(call.s, users)),
    },
    {
      method: 'get', path: '/users/current-user', permission: null, summary: 'The calling user, with permissions', errors: ['NotFound'],
      handle: async (call) => {
        if (!call.actor) throw errors.notFoundException();
        const found = await userRecordByName(call.s.db.knex, call.actor.username);
        if (!found) throw errors.notFoundException();
        return json(await userJson(call.s, found.id, { permissions: true }));
      },
    },
    {
      method: 'get', path: '/users/complete', permission: null, params: [{ name: 'query', type: 'string', required: true }],
      summary: 'Usernames starting with a prefix',
      handle: async (call) => {
        const prefix = String(call.params.query).toLowerCase().replace(/[%_\\]/g, '');
        const rows = await call.s.db.knex('credentials').where('username', 'like', `${prefix}%`).orderBy('username').limit(50).select('username');
        return json(rows.map((r: { username: string }) => r.username));
      },
    },
    {
      method: 'get', path: '/users/:id', permission: 'manage_users', params: [id], summary: 'Get a user, with permissions', errors: ['NotFound'],
      handle: async (call) => json(await userJson(call.s, call.params.id, { permissions: true })),
    },
    {
      method: 'post', path: '/users/:id', body: 'user', permission: null, errors: ['NotFound', 'Conflict'],
      params: [id, { name: 'password', type: 'string' }],
      summary: 'Update a user (yourself, or anyone with manage_users)',
      handle: async (call) => {
        const { s } = call;
        const current = await readUser(s, call.params.id);
        const record = call.body!.record;
        const self = call.actor?.username === current.username;
        const mayAdminister = await can(s, call.actor, 'administer_system');
        if (!self) {
          await requirePermission(call, 'manage_users');
          if (record.is_admin === true && !mayAdminister) throw errors.accessDenied();
        }
        const username = normaliseUsername(String(record.username));
        if (username !== current.username) {
          throw errors.conflictOnSave({ username: ['cannot be changed; create a new user instead'] });
        }
        const actor = call.actor!;
        const result = await s.db.transaction(async (trx) => {
          const updated = await updateRecord(s, actor, userWhere(s), call.params.id, record, call.body!.warnings, { trx });
          if (call.params.password) await setPassword(trx, username, call.params.id, call.params.password);
          if (!self && mayAdminister && typeof record.is_admin === 'boolean') await setAdmin(trx, s, actor, username, record.is_admin);
          return updated;
        });
        return json(result);
      },
    },
    {
      method: 'delete', path: '/users/:id', permission: 'manage_users', params: [id], summary: 'Delete a user', errors: ['NotFound', 'Conflict'],
      handle: async (call) => {
        const { s } = call;
        const user = await readUser(s, call.params.id);
        if (user.is_system_user) throw errors.accessDenied();
        await s.db.transaction(async (trx) => {
          const memberships = await trx('group_members as m').join('records as r', 'r.rid', 'm.group_rid')
            .where('m.username', user.username).select('m.repo_id', 'r.json');
          for (const m of memberships) {
            await setMembership(trx, s, call.actor!, Number(m.repo_id), JSON.parse(m.json).group_code, user.username, false);
          }
          await trx('credentials').where({ username: user.username }).delete();
          await trx('sessions').where({ username: user.username }).delete();
          await deleteRecord(s, userWhere(s), call.params.id, { trx });
        });
        return json({ status: 'Deleted', id: call.params.id });
      },
    },
    ...(['activate', 'deactivate'] as const).map((verb): Endpoint => ({
      method: 'get', path: `/users/:id/${verb}`, permission: 'manage_users', params: [id], errors: ['NotFound'],
      summary: `${verb === 'activate' ? 'Allow' : 'Stop'} a user's logins`,
      handle: async (call) => {
        const { s } = call;
        const user = await readUser(s, call.params.id);
        if (user.is_system_user) throw errors.userNotFound();
        const { record, warnings } = prepareRecord(s.registry, s.enums, 'user', { ...user, is_active_user: verb === 'activate' });
        await updateRecord(s, call.actor!, userWhere(s), call.params.id, record, warnings);
        if (verb === 'deactivate') await s.db.knex('sessions').where({ username: user.username }).delete();
        return json(await userJson(s, call.params.id, { permissions: true }));
      },
    })),
    {
      method: 'post', path: '/users/:id/password', permission: null, params: [id, { name: 'password', type: 'string', required: true }], errors: ['NotFound'],
      summary: 'Change your own password (ends the calling session)',
      handle: async (call) => {
        const { s } = call;
        const user = call.actor ? await readUser(s, call.params.id) : undefined;
        if (!user || user.username !== call.actor!.username) throw errors.accessDenied();
        await setPassword(s.db.knex, user.username, call.params.id, call.params.password);
        if (call.token) await deleteSession(s.db.knex, call.token);
        return json({ success: 'password updated' });
      },
    },
    {
      method: 'post', path: '/users/:username/become-user', permission: 'become_user', params: [{ name: 'username', type: 'string', required: true }], errors: ['NotFound'],
      summary: 'Make the current session belong to another user',
      handle: async (call) => {
        const found = await userRecordByName(call.s.db.knex, normaliseUsername(call.params.username));
        if (!found || !call.token) throw errors.notFoundException();
        await repointSession(call.s.db.knex, call.token, found.record.username);
        return json({ session: call.token, user: await userJson(call.s, found.id, { permissions: true }) });
      },
    },
    {
      method: 'post', path: '/users/:id/groups', permission: null, errors: ['NotFound'],
      params: [id, { name: 'groups', type: 'string[]', default: [] }, { name: 'remove_groups', type: 'boolean', required: true },
        { name: 'repo_id', type: 'integer', required: true }],
      summary: "Replace a user's memberships in one repository",
      handle: async (call) => {
        const { s } = call;
        const repoId = call.params.repo_id as number;
        // The original skips every check when groups[] is empty; here the repository's manager is always needed.
        await requirePermission(call, 'manage_repository', repoId);
        const groups = await groupsFromUris(s, call.params.groups);
        for (const g of groups) {
          if (g.repoId !== repoId) throw errors.params({ groups: [`Failed validation -- group is not in repository ${repoId}`] });
        }
        const user = await readUser(s, call.params.id);
        await s.db.transaction(async (trx) => {
          const current = await trx('group_members as m').join('records as r', 'r.rid', 'm.group_rid')
            .where({ 'm.username': user.username, 'm.repo_id': repoId }).select('r.json');
          for (const row of current) await setMembership(trx, s, call.actor!, repoId, JSON.parse(row.json).group_code, user.username, false);
          for (const g of groups) await setMembership(trx, s, call.actor!, repoId, g.code, user.username, true);
        });
        return json({ status: 'OK' });
      },
    },
    {
      method: 'get', path: '/repositories/:repo_id/users/:id', permission: 'manage_repository', params: [id], errors: ['NotFound'],
      summary: "A user with their groups in this repository",
      handle: async (call) => {
        const user = await userJson(call.s, call.params.id, { repoId: call.repoId });
        delete user.is_admin;
        return json(user);
      },
    },
  ];
}

function permissionEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/permissions', permission: null, summary: 'The permission table',
      params: [{
        name: 'level', type: 'string', required: true,
        check: (v) => (['repository', 'global', 'all'].includes(v) ? undefined : 'Must be one of repository, global, all'),
      }],
      handle: async (call) => {
        const level = call.params.level as string;
        return json(
          PERMISSIONS.map((p, i) => ({ ...p, n: i + 1 }))
            .filter((p) => !p.system && (level === 'all' || p.level === level))
            .map((p) => ({
              permission_code: p.code, description: p.description, level: p.level,
              uri: `/permissions/${p.n}`, jsonmodel_type: 'permission',
            })),
        );
      },
    },
  ];
}

/** Users, groups and permissions: the access domain's routes, in the endpoint table like any other. */
export function accessEndpoints(): Endpoint[] {
  return [...userEndpoints(), ...groupEndpoints(), ...permissionEndpoints()];
}

