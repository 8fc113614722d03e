import assert from 'node:assert/strict';
import { compactHistory, pruneHistory } from '../../src/store/history';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/** Revision history (docs/history.md): versions kept on every write, listed, compared, restored. */
describe(`revision history (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'HIST');
  });
  after(() => t?.close());

  const ok = async (req: Promise<{ status: number; text: string; body: any }>) => {
    const res = await req;
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const create = async (type: string, body: object, path = `/repositories/${repo}/${type}s`) => ok(t.http.post(path).set(H).send(body));
  const update = async (uri: string, change: object) => {
    const current = await ok(t.http.get(uri).set(H));
    return ok(t.http.post(uri).set(H).send({ ...current, ...change }));
  };
  const accession = async (title = 'First title') => create('accession', { ...sampleRecord('accession', repo), title });

  it('lists the versions newest first with who replaced each and through which route, answers one, and diffs two', async () => {
    const a = await accession();
    await update(a.uri, { title: 'Second title' });
    await update(a.uri, { title: 'Third title' });
    const list = await ok(t.http.get(`${a.uri}/history`).set(H));
    assert.deepEqual([list.total, list.this_page, list.last_page], [3, 1, 1]);
    assert.deepEqual(list.results.map((v: any) => [v.lock_version, v.current]), [[2, true], [1, false], [0, false]]);
    assert.equal(list.results[0].replaced, null);
    assert.deepEqual(list.results[2].replaced.how, 'update');
    assert.equal(list.results[2].replaced.by, 'admin');
    assert.equal(list.results[2].replaced.via, `POST ${a.uri}`);
    assert.equal(list.results[2].saved_by, 'admin');
    assert.equal(list.results[2].uri, a.uri);

    const paged = await ok(t.http.get(`${a.uri}/history`).query({ page: 2, page_size: 2 }).set(H));
    assert.deepEqual([paged.total, paged.last_page, paged.results.map((v: any) => v.lock_version)], [3, 2, [0]]);

    const first = await ok(t.http.get(`${a.uri}/history/0`).set(H));
    assert.deepEqual([first.title, first.lock_version, first.uri], ['First title', 0, a.uri]);
    assert.equal((await ok(t.http.get(`${a.uri}/history/2`).set(H))).title, 'Third title');

    const diff = await ok(t.http.get(`${a.uri}/history/0/diff`).set(H));
    assert.deepEqual([diff.from, diff.to], [0, 1]);
    assert.deepEqual(diff.patch.find((op: any) => op.path === '/title'), { op: 'replace', path: '/title', value: 'Second title' });
    assert.deepEqual(diff.patch.find((op: any) => op.path === '/lock_version'), { op: 'replace', path: '/lock_version', value: 1 });
    const toCurrent = await ok(t.http.get(`${a.uri}/history/0/diff`).query({ to: 2 }).set(H));
    assert.deepEqual(toCurrent.patch.find((op: any) => op.path === '/title').value, 'Third title');
  });

  it('names each writer of updates sent at once by two users', async () => {
    const groups = await ok(t.http.get(`/repositories/${repo}/groups`).query({ group_code: 'repository-archivists' }).set(H));
    await ok(t.http.post('/users').query({ password: 'pw-together', 'groups[]': [groups[0].uri] }).set(H).send({ username: 'history-together', name: 'Together' }));
    const other = { 'X-ArchivesSpace-Session': (await ok(t.http.post('/users/history-together/login').query({ password: 'pw-together' }))).session };
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => accession(`Together ${i}`)));
    const records = await Promise.all(made.map((a) => ok(t.http.get(a.uri).set(H))));
    const writerOf = (i: number) => (i % 2 ? 'history-together' : 'admin');
    await Promise.all(records.map(async (a, i) => ok(t.http.post(a.uri).set(i % 2 ? other : H).send({ ...a, title: `Changed ${i}` }))));
    for (const [i, a] of records.entries()) {
      const list = await ok(t.http.get(`${a.uri}/history`).set(H));
      assert.deepEqual([list.results[1].replaced.by, list.results[1].replaced.via], [writerOf(i), `POST ${a.uri}`], `record ${i}`);
    }
  });

  it('names the job that replaced a version, and its owner', async () => {
    const resource = await create('resource', { ...sampleRecord('resource', repo), title: 'Papers of the Smith family' });
    const job = await ok(t.http.post(`/repositories/${repo}/jobs`).set(H).send({
      job_type: 'find_and_replace_job',
      job: { jsonmodel_type: 'find_and_replace_job', find: 'Smith', replace: 'Smyth', record_type: 'resource', property: 'title', base_record_uri: resource.uri },
    }));
    await t.services.jobs!.idle();
    const id = Number(job.uri.split('/').pop());
    assert.equal((await ok(t.http.get(job.uri).set(H))).status, 'completed');
    const list = await ok(t.http.get(`${resource.uri}/history`).set(H));
    assert.equal((await ok(t.http.get(resource.uri).set(H))).title.trim(), 'Papers of the Smyth family');
    assert.deepEqual([list.results[1].replaced.by, list.results[1].replaced.via], ['admin', `job ${id} (find_and_replace_job)`]);
  });

  it('answers a lock_version in the path that is not a number with 400 and one never kept (or negative) with 404, in the usual error shape', async () => {
    const a = await accession();
    const bad = await t.http.get(`${a.uri}/history/abc`).set(H);
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.version, bad.text);
    const negative = await t.http.get(`${a.uri}/history/-1`).set(H);
    assert.deepEqual([negative.status, negative.body], [404, { error: 'Version -1 not found' }]);
    const missing = await t.http.get(`${a.uri}/history/7`).set(H);
    assert.deepEqual([missing.status, missing.body], [404, { error: 'Version 7 not found' }]);
    assert.equal((await t.http.post(`${a.uri}/history/7/restore`).query({ lock_version: 0 }).set(H)).status, 404);
    assert.equal((await t.http.get(`/repositories/${repo}/accessions/999999/history`).set(H)).status, 404);
    assert.equal((await t.http.get(`${a.uri}/history/0/diff`).set(H)).status, 404);
  });

  it('restores a version as a new one, checking the current lock_version (409 when stale or missing)', async () => {
    const a = await accession('Original');
    await update(a.uri, { title: 'Changed' });
    const stale = await t.http.post(`${a.uri}/history/0/restore`).query({ lock_version: 0 }).set(H);
    assert.equal(stale.status, 409, stale.text);
    assert.equal((await t.http.post(`${a.uri}/history/0/restore`).set(H)).status, 409);
    const restored = await ok(t.http.post(`${a.uri}/history/0/restore`).query({ lock_version: 1 }).set(H));
    assert.deepEqual([restored.status, restored.lock_version, restored.restored_from], ['Updated', 2, 0]);
    const now = await ok(t.http.get(a.uri).set(H));
    assert.deepEqual([now.title, now.lock_version], ['Original', 2]);
    const list = await ok(t.http.get(`${a.uri}/history`).set(H));
    assert.equal(list.results[1].replaced.via, `POST ${a.uri}/history/0/restore`);
  });

  it('keeps a deleted record\'s history and restores it with its id and URI', async () => {
    const a = await accession('To be deleted');
    await update(a.uri, { title: 'Deleted title' });
    await ok(t.http.delete(a.uri).set(H));
    assert.equal((await t.http.get(a.uri).set(H)).status, 404);
    const list = await ok(t.http.get(`${a.uri}/history`).set(H));
    assert.deepEqual(list.results.map((v: any) => [v.lock_version, v.current, v.replaced.how]), [[1, false, 'delete'], [0, false, 'update']]);
    assert.equal(list.results[0].replaced.via, `DELETE ${a.uri}`);
    const restored = await ok(t.http.post(`${a.uri}/history/1/restore`).set(H));
    assert.deepEqual([restored.status, restored.uri, restored.lock_version], ['Created', a.uri, 2]);
    const back = await ok(t.http.get(a.uri).set(H));
    assert.deepEqual([back.title, back.lock_version, back.create_time], ['Deleted title', 2, (await ok(t.http.get(`${a.uri}/history/0`).set(H))).create_time]);
    assert.equal((await ok(t.http.get(`${a.uri}/history`).set(H))).total, 3);
  });

  it('drops links to records deleted since, with a warning, as their deletion did', async () => {
    const subject = await create('subject', sampleRecord('subject', repo), '/subjects');
    const kept = await create('subject', sampleRecord('subject', repo), '/subjects');
    const a = await create('accession', { ...sampleRecord('accession', repo), subjects: [{ ref: subject.uri }, { ref: kept.uri }] });
    await ok(t.http.delete(subject.uri).set(H));
    const afterDelete = await ok(t.http.get(a.uri).set(H));
    assert.deepEqual(afterDelete.subjects.map((s: any) => s.ref), [kept.uri]);
    const list = await ok(t.http.get(`${a.uri}/history`).set(H));
    assert.deepEqual([list.results[1].replaced.how, list.results[1].replaced.via], ['rewrite', `DELETE ${subject.uri}`]);
    const restored = await ok(t.http.post(`${a.uri}/history/0/restore`).query({ lock_version: 1 }).set(H));
    assert.deepEqual(restored.warnings.subjects, [`${subject.uri} no longer exists: the link was dropped`]);
    assert.deepEqual((await ok(t.http.get(a.uri).set(H))).subjects.map((s: any) => s.ref), [kept.uri]);
  });

  it('restores a deleted tree node in its tree, at its place among its siblings', async () => {
    const resource = await create('resource', sampleRecord('resource', repo));
    const node = (title: string, parent?: string) =>
      create('archival_object', { title, level: 'file', resource: { ref: resource.uri }, ...(parent ? { parent: { ref: parent } } : {}) });
    const [first, middle, last] = [await node('First'), await node('Middle'), await node('Last')];
    const child = await node('Child', middle.uri);
    await ok(t.http.delete(middle.uri).set(H));
    assert.equal((await t.http.get(child.uri).set(H)).status, 404);
    await ok(t.http.post(`${middle.uri}/history/0/restore`).set(H));
    await ok(t.http.post(`${child.uri}/history/0/restore`).set(H));
    const restored = await ok(t.http.get(middle.uri).set(H));
    assert.equal(restored.position, 1);
    const restoredChild = await ok(t.http.get(child.uri).set(H));
    assert.deepEqual([restoredChild.parent.ref, restoredChild.position], [middle.uri, 0]);
    const tree = await ok(t.http.get(`${resource.uri}/tree/root`).set(H));
    assert.equal(tree.child_count, 3);
    assert.deepEqual([first.uri, last.uri].map(Boolean), [true, true]);
  });

  it('lets a viewer read history but not restore', async () => {
    const a = await accession();
    await update(a.uri, { title: 'Viewed' });
    const groups = await ok(t.http.get(`/repositories/${repo}/groups`).query({ group_code: 'repository-viewers' }).set(H));
    await ok(t.http.post('/users').query({ password: 'pw-viewer', 'groups[]': [groups[0].uri] }).set(H).send({ username: 'history-viewer', name: 'Viewer' }));
    const token = (await ok(t.http.post('/users/history-viewer/login').query({ password: 'pw-viewer' }))).session;
    const V = { 'X-ArchivesSpace-Session': token };
    assert.equal((await ok(t.http.get(`${a.uri}/history`).set(V))).total, 2);
    assert.equal((await ok(t.http.get(`${a.uri}/history/0`).set(V))).lock_version, 0);
    const denied = await t.http.post(`${a.uri}/history/0/restore`).query({ lock_version: 1 }).set(V);
    assert.deepEqual([denied.status, denied.body], [403, { error: 'Access denied' }]);
  });

  it('deflates kept versions in the background, and prunes beyond the versions kept per record and past the days kept', async () => {
    const a = await accession();
    for (let i = 1; i <= 5; i++) await update(a.uri, { title: `Title ${i}` });
    const knex = t.services.db.knex;
    // Deflated in the background: the versions read the same before and after.
    const before = await ok(t.http.get(`${a.uri}/history/3`).set(H));
    assert.ok((await compactHistory(t.services.db)) >= 5);
    assert.equal(await compactHistory(t.services.db), 0);
    assert.deepEqual(await ok(t.http.get(`${a.uri}/history/3`).set(H)), before);
    assert.equal(await pruneHistory(knex, { keep: true, keepVersions: 2, keepDays: 0 }), 3);
    const list = await ok(t.http.get(`${a.uri}/history`).set(H));
    assert.deepEqual(list.results.map((v: any) => v.lock_version), [5, 4, 3]);
    assert.equal((await t.http.get(`${a.uri}/history/0`).set(H)).status, 404);
    await pruneHistory(knex, { keep: true, keepVersions: 0, keepDays: 1 }, Date.now() + 2 * 86_400_000);
    assert.deepEqual((await ok(t.http.get(`${a.uri}/history`).set(H))).results.map((v: any) => v.lock_version), [5]);
  });

  it('keeps the history of a record moved to another repository with it', async () => {
    const other = await createRepository(t, 'HISTOTHER');
    const a = await accession('Before the move');
    await update(a.uri, { title: 'Moved' });
    await ok(t.http.post(`${a.uri}/transfer`).query({ target_repo: `/repositories/${other}` }).set(H));
    const moved = `/repositories/${other}/accessions/${a.id}`;
    const list = await ok(t.http.get(`${moved}/history`).set(H));
    // The move rewrote the record (links follow it): a version of its own.
    assert.deepEqual(list.results.map((v: any) => [v.lock_version, v.uri]), [[2, moved], [1, moved], [0, a.uri]]);
    assert.equal((await t.http.get(`${a.uri}/history`).set(H)).status, 404);
    const restored = await ok(t.http.post(`${moved}/history/0/restore`).query({ lock_version: 2 }).set(H));
    assert.equal(restored.uri, moved);
    assert.equal((await ok(t.http.get(moved).set(H))).title, 'Before the move');
  });

  it('keeps nothing with HISTORY=off', async () => {
    const off = await startTestApp({ HISTORY: 'off' });
    try {
      const OH = { 'X-ArchivesSpace-Session': await off.adminToken() };
      const r = await createRepository(off, 'OFF');
      const a = (await off.http.post(`/repositories/${r}/accessions`).set(OH).send(sampleRecord('accession', r))).body;
      const current = (await off.http.get(a.uri).set(OH)).body;
      await off.http.post(a.uri).set(OH).send({ ...current, title: 'Changed' }).expect(200);
      assert.deepEqual((await off.http.get(`${a.uri}/history`).set(OH)).body.results.map((v: any) => v.lock_version), [1]);
    } finally {
      await off.close();
    }
  });
});
