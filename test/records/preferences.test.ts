import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';

describe(`preferences (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'PREF', name: 'Prefs' })).body.id;
  });
  after(() => t?.close());

  it('layers the installation, repository and user preferences into the defaults in effect', async () => {
    const global = await t.http.post('/repositories/1/preferences').set(H).send({ defaults: { publish: false, locale: 'en' } });
    assert.equal(global.status, 200, global.text);
    await t.http.post(`/repositories/${repo}/preferences`).set(H).send({ defaults: { publish: true } }).expect(200);
    await t.http.post('/users').query({ password: 'pw' }).set(H).send({ username: 'pref-user', name: 'P' }).expect(200);
    const user = { 'X-ArchivesSpace-Session': (await t.http.post('/users/pref-user/login').query({ password: 'pw' })).body.session };
    const me = (await t.http.get('/users/current-user').set(user)).body;
    const userId = Number(me.uri.split('/').pop());
    const own = await t.http.post(`/repositories/${repo}/preferences`).set(user).send({ user_id: userId, defaults: { locale: 'fr' } });
    assert.equal(own.status, 200, own.text);
    // Someone else's, or the repository's, need manage_repository.
    assert.equal((await t.http.post(`/repositories/${repo}/preferences`).set(user).send({ defaults: { locale: 'de' } })).status, 403);
    assert.equal((await t.http.post(`/repositories/${repo}/preferences`).set(user).send({ user_id: 1, defaults: { locale: 'de' } })).status, 403);
    const defaults = await t.http.get(`/repositories/${repo}/preferences/defaults`).query({ username: 'pref-user' }).set(H);
    assert.deepEqual(defaults.body, { publish: true, locale: 'fr' });
    const current = (await t.http.get(`/repositories/${repo}/current_preferences`).set(user)).body;
    assert.deepEqual(Object.keys(current).sort(), ['defaults', 'global', 'repo', 'user_repo']);
    assert.deepEqual(current.defaults, { publish: true, locale: 'fr' });
    assert.deepEqual((await t.http.get('/current_global_preferences').set(user)).body.defaults, { publish: false, locale: 'en' });
    assert.equal((await t.http.get(`/repositories/${repo}/preferences`).set(H)).body.length, 2);
    assert.equal((await t.http.post(`/repositories/${repo}/preferences`).send({ defaults: {} })).status, 403);
  });
});
