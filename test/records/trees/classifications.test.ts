import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../../helpers';

/** Classifications and their terms: a tree declared by the schemas alone (no code of their own). */
describe(`classifications and classification terms (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    base = `/repositories/${(await t.http.post('/repositories').set(H).send({ repo_code: 'CLS', name: 'Classified' })).body.id}`;
  });
  after(() => t?.close());

  it('creates a classification, its terms as a tree, and serves the tree routes', async () => {
    const c = await t.http.post(`${base}/classifications`).set(H).send({ identifier: 'RG1', title: 'Record Group 1', description: 'Administration' });
    assert.equal(c.status, 200, c.text);
    const cls = c.body.uri;
    const term = (identifier: string, title: string, parent?: string) =>
      t.http.post(`${base}/classification_terms`).set(H).send({ identifier, title, classification: { ref: cls }, parent: parent ? { ref: parent } : undefined });
    const a = await term('RG1.1', 'Presidents');
    assert.equal(a.status, 200, a.text);
    const b = (await term('RG1.2', 'Deans')).body.uri;
    const child = await term('RG1.1.1', 'Correspondence', a.body.uri);
    assert.equal(child.status, 200, child.text);
    const got = (await t.http.get(child.body.uri).set(H)).body;
    assert.equal(got.display_string, 'Correspondence');
    assert.equal(got.parent.ref, a.body.uri);
    assert.equal(got.publish, true);
    const root = await t.http.get(`${cls}/tree/root`).set(H);
    assert.equal(root.status, 200, root.text);
    assert.equal(root.body.child_count, 2);
    assert.equal(root.body.identifier, 'RG1');
    assert.deepEqual(root.body.precomputed_waypoints[''][0].map((e: any) => [e.identifier, e.title]), [['RG1.1', 'Presidents'], ['RG1.2', 'Deans']]);
    const node = await t.http.get(`${cls}/tree/node`).query({ node_uri: a.body.uri }).set(H);
    assert.equal(node.body.child_count, 1);
    const children = await t.http.get(`${a.body.uri}/children`).set(H);
    assert.deepEqual(children.body.map((x: any) => x.title), ['Correspondence']);
    // Move the Deans under the Presidents, first.
    const moved = await t.http.post(`${a.body.uri}/accept_children`).query({ 'children[]': b, position: 0 }).set(H);
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual((await t.http.get(`${a.body.uri}/children`).set(H)).body.map((x: any) => x.title), ['Deans', 'Correspondence']);
    const listed = await t.http.get(`${base}/classification_terms`).query({ page: 1 }).set(H);
    assert.equal(listed.body.total, 3);
  });

  it('refuses bad input with 400, unknown ids with 404, and callers without the permission with 403', async () => {
    const missing = await t.http.post(`${base}/classifications`).set(H).send({ title: 'No identifier' });
    assert.equal(missing.status, 400);
    assert.ok(missing.body.error.identifier, missing.text);
    const noRoot = await t.http.post(`${base}/classification_terms`).set(H).send({ identifier: 'X', title: 'Orphan' });
    assert.equal(noRoot.status, 400);
    assert.equal((await t.http.get(`${base}/classifications/9999`).set(H)).status, 404);
    assert.equal((await t.http.get(`${base}/classifications/9999/tree/root`).set(H)).status, 404);
    await t.http.post('/users').query({ password: 'pw' }).set(H).send({ username: 'cls-nobody', name: 'N' }).expect(200);
    const nobody = (await t.http.post('/users/cls-nobody/login').query({ password: 'pw' })).body.session;
    const refused = await t.http.post(`${base}/classifications`).set('X-ArchivesSpace-Session', nobody).send({ identifier: 'RG9', title: 'Nine' });
    assert.equal(refused.status, 403);
  });
});
