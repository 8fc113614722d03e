import assert from 'node:assert/strict';
import { servedEndpoints } from '../../src/openapi';
import type { Endpoint } from '../../src/records/endpoint';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/** The reference's derived permissions (auth-and-permissions.md 5.3): held everywhere. */
const DERIVED = new Set([
  'update_subject_record', 'delete_subject_record', 'update_agent_record', 'delete_agent_record',
  'view_agent_contact_record_global', 'update_vocabulary_record', 'delete_vocabulary_record', 'update_location_record',
  'update_enumeration_record', 'update_container_profile_record', 'update_location_profile_record',
  'merge_subject_record', 'merge_agent_record',
]);

/**
 * What a repository manager holds: the codes the reference lists for repository-managers
 * (section 6) plus the derived codes those imply by 5.3 (delete_subject_record,
 * delete_agent_record, update_vocabulary_record, delete_vocabulary_record).
 */
const MANAGER_CODES = new Set([
  'manage_repository', 'update_location_record', 'update_subject_record', 'update_agent_record', 'update_accession_record',
  'update_resource_record', 'update_digital_object_record', 'update_event_record', 'delete_event_record', 'update_container_record',
  'update_container_profile_record', 'update_location_profile_record', 'view_repository', 'delete_archival_record',
  'suppress_archival_record', 'manage_subject_record', 'manage_agent_record', 'view_agent_contact_record',
  'view_agent_contact_record_global', 'manage_vocabulary_record', 'manage_rde_templates', 'manage_container_record',
  'manage_container_profile_record', 'manage_location_profile_record', 'import_records', 'cancel_job', 'update_assessment_record',
  'delete_assessment_record', 'manage_assessment_attributes', 'update_enumeration_record', 'manage_enumeration_record',
  'show_full_agents', 'manage_custom_report_templates',
  'delete_subject_record', 'delete_agent_record', 'update_vocabulary_record', 'delete_vocabulary_record',
]);

type Role = 'anonymous' | 'no_group' | 'viewer' | 'manager' | 'admin';
const ROLES: Role[] = ['anonymous', 'no_group', 'viewer', 'manager', 'admin'];

/** Whether the reference lets `role` through the permission check of `endpoint`. */
function expectedAllowed(role: Role, endpoint: Endpoint): boolean {
  const code = endpoint.permission;
  if (code === null) return true;
  // The repository is the path's, or a required repo_id parameter's (merge requests): checked there.
  const inRepo = endpoint.path.includes(':repo_id') || !!endpoint.params?.some((p) => p.name === 'repo_id' && p.required);
  switch (role) {
    case 'anonymous':
    case 'no_group':
      return false;
    case 'viewer':
      return inRepo && code === 'view_repository';
    case 'manager':
      return inRepo ? MANAGER_CODES.has(code) : DERIVED.has(code) && MANAGER_CODES.has(code);
    case 'admin':
      return true;
  }
}

/** Routes that declare no permission but check inside the handler (endpoints.md sections 2-3). */
const HANDLER_CHECKS: Record<string, Partial<Record<Role, number>>> = {
  'POST /users/:id/password': { anonymous: 403 },
  'POST /users/:id/groups': { anonymous: 403, no_group: 403, viewer: 403 },
  // view_repository in the repository of record_uri: the matrix sends no repository URI there.
  // Preferences: the handler checks (a user's own, else manage_repository there).
  'POST /repositories/:repo_id/preferences': { anonymous: 403, no_group: 403, viewer: 403 },
  'POST /repositories/:repo_id/preferences/:id': { anonymous: 403 },
  'GET /date_calculator': { anonymous: 403, no_group: 403, viewer: 403, manager: 403 },
  'GET /extent_calculator': { anonymous: 403, no_group: 403, viewer: 403, manager: 403 },
  // A reset-token login with no token ever given (resets by e-mail are off): Login failed for anyone.
  'POST /users/:username/:token': { anonymous: 403, no_group: 403, viewer: 403, manager: 403, admin: 403 },
};

