import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, STORE } from '../helpers';
import { Server, startServer } from '../processes';

describe(`the started server process (${STORE})`, function () {
  this.timeout(120_000);
  const password = crypto.randomBytes(8).toString('hex');
  const db = freshDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-server-'));
  const env = { DB_URL: STORE === 'sqlite' ? `sqlite://${path.join(dir, 'archive.db')}` : db.dbUrl, ADMIN_PASSWORD: password };
  let server: Server | undefined;
  let token = '';

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${server!.base}${p}`, {
      method, headers: { 'X-ArchivesSpace-Session': token, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, text, body: json };
  };

  before(async () => {
    server = await startServer(env);
  });
  after(async () => {
    server?.child.kill('SIGKILL');
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('logs in with the configured password only', async () => {
    const wrong = await fetch(`${server!.base}/users/admin/login?password=admin`, { method: 'POST' });
    assert.equal(wrong.status, 403);
    const res = await fetch(`${server!.base}/users/admin/login?password=${password}`, { method: 'POST' });
    assert.equal(res.status, 200);
    token = (await res.json()).session;
  });

  it('serves an ArchivesSnake-style session: repository, accessions, subjects, paging, errors', async () => {
    const repo = await call('POST', '/repositories', { repo_code: 'PROC', name: 'Process' });
    assert.deepEqual([repo.status, repo.body.id], [200, 2]);
    const acc = await call('POST', '/repositories/2/accessions', { id_0: 'S1', title: 'Started' });
    assert.equal(acc.status, 200);
    const got = await call('GET', acc.body.uri);
    assert.equal(got.body.title, 'Started');
    const upd = await call('POST', acc.body.uri, { ...got.body, title: 'Restarted' });
    assert.equal(upd.body.lock_version, 1);
    const stale = await call('POST', acc.body.uri, got.body);
    assert.equal(stale.status, 409);
    const subject = await call('POST', '/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Proc', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    assert.equal(subject.status, 200);
    const page = await call('GET', '/repositories/2/accessions?page=1');
    assert.equal(page.body.total, 1);
    assert.equal((await call('GET', '/repositories/2/accessions?page=0')).status, 400);
    assert.match((await call('POST', '/repositories/2/accessions', '{"id_0":')).body.error, /^Had some trouble parsing your request/);
    const saved = token;
    token = 'not-a-session';
    assert.equal((await call('GET', '/version')).status, 412);
    token = saved;
    const del = await call('DELETE', subject.body.uri);
    assert.deepEqual(del.body, { status: 'Deleted', id: subject.body.id });
  });

  it('walks the spec group example: create without lock_version, get, update, stale update refused, delete', async () => {
    const created = await call('POST', '/repositories/2/groups', { jsonmodel_type: 'group', group_code: 'walkers', description: 'Walk-through' });
    assert.deepEqual([created.status, created.body.status, created.body.lock_version], [200, 'Created', 0]);
    const got = await call('GET', created.body.uri);
    assert.equal(got.body.group_code, 'walkers');
    const updated = await call('POST', created.body.uri, { ...got.body, description: 'Walked' });
    assert.deepEqual([updated.status, updated.body.status, updated.body.lock_version], [200, 'Updated', 1]);
    const stale = await call('POST', created.body.uri, { ...got.body, description: 'Too late' });
    assert.deepEqual([stale.status, stale.body], [409, { error: 'The record you tried to update has been modified since you fetched it.' }]);
    const deleted = await call('DELETE', created.body.uri);
    assert.deepEqual(deleted.body, { status: 'Deleted', id: created.body.id });
    assert.equal((await call('GET', created.body.uri)).status, 404);
  });

  it('writes structured request logs that never hold a password or a session token', async () => {
    const lines = server!.output().trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(lines.some((l) => l.msg === 'request' && l.method === 'POST' && l.status === 200 && typeof l.ms === 'number' && l.level === 'info' && /^[\w-]{36}$/.test(l.request_id)));
    assert.equal(server!.output().includes(password), false);
    assert.equal(server!.output().includes(token), false);
  });

  it('stops on SIGTERM and finds its data again after a restart', async () => {
    server!.child.kill('SIGTERM');
    assert.equal(await server!.exited, 0);
    server = await startServer(env);
    const res = await fetch(`${server.base}/users/admin/login?password=${password}`, { method: 'POST' });
    token = (await res.json()).session;
    const got = await call('GET', '/repositories/2/accessions/1');
    assert.equal(got.body.title, 'Restarted');
  });
});
