import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/** GET /slug: a record found by its slug through the public interface's controller names. */
describe(`slugs (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'SLUG');
  });
  after(() => t?.close());

  const create = async (path: string, body: object) => {
    const res = await t.http.post(path).set(H).send(body);
    assert.equal(res.status, 200, res.text);
    return res.body as { id: number; uri: string };
  };
  const slug = async (query: Record<string, string>) => {
    const res = await t.http.get('/slug').query(query);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  it('finds resources, objects, subjects, agents and classification terms by slug; -1 when none', async () => {
    const resource = await create(`/repositories/${repo}/resources`, { ...sampleRecord('resource', repo), slug: 'mill_papers', is_slug_auto: false });
    const ao = await create(`/repositories/${repo}/archival_objects`, { title: 'Ledger', level: 'file', resource: { ref: resource.uri }, slug: 'ledger_1', is_slug_auto: false });
    const subject = await create('/subjects', { ...sampleRecord('subject', repo), slug: 'mills', is_slug_auto: false });
    const agent = await create('/agents/families', { ...sampleRecord('agent_family', repo), slug: 'mill_family', is_slug_auto: false });
    const classification = await create(`/repositories/${repo}/classifications`, { ...sampleRecord('classification', repo), slug: 'rg1', is_slug_auto: false });
    const term = await create(`/repositories/${repo}/classification_terms`, { ...sampleRecord('classification_term', repo), classification: { ref: classification.uri }, slug: 'rg1_a', is_slug_auto: false });

    assert.deepEqual(await slug({ slug: 'mill_papers', controller: 'resources', action: 'show' }), { id: resource.id, table: 'resource', repo_id: repo });
    assert.deepEqual(await slug({ slug: 'ledger_1', controller: 'objects', action: 'show' }), { id: ao.id, table: 'archival_object', repo_id: repo });
    assert.deepEqual(await slug({ slug: 'mills', controller: 'subjects', action: 'show' }), { id: subject.id, table: 'subject', repo_id: null });
    assert.deepEqual(await slug({ slug: 'mill_family', controller: 'agents', action: 'show' }), { id: agent.id, table: 'agent_family', repo_id: null });
    assert.deepEqual(await slug({ slug: 'rg1', controller: 'classifications', action: 'show' }), { id: classification.id, table: 'classification', repo_id: repo });
    assert.deepEqual(await slug({ slug: 'rg1_a', controller: 'classifications', action: 'term' }), { id: term.id, table: 'classification_term', repo_id: repo });
    assert.deepEqual(await slug({ slug: 'rg1_a', controller: 'classifications', action: 'show' }), { id: -1, table: 'classification', repo_id: -1 });
    assert.deepEqual(await slug({ slug: 'nothing', controller: 'resources' }), { id: -1, table: 'resource', repo_id: -1 });
    assert.deepEqual(await slug({ slug: 'mill_papers', controller: 'no_such_controller' }), { id: -1, table: null, repo_id: -1 });
    // A changed slug is found under the new one only.
    const stored = (await t.http.get(resource.uri).set(H)).body;
    await t.http.post(resource.uri).set(H).send({ ...stored, slug: 'mill_records' }).expect(200);
    assert.equal((await slug({ slug: 'mill_papers', controller: 'resources' })).id, -1);
    assert.equal((await slug({ slug: 'mill_records', controller: 'resources' })).id, resource.id);
    assert.equal((await t.http.get('/slug').query({ controller: 'resources' })).status, 400);
  });
});
