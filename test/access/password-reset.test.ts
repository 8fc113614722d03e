import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';

/** Password resets by e-mail are off, as the original's default: the two routes answer as it does then. */
describe(`password resets (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;

  before(async () => { t = await startTestApp(); });
  after(() => t?.close());

  it('refuses a reset request with NotAllowed and every reset-token login with Login failed, leaving the other user routes alone', async () => {
    const reset = await t.http.post('/users/reset-password').query({ email: 'admin@example.org' });
    assert.equal(reset.status, 400, reset.text);
    assert.deepEqual(reset.body, { error: 'NotAllowed' });
    assert.deepEqual((await t.http.post('/users/reset-password')).body, { error: { email: ['Parameter required but no value provided'] } });
    const token = await t.http.post('/users/admin/0123456789abcdef');
    assert.equal(token.status, 403, token.text);
    assert.deepEqual(token.body, { error: 'Login failed' });
    // The routes it shares a shape with still answer as before.
    const login = await t.http.post('/users/admin/login').query({ password: t.config.adminPassword });
    assert.equal(login.status, 200, login.text);
    const H = { 'X-ArchivesSpace-Session': login.body.session };
    assert.equal((await t.http.post('/users/1/groups').query({ repo_id: 1, remove_groups: false }).set(H)).status, 200);
  });
});
