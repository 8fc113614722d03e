import { errors } from '../../errors';
import { PERMISSIONS } from '../../access/permission-table';
import type { Where } from '../../records/context';
import { readRecord } from '../../records/load';
import { getRecordJson, listAll } from '../../records/read';
import {
  becomeUser, changeOwnPassword, completeUsernames, createUser, currentUser, deleteUser, replaceRepositoryGroups,
  setUserActive, updateUser, userJson, userWhere,
} from './accounts';
import { decorateUsers } from './users';
import { createRecord, deleteRecord, updateRecord } from '../../records/write';
import type { Group, User } from '../../../generated/types';
import { paginatedListing } from '../../records/routes/records';
import { Call, Endpoint, json } from '../../records/endpoint';

const id = { name: 'id', type: 'integer', required: true } as const;
const withMembers = { name: 'with_members', type: 'boolean', default: true } as const;

function groupWhere(call: Call): Where {
  return { type: call.s.registry.type('group'), repoId: call.repoId };
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
        const groups: Group[] = JSON.parse((await listAll(call.s, groupWhere(call), {})).toString());
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

function userEndpoints(): Endpoint[] {
  return [
    {
      method: 'post', path: '/users', body: 'user', permission: null,
      params: [{ name: 'password', type: 'string', required: true }, { name: 'groups', type: 'string[]', default: [] }],
      summary: 'Create a user (is_admin needs administer_system; each group needs manage_repository there)',
      handle: async (c) => json(await createUser(c.s, c.actor, c.body!.record, c.body!.warnings, c.params.password, c.params.groups)),
    },
    {
      method: 'get', path: '/users', permission: null, paginated: true, summary: 'List users',
      handle: (call) => paginatedListing(call, userWhere(call.s), (users) => decorateUsers(call.s, users as User[])),
    },
    {
      method: 'get', path: '/users/current-user', permission: null, summary: 'The calling user, with permissions', errors: ['NotFound'],
      handle: async (c) => json(await currentUser(c.s, c.actor)),
    },
    {
      method: 'get', path: '/users/complete', permission: null, params: [{ name: 'query', type: 'string', required: true }],
      summary: 'Usernames starting with a prefix',
      handle: async (c) => json(await completeUsernames(c.s, String(c.params.query))),
    },
    {
      method: 'get', path: '/users/:id', permission: 'manage_users', params: [id], summary: 'Get a user, with permissions', errors: ['NotFound'],
      handle: async (c) => json(await userJson(c.s, c.params.id, { permissions: true })),
    },
    {
      // Before /users/:id, which would take "reset-password" for an id.
      method: 'post', path: '/users/reset-password', permission: null, params: [{ name: 'email', type: 'string', required: true }],
      summary: 'Request a password reset e-mail: off here, as the original\'s default (allow_password_reset), so always 400 NotAllowed',
      handle: async () => { throw errors.passwordResetOff(); },
    },
    {
      method: 'post', path: '/users/:id', body: 'user', permission: null, errors: ['NotFound', 'Conflict'],
      params: [id, { name: 'password', type: 'string' }],
      summary: 'Update a user (yourself, or anyone with manage_users)',
      handle: async (c) => json(await updateUser(c.s, c.actor, c.params.id, c.body!.record, c.body!.warnings, c.params.password)),
    },
    {
      method: 'delete', path: '/users/:id', permission: 'manage_users', params: [id], summary: 'Delete a user', errors: ['NotFound', 'Conflict'],
      handle: async (c) => json(await deleteUser(c.s, c.actor!, c.params.id)),
    },
    ...(['activate', 'deactivate'] as const).map((verb): Endpoint => ({
      method: 'get', path: `/users/:id/${verb}`, permission: 'manage_users', params: [id], errors: ['NotFound'],
      summary: `${verb === 'activate' ? 'Allow' : 'Stop'} a user's logins`,
      handle: async (c) => json(await setUserActive(c.s, c.actor!, c.params.id, verb === 'activate')),
    })),
    {
      method: 'post', path: '/users/:id/password', permission: null, params: [id, { name: 'password', type: 'string', required: true }], errors: ['NotFound'],
      summary: 'Change your own password (ends the calling session)',
      handle: async (c) => {
        await changeOwnPassword(c.s, c.actor, c.params.id, c.params.password, c.token);
        return json({ success: 'password updated' });
      },
    },
    {
      method: 'post', path: '/users/:username/become-user', permission: 'become_user', params: [{ name: 'username', type: 'string', required: true }], errors: ['NotFound'],
      summary: 'Make the current session belong to another user',
      handle: async (c) => json(await becomeUser(c.s, c.token, c.params.username)),
    },
    {
      method: 'post', path: '/users/:id/groups', permission: null, errors: ['NotFound'],
      params: [id, { name: 'groups', type: 'string[]', default: [] }, { name: 'remove_groups', type: 'boolean', required: true },
        { name: 'repo_id', type: 'integer', required: true }],
      summary: "Replace a user's memberships in one repository",
      handle: async (c) => {
        await replaceRepositoryGroups(c.s, c.actor!, c.params.id, c.params.repo_id, c.params.groups);
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

/**
 * POST /users/:username/:token, the login with a password-reset token: no such tokens are ever
 * given here (resets by e-mail are off), so every one fails as a wrong token does in the
 * original. Last among the users' routes: it takes any two-segment POST under /users.
 */
const tokenLogin: Endpoint = {
  method: 'post', path: '/users/:username/:token', permission: null, errors: ['AccessDenied'],
  params: [{ name: 'username', type: 'string', required: true }, { name: 'token', type: 'string', required: true }],
  summary: 'Log in with a password-reset token (none are given here: always 403 Login failed)',
  handle: async () => { throw errors.loginFailed(); },
};

/** Users, groups and permissions: the access domain's routes, in the endpoint table like any other. */
export function accessEndpoints(): Endpoint[] {
  return [...userEndpoints(), ...groupEndpoints(), ...permissionEndpoints(), tokenLogin];
}

