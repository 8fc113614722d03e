import assert from 'node:assert/strict';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

describe(`login and sessions (${STORE})`, () => {
  let t: TestApp;
  let repo: number;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'SESS');
  });
  after(async () => t.close());

  const login = (query: Record<string, string>, user = 'admin') => t.http.post(`/users/${user}/login`).query(query);

  it('logs in with the password as a query parameter or a form field', async () => {
    const q = await login({ password: 'admin' });
    assert.equal(q.status, 200);
    assert.match(q.body.session, /^[0-9a-f]{64}$/);
    assert.equal(q.body.user.username, 'admin');
    assert.equal('expire_after_seconds' in q.body, false);
    const form = await t.http.post('/users/admin/login').type('form').send({ password: 'admin' });
    assert.equal(form.status, 200);
    assert.notEqual(form.body.session, q.body.session);
    const upper = await login({ password: 'admin' }, 'ADMIN');
    assert.equal(upper.status, 200);
    const lasting = await login({ password: 'admin', expiring: 'false' });
    assert.equal(lasting.body.expire_after_seconds, 604800);
  });

  it('refuses bad logins with the reference answers, the same for unknown users', async () => {
    assert.deepEqual((await login({ password: 'wrong' })).body, { error: 'Login failed' });
    const unknown = await login({ password: 'admin' }, 'nobody-here');
    assert.deepEqual([unknown.status, unknown.body], [403, { error: 'Login failed' }]);
    const missing = await t.http.post('/users/admin/login');
    assert.deepEqual([missing.status, missing.body], [400, { error: { password: ['Parameter required but no value provided'] } }]);
    const badFlag = await login({ password: 'admin', expiring: 'moo' });
    assert.deepEqual(badFlag.body, { error: { expiring: ["Wanted type RESTHelpers::BooleanParam but got 'moo'"] } });
    const badName = await login({ password: 'admin' }, 'a%21b');
    assert.deepEqual([badName.status, badName.body], [400, { error: 'Invalid username' }]);
    const jsonBody = await t.http.post('/users/admin/login').send({ password: 'admin' });
    assert.equal(jsonBody.status, 400, 'the password is not read from a JSON body');
  });

  it('accepts the token under every session header name', async () => {
    const token = (await login({ password: 'admin' })).body.session;
    for (const header of ['X-Archive-Session', 'X-ArchivesSpace-Session', 'X_ARCHIVESSPACE_SESSION']) {
      const res = await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1 }).set(header, token);
      assert.equal(res.status, 200, header);
    }
  });

  it('answers an unknown or empty token with 412 SESSION_GONE before anything else, without a trailing newline', async () => {
    for (const path of ['/', '/version', '/nowhere', `/repositories/${repo}/accessions`]) {
      const res = await t.http.get(path).set('X-ArchivesSpace-Session', 'abc');
      assert.equal(res.status, 412, path);
      assert.equal(res.text, '{"code":"SESSION_GONE","error":"No session found for abc"}');
    }
    const empty = await t.http.get('/version').set('X-ArchivesSpace-Session', '');
    assert.equal(empty.text, '{"code":"SESSION_GONE","error":"No session found for "}');
  });

  it('expires an idle session with 412 SESSION_EXPIRED, then SESSION_GONE', async () => {
    const token: string = (await login({ password: 'admin' })).body.session;
    await t.services.db.knex('sessions').update({ last_active_ms: Date.now() - 2 * 3600 * 1000 });
    const expired = await t.http.get('/version').set('X-ArchivesSpace-Session', token);
    assert.deepEqual([expired.status, expired.text], [412, `{"code":"SESSION_EXPIRED","error":"Session timed out for ${token}"}`]);
    const again = await t.http.get('/version').set('X-ArchivesSpace-Session', token);
    assert.equal(JSON.parse(again.text).code, 'SESSION_GONE');
  });

  it('keeps a non-expiring session past the idle limit', async () => {
    const token: string = (await login({ password: 'admin', expiring: 'false' })).body.session;
    await t.services.db.knex('sessions').where({ expiring: false }).update({ last_active_ms: Date.now() - 2 * 3600 * 1000 });
    assert.equal((await t.http.get('/version').set('X-ArchivesSpace-Session', token)).status, 200);
  });

  it('logs out', async () => {
    const token = (await login({ password: 'admin' })).body.session;
    const out = await t.http.post('/logout').set('X-ArchivesSpace-Session', token);
    assert.deepEqual(out.body, { status: 'session_logged_out' });
    assert.equal((await t.http.get('/version').set('X-ArchivesSpace-Session', token)).status, 412);
    assert.deepEqual((await t.http.post('/logout')).body, { status: 'no_active_session' });
  });

  it('lets anonymous callers read global records but nothing in a repository, and write nothing', async () => {
    for (const path of ['/repositories', '/subjects?page=1', '/vocabularies', '/locations?page=1', '/location_profiles?page=1', '/container_profiles?page=1']) {
      assert.equal((await t.http.get(path)).status, 200, path);
    }
    assert.equal((await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1 })).status, 403);
    assert.deepEqual((await t.http.post('/subjects').send({
      source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'x', term_type: 'topical', vocabulary: '/vocabularies/1' }],
    })).body, { error: 'Access denied' });
    assert.equal((await t.http.post('/repositories').send({ repo_code: 'X', name: 'X' })).status, 403);
    assert.equal((await t.http.delete(`/repositories/${repo}`)).status, 403);
  });

  it('checks parameters and bodies before permissions for anonymous callers', async () => {
    assert.equal((await t.http.get(`/repositories/${repo}/accessions`)).status, 400);
    assert.equal((await t.http.post(`/repositories/${repo}/accessions`).send({ title: 'no id' })).status, 400);
    assert.equal((await t.http.get('/repositories/4242/accessions').query({ page: 1 })).status, 400);
  });

  it('stores only password hashes and token digests', async () => {
    const token: string = (await login({ password: 'admin' })).body.session;
    const sessions = JSON.stringify(await t.services.db.knex('sessions').select());
    assert.equal(sessions.includes(token), false);
    const cred = await t.services.db.knex('credentials').where({ username: 'admin' }).first();
    assert.match(cred.password_hash, /^scrypt\$/);
    assert.equal(cred.password_hash.includes('admin'), false);
  });
});