describe(`access model (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  const tokens: Partial<Record<Role, string>> = {};
  const as = (role: Role) => (tokens[role] ? { 'X-ArchivesSpace-Session': tokens[role]! } : {});

  async function makeUser(username: string, groupCodes: string[]) {
    const groups = [];
    for (const code of groupCodes) {
      const list = await t.http.get(`/repositories/${repo}/groups`).query({ group_code: code }).set(as('admin'));
      groups.push(list.body[0].uri);
    }
    const res = await t.http.post('/users').query({ password: `pw-${username}`, 'groups[]': groups }).set(as('admin'))
      .send({ username, name: username });
    assert.equal(res.status, 200, res.text);
    const login = await t.http.post(`/users/${username}/login`).query({ password: `pw-${username}` });
    assert.equal(login.status, 200, login.text);
    return { id: res.body.id as number, token: login.body.session as string };
  }

  before(async () => {
    t = await startTestApp();
    tokens.admin = await t.adminToken();
    repo = await createRepository(t, 'ACC');
    tokens.no_group = (await makeUser('nobody', [])).token;
    tokens.viewer = (await makeUser('viewer', ['repository-viewers'])).token;
    tokens.manager = (await makeUser('manager', ['repository-managers'])).token;
  });
  after(async () => t.close());

  describe('groups', () => {
    it('walks the spec: create without lock_version, get, update with lock_version, stale refused, delete', async () => {
      const base = `/repositories/${repo}/groups`;
      const created = await t.http.post(base).set(as('admin')).send({
        jsonmodel_type: 'group', group_code: 'cataloguers', description: 'Cataloguers', member_usernames: ['viewer'], grants_permissions: ['view_repository'],
      });
      assert.equal(created.status, 200);
      assert.equal(created.body.status, 'Created');
      assert.equal(created.body.lock_version, 0);
      const got = await t.http.get(created.body.uri).set(as('admin'));
      assert.equal(got.body.group_code, 'cataloguers');
      assert.deepEqual(got.body.member_usernames, ['viewer']);
      const updated = await t.http.post(created.body.uri).set(as('admin')).send({ ...got.body, description: 'Catalogue team' });
      assert.deepEqual([updated.status, updated.body.status, updated.body.lock_version], [200, 'Updated', 1]);
      const stale = await t.http.post(created.body.uri).set(as('admin')).send({ ...got.body, description: 'late' });
      assert.equal(stale.status, 409);
      const deleted = await t.http.delete(created.body.uri).set(as('admin'));
      assert.deepEqual(deleted.body, { status: 'Deleted', id: created.body.id });
      assert.equal((await t.http.get(created.body.uri).set(as('admin'))).status, 404);
    });

    it('creates the six default groups with every new repository, derived codes dropped', async () => {
      const list = await t.http.get(`/repositories/${repo}/groups`).set(as('admin'));
      const codes = list.body.map((g: { group_code: string }) => g.group_code);
      for (const code of ['repository-managers', 'repository-archivists', 'repository-project-managers',
        'repository-advanced-data-entry', 'repository-basic-data-entry', 'repository-viewers']) {
        assert.ok(codes.includes(code), code);
      }
      const managers = list.body.find((g: { group_code: string }) => g.group_code === 'repository-managers');
      assert.ok(managers.grants_permissions.includes('manage_repository'));
      assert.equal(managers.grants_permissions.includes('update_subject_record'), false);
      assert.equal('member_usernames' in managers, false, 'listings leave members out');
    });

    it('keeps group codes unique per repository, ignoring case', async () => {
      const res = await t.http.post(`/repositories/${repo}/groups`).set(as('admin')).send({ group_code: 'Repository-Viewers', description: 'x' });
      assert.deepEqual([res.status, res.body], [400, { error: { group_code: ['Group code must be unique within a repository'] } }]);
    });

    it('refuses unknown members, unknown codes and global codes; drops derived codes', async () => {
      const base = `/repositories/${repo}/groups`;
      const one = await t.http.post(base).set(as('admin')).send({ group_code: 'x1', description: 'x', member_usernames: ['ghost'] });
      assert.deepEqual([one.status, one.body], [400, { error: { member_usernames: ['User ghost does not exist'] } }]);
      const two = await t.http.post(base).set(as('admin')).send({ group_code: 'x1', description: 'x', member_usernames: ['ghost', 'spirit'] });
      assert.deepEqual(two.body, { error: { member_usernames: ['Users ghost, spirit do not exist'] } });
      const unknown = await t.http.post(base).set(as('admin')).send({ group_code: 'x1', description: 'x', grants_permissions: ['fly'] });
      assert.deepEqual([unknown.status, unknown.body], [400, { error: { grants_permissions: ['Unknown permission code: fly'] } }]);
      const global = await t.http.post(base).set(as('admin')).send({ group_code: 'x1', description: 'x', grants_permissions: ['create_repository'] });
      assert.deepEqual([global.status, global.body], [403, { error: 'Access denied' }]);
      const derived = await t.http.post(base).set(as('admin')).send({ group_code: 'x1', description: 'x', grants_permissions: ['view_repository', 'update_subject_record'] });
      assert.equal(derived.status, 200);
      const got = await t.http.get(derived.body.uri).set(as('admin'));
      assert.deepEqual(got.body.grants_permissions, ['view_repository']);
      const none = await t.http.get('/repositories/1/groups').set(as('admin'));
      assert.ok(none.body.some((g: { group_code: string }) => g.group_code === 'administrators'));
    });

    it('answers with_members=false without members and keeps members on such an update', async () => {
      const created = await t.http.post(`/repositories/${repo}/groups`).set(as('admin'))
        .send({ group_code: 'wm', description: 'x', member_usernames: ['viewer'] });
      const slim = await t.http.get(created.body.uri).query({ with_members: false }).set(as('admin'));
      assert.equal('member_usernames' in slim.body, false);
      const upd = await t.http.post(created.body.uri).query({ with_members: false }).set(as('admin')).send({ ...slim.body, description: 'y' });
      assert.equal(upd.status, 200);
      const full = await t.http.get(created.body.uri).set(as('admin'));
      assert.deepEqual(full.body.member_usernames, ['viewer']);
      const bad = await t.http.get(created.body.uri).query({ with_members: 'moo' }).set(as('admin'));
      assert.deepEqual(bad.body, { error: { with_members: ["Wanted type RESTHelpers::BooleanParam but got 'moo'"] } });
    });

    it('grants take effect at once: a new member of a viewers group may read the repository', async () => {
      const other = await createRepository(t, 'LATE');
      const before = await t.http.get(`/repositories/${other}/accessions`).query({ page: 1 }).set(as('no_group'));
      assert.equal(before.status, 403);
      const viewers = await t.http.get(`/repositories/${other}/groups`).query({ group_code: 'repository-viewers' }).set(as('admin'));
      const group = await t.http.get(viewers.body[0].uri).set(as('admin'));
      await t.http.post(viewers.body[0].uri).set(as('admin')).send({ ...group.body, member_usernames: ['nobody'] }).expect(200);
      const after = await t.http.get(`/repositories/${other}/accessions`).query({ page: 1 }).set(as('no_group'));
      assert.equal(after.status, 200);
    });
  });

  describe('users', () => {
    it('lets anyone create a plain user, but only an administrator an admin', async () => {
      const plain = await t.http.post('/users').query({ password: 'secret-1' }).send({ username: 'Plain.User', name: 'P' });
      assert.equal(plain.status, 200);
      assert.equal(plain.body.uri, `/users/${plain.body.id}`);
      const got = await t.http.get(plain.body.uri).set(as('admin'));
      assert.equal(got.body.username, 'plain.user');
      assert.equal(got.body.is_admin, false);
      const admin = await t.http.post('/users').query({ password: 'x' }).set(as('manager')).send({ username: 'boss', name: 'B', is_admin: true });
      assert.deepEqual([admin.status, admin.body], [403, { error: 'Access denied' }]);
      const byAdmin = await t.http.post('/users').query({ password: 'x' }).set(as('admin')).send({ username: 'boss', name: 'B', is_admin: true });
      assert.equal(byAdmin.status, 200);
      assert.equal((await t.http.get(byAdmin.body.uri).set(as('admin'))).body.is_admin, true);
      const dup = await t.http.post('/users').query({ password: 'x' }).send({ username: 'BOSS', name: 'again' });
      assert.deepEqual([dup.status, dup.body], [400, { error: { username: ["Username 'boss' is already in use"] } }]);
      const nopw = await t.http.post('/users').send({ username: 'nopw', name: 'n' });
      assert.deepEqual(nopw.body, { error: { password: ['Parameter required but no value provided'] } });
    });

    it('shows the current user with the reference permissions object; anonymous gets 404 NotFoundException', async () => {
      const anon = await t.http.get('/users/current-user');
      assert.deepEqual([anon.status, anon.body], [404, { error: 'NotFoundException' }]);
      const viewer = await t.http.get('/users/current-user').set(as('viewer'));
      assert.deepEqual(viewer.body.permissions, { [`/repositories/${repo}`]: ['view_repository'], _archivesspace: ['edit_user_self'] });
      const loner = await makeUser('loner', []);
      const nobody = await t.http.get('/users/current-user').set({ 'X-ArchivesSpace-Session': loner.token });
      assert.deepEqual(nobody.body.permissions, { _archivesspace: ['edit_user_self'] });
      const admin = await t.http.get('/users/current-user').set(as('admin'));
      assert.equal(admin.body.is_admin, true);
      assert.ok(admin.body.permissions._archivesspace.includes('administer_system'));
    });

    it('refuses to delete the admin user; deletes others with their memberships', async () => {
      const refuse = await t.http.delete('/users/1').set(as('admin'));
      assert.deepEqual([refuse.status, refuse.body], [403, { error: 'Access denied' }]);
      const temp = await makeUser('temp', ['repository-viewers']);
      const del = await t.http.delete(`/users/${temp.id}`).set(as('admin'));
      assert.deepEqual(del.body, { status: 'Deleted', id: temp.id });
      const viewers = await t.http.get(`/repositories/${repo}/groups`).query({ group_code: 'repository-viewers' }).set(as('admin'));
      const group = await t.http.get(viewers.body[0].uri).set(as('admin'));
      assert.equal(group.body.member_usernames.includes('temp'), false);
      assert.equal((await t.http.get('/users/current-user').set({ 'X-ArchivesSpace-Session': temp.token })).status, 412);
      assert.deepEqual((await t.http.get(`/users/${temp.id}`).set(as('admin'))).body, { error: "User wasn't found" });
    });

    it('deactivated users cannot log in; activated again they can', async () => {
      const u = await makeUser('sleeper', []);
      const off = await t.http.get(`/users/${u.id}/deactivate`).set(as('admin'));
      assert.equal(off.body.is_active_user, false);
      assert.equal((await t.http.post('/users/sleeper/login').query({ password: 'pw-sleeper' })).status, 403);
      await t.http.get(`/users/${u.id}/activate`).set(as('admin')).expect(200);
      assert.equal((await t.http.post('/users/sleeper/login').query({ password: 'pw-sleeper' })).status, 200);
    });

    it('lets a user change their own password only, and ends that session', async () => {
      const u = await makeUser('changer', []);
      const other = await t.http.post(`/users/${u.id}/password`).query({ password: 'new' }).set(as('no_group'));
      assert.equal(other.status, 403);
      const own = await t.http.post(`/users/${u.id}/password`).query({ password: 'brand-new' }).set({ 'X-ArchivesSpace-Session': u.token });
      assert.deepEqual(own.body, { success: 'password updated' });
      assert.equal((await t.http.get('/users/current-user').set({ 'X-ArchivesSpace-Session': u.token })).status, 412);
      assert.equal((await t.http.post('/users/changer/login').query({ password: 'pw-changer' })).status, 403);
      assert.equal((await t.http.post('/users/changer/login').query({ password: 'brand-new' })).status, 200);
    });

    it('become-user re-points the session', async () => {
      const login = await t.http.post('/users/admin/login').query({ password: t.config.adminPassword });
      const res = await t.http.post('/users/viewer/become-user').set({ 'X-ArchivesSpace-Session': login.body.session });
      assert.equal(res.status, 200);
      assert.equal(res.body.session, login.body.session);
      const me = await t.http.get('/users/current-user').set({ 'X-ArchivesSpace-Session': login.body.session });
      assert.equal(me.body.username, 'viewer');
    });

    it('lists the permission table by level; a bad level is 400', async () => {
      const repoLevel = await t.http.get('/permissions').query({ level: 'repository' });
      assert.ok(repoLevel.body.every((p: { level: string }) => p.level === 'repository'));
      const all = await t.http.get('/permissions').query({ level: 'all' });
      const codes = all.body.map((p: { permission_code: string }) => p.permission_code);
      assert.equal(codes.includes('view_all_records'), false, 'system permissions are hidden');
      assert.ok(codes.includes('administer_system'));
      const bad = await t.http.get('/permissions').query({ level: 'cosmic' });
      assert.deepEqual(bad.body, { error: { level: ['Failed validation -- Must be one of repository, global, all'] } });
    });

    it('never stores or answers a password in clear', async () => {
      const password = 'Correct-Horse-Battery-9137';
      const created = await t.http.post('/users').query({ password }).send({ username: 'secretive', name: 'S' });
      const login = await t.http.post('/users/secretive/login').query({ password });
      const responses = [created.text, login.text, (await t.http.get(created.body.uri).set(as('admin'))).text];
      for (const text of responses) assert.equal(text.includes(password), false);
      const knex = t.services.db.knex;
      for (const table of ['records', 'credentials', 'sessions', 'unique_keys', 'lookup_keys', 'change_log']) {
        const rows = await knex(table).select();
        assert.equal(JSON.stringify(rows).includes(password), false, table);
      }
      const cred = await knex('credentials').where({ username: 'secretive' }).first();
      assert.match(cred.password_hash, /^scrypt\$/);
    });
  });

  describe('suppression and publishing', () => {
    it('hides a suppressed record from viewers, keeps it for administrators, refuses updates until unsuppressed', async () => {
      const acc = await t.http.post(`/repositories/${repo}/accessions`).set(as('admin')).send(sampleRecord('accession', repo));
      const denied = await t.http.post(`${acc.body.uri}/suppressed`).query({ suppressed: true }).set(as('viewer'));
      assert.equal(denied.status, 403);
      const res = await t.http.post(`${acc.body.uri}/suppressed`).query({ suppressed: true }).set(as('admin'));
      assert.deepEqual(res.body, { status: 'Suppressed', id: acc.body.id, suppressed_state: true });
      assert.equal((await t.http.get(acc.body.uri).set(as('viewer'))).status, 404);
      const ids = await t.http.get(`/repositories/${repo}/accessions`).query({ all_ids: true }).set(as('viewer'));
      assert.equal(ids.body.includes(acc.body.id), false);
      const seen = await t.http.get(acc.body.uri).set(as('admin'));
      assert.equal(seen.body.suppressed, true);
      const update = await t.http.post(acc.body.uri).set(as('admin')).send(seen.body);
      assert.deepEqual([update.status, update.body], [409, { error: "Can't update an object that has been suppressed" }]);
      await t.http.post(`${acc.body.uri}/suppressed`).query({ suppressed: false }).set(as('admin')).expect(200);
      assert.equal((await t.http.get(acc.body.uri).set(as('viewer'))).status, 200);
      const missing = await t.http.post(`${acc.body.uri}/suppressed`).set(as('admin'));
      assert.deepEqual(missing.body, { error: { suppressed: ['Parameter required but no value provided'] } });
    });

    it('publishes a resource and its whole tree without bumping lock_version', async () => {
      const r = await t.http.post(`/repositories/${repo}/resources`).set(as('admin')).send(sampleRecord('resource', repo));
      const ao = await t.http.post(`/repositories/${repo}/archival_objects`).set(as('admin'))
        .send({ title: 'Leaf', level: 'file', resource: { ref: r.body.uri } });
      const res = await t.http.post(`${r.body.uri}/publish`).set(as('manager'));
      assert.deepEqual(res.body, { status: 'Updated', id: r.body.id, lock_version: 0, stale: null });
      const leaf = await t.http.get(ao.body.uri).set(as('admin'));
      assert.deepEqual([leaf.body.publish, leaf.body.lock_version], [true, 0]);
      await t.http.post(`${r.body.uri}/unpublish`).set(as('manager')).expect(200);
      assert.equal((await t.http.get(ao.body.uri).set(as('admin'))).body.publish, false);
    });
  });

  describe('permission matrix, generated from the endpoint table', function () {
    // About 1,600 calls: a few seconds alone, more than the suite's 20 s when other work shares the cores.
    this.timeout(120_000);
    const endpoints = () => servedEndpoints(t.services.registry);

    function requestFor(endpoint: Endpoint) {
      const path = endpoint.path.replace(/:(\w+)/g, (_, name) => (name === 'repo_id' ? String(repo) : name === 'username' ? 'admin' : '999999'));
      const query: Record<string, unknown> = {};
      for (const p of endpoint.params ?? []) {
        if (!p.required || endpoint.path.includes(`:${p.name}`)) continue;
        const byName: Record<string, unknown> = { password: 'pw', remove_groups: 'true', repo_id: String(repo), level: 'all', query: 'a', page: '1' };
        const byType: Record<string, unknown> = { integer: '0', 'integer[]': ['1'], 'string[]': ['x'], boolean: 'true', string: 'x' };
        query[p.type.endsWith('[]') ? `${p.name}[]` : p.name] = byName[p.name] ?? byType[p.type];
      }
      if (endpoint.paginated) query.page = 1;
      if (endpoint.path === '/users/:username/login') query.password = t.config.adminPassword;
      const body = endpoint.body ? sampleRecord(endpoint.body, repo) : endpoint.rawJsonBody ? {} : undefined;
      return { path, query, body };
    }

    it('answers every endpoint for every role as the reference does (200-range or 4xx after the check; 403 when refused)', async () => {
      const table = endpoints().filter((e) => e.path !== '/logout');
      let checked = 0;
      const mismatches: string[] = [];
      for (const endpoint of table) {
        const key = `${endpoint.method.toUpperCase()} ${endpoint.path}`;
        for (const role of ROLES) {
          const { path, query, body } = requestFor(endpoint);
          let req = t.http[endpoint.method](path).query(query).set(as(role));
          if (body) req = req.send(body);
          if (endpoint.multipart) req = req.field('job', '{}');
          const res = await req;
          checked++;
          const override = HANDLER_CHECKS[key]?.[role];
          const allowed = override === undefined && expectedAllowed(role, endpoint);
          const ok = override !== undefined ? res.status === override : allowed ? res.status !== 403 && res.status < 500 : res.status === 403;
          if (!ok || res.status >= 500) mismatches.push(`${key} as ${role}: ${res.status} ${res.text.slice(0, 120)}`);
        }
      }
      assert.deepEqual(mismatches, []);
      assert.equal(checked, table.length * ROLES.length);
      console.log(`      permission matrix: ${table.length} endpoints x ${ROLES.length} roles = ${checked} calls, 0 mismatches`);
    });

    it('checks the session before anything else and parameters before permissions', async () => {
      const bad = await t.http.post(`/repositories/${repo}/groups`).set({ 'X-ArchivesSpace-Session': 'nope' }).send('{');
      assert.equal(bad.status, 412);
      const anonBadBody = await t.http.post(`/repositories/${repo}/groups`).send({ description: 'no code' });
      assert.equal(anonBadBody.status, 400);
      const anonGood = await t.http.post(`/repositories/${repo}/groups`).send({ group_code: 'ok', description: 'ok' });
      assert.equal(anonGood.status, 403);
    });
  });
});
