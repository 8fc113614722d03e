import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sampleRecord } from '../fixtures';
import { freshDatabase, STORE } from '../helpers';
import { Server, startServer } from '../processes';
import { type Receiver, startReceiver, until } from './receiver';

/** At least once across a crash: a server killed while a delivery is in flight sends it again after a restart. */
describe(`webhooks across a crash (${STORE})`, function () {
  this.timeout(120_000);
  const secret = 'crash-test-secret-of-length';
  const password = crypto.randomBytes(8).toString('hex');
  const db = freshDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-webhooks-'));
  const env = {
    DB_URL: STORE === 'sqlite' ? `sqlite://${path.join(dir, 'archive.db')}` : db.dbUrl,
    SEARCH_PATH: path.join(dir, 'search.db'),
    ADMIN_PASSWORD: password,
    WEBHOOK_LEASE_SECONDS: '2',
    WEBHOOK_POLL_MS: '100',
    WEBHOOK_TIMEOUT_MS: '60000',
  };
  let server: Server | undefined;
  let receiver: Receiver | undefined;
  let token = '';

  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${server!.base}${p}`, {
      method, headers: { ...(token ? { 'X-ArchivesSpace-Session': token } : {}), 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  after(async () => {
    server?.child.kill('SIGKILL');
    await receiver?.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('delivers again, after a restart, the event whose delivery the killed server had in flight', async () => {
    receiver = await startReceiver(secret);
    receiver.answer = () => 0;
    server = await startServer(env);
    token = (await call('POST', `/users/admin/login?password=${password}`)).body.session;
    const repo = await call('POST', '/repositories', { repo_code: 'CRASH', name: 'Crash' });
    assert.equal(repo.status, 200);
    const sub = await call('POST', '/webhooks/subscriptions', { url: receiver.url, secret, record_types: ['accession'] });
    assert.equal(sub.status, 200);
    const created = await call('POST', `/repositories/${repo.body.id}/accessions`, { ...sampleRecord('accession', repo.body.id), title: 'in flight' });
    assert.equal(created.status, 200);
    await until(() => receiver!.all.some((x) => x.event.uri === created.body.uri), 'the delivery in flight');

    server.child.kill('SIGKILL');
    await server.exited;
    receiver.answer = () => 200;
    server = await startServer(env);
    await until(() => receiver!.accepted().some((e) => e.uri === created.body.uri), 'the delivery again after the restart', 30_000);
    const received = receiver.all.filter((x) => x.event.uri === created.body.uri);
    assert.ok(received.length >= 2);
    assert.equal(new Set(received.map((x) => x.event.id)).size, 1, 'the same event');
    assert.equal(received[0].event.kind, 'create');
  });
});
