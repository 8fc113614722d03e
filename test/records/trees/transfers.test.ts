import assert from 'node:assert/strict';
import { sampleRecord } from '../../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../../helpers';
import { viewerAndNobody } from '../../exchange/viewer';

describe(`component transfers (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  const ao = (repoId: number) => `/repositories/${repoId}/archival_objects`;

  async function resource(repoId: number, title: string): Promise<string> {
    const res = await t.http.post(`/repositories/${repoId}/resources`).set(H).send({ ...sampleRecord('resource', repoId), title });
    assert.equal(res.status, 200, res.text);
    return res.body.uri;
  }
  async function node(repoId: number, root: string, title: string, parent?: string): Promise<string> {
    const res = await t.http.post(ao(repoId)).set(H).send({ title, level: 'file', resource: { ref: root }, ...(parent ? { parent: { ref: parent } } : {}) });
    assert.equal(res.status, 200, res.text);
    return res.body.uri;
  }
  async function topTitles(root: string): Promise<string[]> {
    const tree = (await t.http.get(`${root}/tree`).set(H)).body;
    return tree.children.map((c: { title: string }) => c.title);
  }
  const transfer = (repoId: number, query: Record<string, string>, headers = H) =>
    t.http.post(`/repositories/${repoId}/component_transfers`).query(query).set(headers);

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const created = await t.http.post('/repositories/with_agent').set(H).send({
      repository: { repo_code: 'CT', name: 'Transfers' },
      agent_representation: { names: [{ primary_name: 'Transfer archives', sort_name: 'Transfer archives' }] },
    });
    assert.equal(created.status, 200, created.text);
    repo = created.body.id;
  });
  after(async () => t?.close());

  it('moves a component and its whole subtree to the end of another resource, with an event', async () => {
    const from = await resource(repo, 'From');
    const to = await resource(repo, 'To');
    const series = await node(repo, from, 'Series');
    const file = await node(repo, from, 'File', series);
    const item = await node(repo, from, 'Item', file);
    await node(repo, from, 'Stays');
    await node(repo, to, 'Already there');

    const res = await transfer(repo, { target_resource: to, component: series });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.component, series);
    assert.equal(res.body.resource, to);
    assert.match(res.body.event, new RegExp(`^/repositories/${repo}/events/\\d+$`));

    assert.deepEqual(await topTitles(to), ['Already there', 'Series']);
    assert.deepEqual(await topTitles(from), ['Stays']);
    for (const uri of [series, file, item]) {
      const got = (await t.http.get(uri).set(H)).body;
      assert.equal(got.resource.ref, to, `${uri} names its new resource`);
      assert.equal(got.ancestors.at(-1).ref, to);
    }
    assert.deepEqual((await t.http.get(item).set(H)).body.ancestors.map((a: { ref: string }) => a.ref), [file, series, to]);
    const tree = (await t.http.get(`${to}/tree`).set(H)).body;
    assert.equal(tree.children[1].children[0].children[0].title, 'Item');

    const event = (await t.http.get(res.body.event).set(H)).body;
    assert.equal(event.event_type, 'component_transfer');
    assert.deepEqual(
      event.linked_records.map((l: { role: string; ref: string }) => [l.role, l.ref]),
      [['source', from], ['outcome', to], ['transfer', series]],
    );
    assert.equal(event.linked_agents[0].role, 'implementer');

  });

  it('an update naming another resource takes the subtree along too', async () => {
    const from = await resource(repo, 'Old home');
    const to = await resource(repo, 'New home');
    const top = await node(repo, from, 'Top');
    const child = await node(repo, from, 'Child', top);
    const current = (await t.http.get(top).set(H)).body;
    const moved = await t.http.post(top).set(H).send({ ...current, resource: { ref: to } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal((await t.http.get(child).set(H)).body.resource.ref, to);
    assert.deepEqual(await topTitles(to), ['Top']);
    assert.deepEqual(await topTitles(from), []);
  });

  it('refuses what it cannot do: 400 for missing or malformed parameters and a missing target, 404 for an unknown component, 403 without permission', async () => {
    const to = await resource(repo, 'Target');
    const from = await resource(repo, 'Source');
    const comp = await node(repo, from, 'Comp');
    assert.equal((await transfer(repo, { component: comp })).status, 400);
    assert.equal((await transfer(repo, { target_resource: to })).status, 400);
    const malformed = await transfer(repo, { target_resource: to, component: '/subjects/1' });
    assert.equal(malformed.status, 400);
    assert.ok(malformed.body.error.component, malformed.text);
    const gone = await transfer(repo, { target_resource: `/repositories/${repo}/resources/999999`, component: comp });
    assert.equal(gone.status, 400);
    assert.ok(gone.body.error.target_resource, gone.text);
    assert.equal((await transfer(repo, { target_resource: to, component: `${ao(repo)}/999999` })).status, 404);
    const other = await createRepository(t, 'CTX');
    const elsewhere = await resource(other, 'Elsewhere');
    assert.equal((await transfer(repo, { target_resource: elsewhere, component: comp })).status, 400);
    const { viewer } = await viewerAndNobody(t, repo, 'ct');
    assert.equal((await transfer(repo, { target_resource: to, component: comp }, { 'X-ArchivesSpace-Session': viewer })).status, 403);
    assert.deepEqual(await topTitles(from), ['Comp'], 'nothing moved');
  });

  it('moves without an event in a repository that has no agent to name as implementer', async () => {
    const plain = await createRepository(t, 'CTP');
    const from = await resource(plain, 'A');
    const to = await resource(plain, 'B');
    const comp = await node(plain, from, 'Lone');
    const res = await transfer(plain, { target_resource: to, component: comp });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.event, null);
    assert.deepEqual(await topTitles(to), ['Lone']);
  });
});
