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
    // A request lost with a dying process fails here, named, instead of holding the test until mocha's timeout.
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${p}: no answer within 60 s`)));
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
    WORKERS: '2', LOGIN_MAX_FAILURES: '4', DB_WAIT_SECONDS: '15',
  };
  let server: Server;
  let admin: Record<string, string>;
  const listening = () => (server.output().match(/"msg":"listening"/g) ?? []).length;
  /** The process that answered a request, from its request log line. */
  const pidOf = (id: string) => new RegExp(`"pid":(\\d+)[^\\n]*"request_id":"${id}"|"request_id":"${id}"[^\\n]*"pid":(\\d+)`).exec(server.output())?.slice(1).find(Boolean);

  /** The server processes alive now (their pids from the log). */
  const livePids = () => [...new Set([...server.output().matchAll(/"pid":(\d+)/g)].map((m) => Number(m[1])))].filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  /** SQLite: the process holding the WAL's write lock (byte 120 of the -shm file), if any. */
  const walWriter = (): number | undefined => {
    const shm = `${env.DB_URL.slice('sqlite://'.length)}-shm`;
    if (!fs.existsSync(shm)) return undefined;
    const inode = fs.statSync(shm).ino;
    const line = fs.readFileSync('/proc/locks', 'utf8').split('\n')
      .map((l) => l.trim().split(/\s+/))
      .find((f) => f[3] === 'WRITE' && f[5]?.endsWith(`:${inode}`) && f[6] === '120');
    return line ? Number(line[4]) : undefined;
  };

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

  it('a process killed mid-batch (holding the write lock) writes none of it, and the other writes at once', async () => {
    const repo = (await request(server.base, 'POST', '/repositories', admin, { repo_code: 'K', name: 'Killed' })).body.id;
    // A batch that outlasts the picking of its process (MariaDB: after 1 s; SQLite: two looks at the write lock 100 ms apart, and a fast machine wrote 1,000 in less).
    const records = Array.from({ length: 5000 }, (_, i) => ({ jsonmodel_type: 'accession', uri: `/repositories/${repo}/accessions/import_${i}`, id_0: `K-${i}`, title: `Killed mid-batch ${i}` }));
    const alive = livePids();
    const started = listening();
    let settled = false;
    // fetch: the batch's answer is streamed, and reading it fails when its process dies mid-way.
    const batch = fetch(`${server.base}/repositories/${repo}/batch_imports`, { method: 'POST', headers: { ...admin, 'Content-Type': 'application/json' }, body: JSON.stringify(records) })
      .then((res) => res.text()).catch((err: Error) => err).finally(() => { settled = true; });
    // The process writing the batch: on SQLite the one holding the WAL's write lock (byte 120 of
    // the -shm file, /proc/locks) on two looks 100 ms apart; on MariaDB the one using more CPU
    // after 1 s (the batch is checked, then written).
    const cpu = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ').slice(11, 13).reduce((a, b) => a + Number(b), 0);
    const cpuBefore = new Map(alive.map((pid) => [pid, cpu(pid)]));
    const t0 = Date.now();
    const step = (what: string) => { if (process.env.WORKERS_TRACE) console.log(`      [${Date.now() - t0} ms] ${what}`); };
    let victim: number | undefined;
    while (victim === undefined && !settled) {
      if (STORE === 'sqlite') {
        const first = walWriter();
        await sleep(100);
        if (first !== undefined && walWriter() === first) victim = first;
      } else {
        await sleep(1000);
        victim = alive.reduce((a, b) => (cpu(a) - cpuBefore.get(a)! >= cpu(b) - cpuBefore.get(b)! ? a : b));
      }
    }
    assert.ok(victim && alive.includes(victim), `the batch's writer among ${alive.join(', ')}: ${victim}; the batch ${settled ? 'ended first' : 'runs'} after ${Date.now() - t0} ms`);
    step(`killing ${victim}`);
    const deaths = () => (server.output().match(/a server process died/g) ?? []).length;
    const died = deaths();
    process.kill(victim, 'SIGKILL');
    const answer = await batch;
    // The creates below once the primary knows (a connection it handed to the dead process meanwhile would be lost).
    for (let i = 0; i < 300 && deaths() <= died; i++) await sleep(100);
    step(`batch answered: ${String(answer).slice(0, 100)}`);
    assert.ok(answer instanceof Error, `the batch was answered: ${String(answer).slice(0, 300)}`);
    // The other process (and the one started in the victim's place) writes at once: the store's
    // lock and, on SQLite, the write token went with the process (DB_WAIT_SECONDS=15 here: a token
    // never handed on would answer these 503 after 15 s).
    for (let i = 0; i < 6; i++) {
      const t = Date.now();
      const made = await request(server.base, 'POST', `/repositories/${repo}/accessions`, admin, { id_0: `After-${i}`, title: `After the kill ${i}` });
      step(`create ${i}: ${made.status}`);
      assert.equal(made.status, 200, JSON.stringify(made.body));
      assert.ok(Date.now() - t < 10_000, `create ${i} took ${Date.now() - t} ms`);
    }
    const listed = await request(server.base, 'GET', `/repositories/${repo}/accessions?page=1&page_size=10`, admin);
    assert.equal(listed.body.total, 6, 'none of the killed batch was written');
    if (STORE === 'sqlite') assert.match(server.output(), /went away holding the write token/);
    // The process started in the victim's place (slow on a loaded machine).
    for (let i = 0; i < 600 && listening() <= started; i++) await sleep(100);
  });

  it('starts another process when one dies, and stops them all on SIGTERM', async () => {
    for (let i = 0; i < 300 && livePids().length < 2; i++) await sleep(100);
    const pids = livePids();
    assert.ok(pids.length >= 2, server.output());
    const started = listening();
    process.kill(pids[0], 'SIGKILL');
    for (let i = 0; i < 600 && listening() <= started; i++) await sleep(100);
    assert.equal(listening(), started + 1, 'another process started');
    assert.match(server.output(), /a server process died; starting another/);
    for (let i = 0; i < 4; i++) assert.equal((await request(server.base, 'GET', '/version')).status, 200);
    const live = livePids();
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    for (const pid of live) assert.throws(() => process.kill(pid, 0), `process ${pid} has stopped`);
  });
});
