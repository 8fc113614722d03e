import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, STORE } from '../helpers';
import { Server, startServer } from '../processes';

/** One request on a connection of its own, so the cluster's round robin spreads them over its processes. */
function request(base: string, method: string, p: string, headers: Record<string, string> = {}, body?: unknown) {
  return new Promise<{ status: number; body: any; id: string }>((resolve, reject) => {
    const id = crypto.randomBytes(6).toString('hex');
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(`${base}${p}`, {
      method, agent: false, headers: { 'X-Request-Id': id, 'Content-Type': 'application/json', ...headers },
    }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let json: any;
        try { json = JSON.parse(text); } catch { json = text; }
        resolve({ status: res.statusCode!, body: json, id });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`WORKERS=2: two server processes on one port (${STORE})`, function () {
  this.timeout(180_000);
  const password = crypto.randomBytes(8).toString('hex');
  const db = freshDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-workers-'));
  const env = {
    DB_URL: STORE === 'sqlite' ? `sqlite://${path.join(dir, 'archive.db')}` : db.dbUrl, ADMIN_PASSWORD: password,
    WORKERS: '2', LOGIN_MAX_FAILURES: '4',
  };
  let server: Server;
  let admin: Record<string, string>;
  const listening = () => (server.output().match(/"msg":"listening"/g) ?? []).length;
  /** The process that answered a request, from its request log line. */
  const pidOf = (id: string) => new RegExp(`"pid":(\\d+)[^\\n]*"request_id":"${id}"|"request_id":"${id}"[^\\n]*"pid":(\\d+)`).exec(server.output())?.slice(1).find(Boolean);

  before(async () => {
    server = await startServer(env);
    for (let i = 0; i < 100 && listening() < 2; i++) await sleep(100);
    assert.equal(listening(), 2, server.output());
    const login = await request(server.base, 'POST', `/users/admin/login?password=${password}`);
    admin = { 'X-ArchivesSpace-Session': login.body.session };
  });
  after(async () => {
    server?.child.kill('SIGKILL');
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers from both processes, with one store: a session and a record made through one are known to the other', async () => {
    const repo = await request(server.base, 'POST', '/repositories', admin, { repo_code: 'W', name: 'Workers' });
    assert.equal(repo.status, 200, JSON.stringify(repo.body));
    const pids = new Set<string>();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const made = await request(server.base, 'POST', `/repositories/${repo.body.id}/accessions`, admin, { id_0: `W-${i}`, title: `Accession ${i}` });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const read = await request(server.base, 'GET', made.body.uri, admin);
      assert.equal(read.body.title, `Accession ${i}`);
      // A listing's total is kept by each process until the next write anywhere: both see this one.
      for (let k = 0; k < 2; k++) {
        const listed = await request(server.base, 'GET', `/repositories/${repo.body.id}/accessions?page=1&page_size=5`, admin);
        assert.equal(listed.body.total, i + 1);
      }
      ids.push(made.id, read.id);
    }
    await sleep(300); // request lines are logged once the answer is sent
    for (const id of ids) pids.add(pidOf(id) ?? '?');
    assert.equal([...pids].filter((p) => p !== '?').length, 2, `answered by ${[...pids].join(', ')}`);
    // The search index is one for both: what either wrote is found (the indexer's lease holder hears of every commit).
    let hits = 0;
    let answer: unknown;
    for (let i = 0; i < 50 && hits < 12; i++) {
      const found = await request(server.base, 'GET', `/repositories/${repo.body.id}/search?page=1&q=Accession&type[]=accession`, admin);
      answer = { status: found.status, body: found.body };
      hits = found.body.total_hits;
      if (hits < 12) await sleep(100);
    }
    assert.equal(hits, 12, JSON.stringify(answer));
  });

  it('resolve[] answers with a linked record as last written through either process', async () => {
    const repo = (await request(server.base, 'POST', '/repositories', admin, { repo_code: 'L', name: 'Linked' })).body.id;
    const subject = await request(server.base, 'POST', '/subjects', admin, { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Rivers 0', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    assert.equal(subject.status, 200, JSON.stringify(subject.body));
    const acc = await request(server.base, 'POST', `/repositories/${repo}/accessions`, admin, { id_0: 'L-1', title: 'Linking', subjects: [{ ref: subject.body.uri }] });
    assert.equal(acc.status, 200, JSON.stringify(acc.body));
    for (let round = 1; round <= 3; round++) {
      // Both processes keep the resolved subject (each answers some of these reads) before it changes.
      for (let i = 0; i < 4; i++) assert.equal((await request(server.base, 'GET', `${acc.body.uri}?resolve[]=subjects`, admin)).body.subjects[0]._resolved.title, `Rivers ${round - 1}`);
      const current = (await request(server.base, 'GET', subject.body.uri, admin)).body;
      const saved = await request(server.base, 'POST', subject.body.uri, admin, { ...current, terms: [{ term: `Rivers ${round}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      for (let i = 0; i < 4; i++) assert.equal((await request(server.base, 'GET', `${acc.body.uri}?resolve[]=subjects`, admin)).body.subjects[0]._resolved.title, `Rivers ${round}`);
    }
  });

  it('a permission removed or a session ended through one process holds in the other at once', async () => {
    const repo = (await request(server.base, 'POST', '/repositories', admin, { repo_code: 'P', name: 'Permissions' })).body.id;
    const groups = (await request(server.base, 'GET', `/repositories/${repo}/groups?group_code=repository-viewers`, admin)).body;
    const group = groups[0];
    const user = await request(server.base, 'POST', `/users?password=pw-x&groups[]=${encodeURIComponent(group.uri)}`, admin, { username: 'worker-viewer', name: 'V' });
    assert.equal(user.status, 200, JSON.stringify(user.body));
    const session = (await request(server.base, 'POST', '/users/worker-viewer/login?password=pw-x')).body.session;
    const viewer = { 'X-ArchivesSpace-Session': session };
    for (let i = 0; i < 4; i++) assert.equal((await request(server.base, 'GET', `/repositories/${repo}/accessions?page=1`, viewer)).status, 200);
    const current = (await request(server.base, 'GET', group.uri, admin)).body;
    assert.deepEqual(current.member_usernames, ['worker-viewer']);
    const emptied = await request(server.base, 'POST', group.uri, admin, { ...current, member_usernames: [] });
    assert.equal(emptied.status, 200, JSON.stringify(emptied.body));
    for (let i = 0; i < 4; i++) assert.equal((await request(server.base, 'GET', `/repositories/${repo}/accessions?page=1`, viewer)).status, 403);
    assert.equal((await request(server.base, 'POST', '/logout', viewer)).status, 200);
    for (let i = 0; i < 4; i++) assert.equal((await request(server.base, 'GET', '/users/current-user', viewer)).status, 412);
  });

  it('counts failed logins across the processes: the limit holds for the installation', async () => {
    const pids = new Set<string>();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const failed = await request(server.base, 'POST', '/users/admin/login?password=wrong');
      assert.equal(failed.status, 403);
      ids.push(failed.id);
    }
    await sleep(300);
    for (const id of ids) pids.add(pidOf(id) ?? '?');
    assert.equal(pids.size, 2, 'the failures reached both processes');
    for (let i = 0; i < 2; i++) assert.equal((await request(server.base, 'POST', `/users/admin/login?password=${password}`)).status, 429);
  });

  it('starts another process when one dies, and stops them all on SIGTERM', async () => {
    const pids = [...new Set([...server.output().matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])))];
    assert.ok(pids.length >= 2, server.output());
    process.kill(pids[0], 'SIGKILL');
    for (let i = 0; i < 100 && listening() < 3; i++) await sleep(100);
    assert.equal(listening(), 3, 'a third process started');
    assert.match(server.output(), /a server process died; starting another/);
    for (let i = 0; i < 4; i++) assert.equal((await request(server.base, 'GET', '/version')).status, 200);
    const live = [...new Set([...server.output().matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])))].filter((p) => p !== pids[0]);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    for (const pid of live) assert.throws(() => process.kill(pid, 0), `process ${pid} has stopped`);
  });
});
