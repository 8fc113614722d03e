import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';

/** Routes of the staff interface's tools: form defaults, required fields, repositories with agents, monitoring, assessments. */
describe(`staff tool routes (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  let viewer: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'TOOLS', name: 'Tools' })).body.id;
    const groups = await t.http.get(`/repositories/${repo}/groups`).query({ group_code: 'repository-viewers' }).set(H);
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [groups.body[0].uri] }).set(H).send({ username: 'tools-viewer', name: 'V' }).expect(200);
    viewer = { 'X-ArchivesSpace-Session': (await t.http.post('/users/tools-viewer/login').query({ password: 'pw' })).body.session };
  });
  after(() => t?.close());

  it('keeps default values and required fields per record type', async () => {
    const base = `/repositories/${repo}/default_values/accession`;
    assert.equal((await t.http.get(base).set(H)).status, 404);
    const saved = await t.http.post(base).set(H).send({ record_type: 'accession', defaults: { title: 'Untitled accession' } });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.status, 'Created');
    assert.equal((await t.http.post(base).set(H).send({ defaults: { title: 'Second' } })).body.status, 'Updated');
    const got = await t.http.get(base).set(viewer);
    assert.deepEqual([got.body.record_type, got.body.defaults], ['accession', { title: 'Second' }]);
    assert.equal((await t.http.post(base).set(viewer).send({ defaults: {} })).status, 403);
    assert.equal((await t.http.post(base).set(H).send({ defaults: 'no' })).status, 400);
    assert.equal((await t.http.get(`/repositories/${repo}/default_values/no_such_type`).set(H)).status, 404);
    const req = await t.http.post(`/repositories/${repo}/required_fields/resource`).set(H).send({ subrecord_requirements: [{ property: 'dates', record_type: 'date', required: true }] });
    assert.equal(req.status, 200, req.text);
    assert.equal((await t.http.get(`/repositories/${repo}/required_fields/resource`).set(H)).body.subrecord_requirements[0].property, 'dates');
  });

  it('creates and updates a repository with its agent representation, and orders repositories', async () => {
    const created = await t.http.post('/repositories/with_agent').set(H).send({
      repository: { repo_code: 'WA', name: 'With agent' },
      agent_representation: { names: [{ primary_name: 'With agent archives', sort_name: 'With agent archives' }], agent_contacts: [{ name: 'Desk', address_1: '1 Main St', city: 'Springfield' }] },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.id;
    const got = (await t.http.get(`/repositories/with_agent/${id}`).set(H)).body;
    assert.equal(got.repository.repo_code, 'WA');
    assert.equal(got.agent_representation.agent_contacts[0].city, 'Springfield');
    assert.equal(got.repository.agent_representation.ref, got.agent_representation.uri);
    // The agent that represents a repository cannot be deleted (endpoints.md section 13).
    const refused = await t.http.delete(got.agent_representation.uri).set(H);
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body, { error: "This agent is linked to a repository and can't be removed" });
    const updated = await t.http.post(`/repositories/with_agent/${id}`).set(H).send({
      repository: { ...got.repository, name: 'Renamed' },
      agent_representation: { ...got.agent_representation, agent_contacts: [{ name: 'Desk', city: 'Shelbyville' }] },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await t.http.get(`/repositories/with_agent/${id}`).set(H)).body.agent_representation.agent_contacts[0].city, 'Shelbyville');
    assert.equal((await t.http.post('/repositories/with_agent').set(H).send({ agent_representation: {} })).status, 400);
    assert.equal((await t.http.post('/repositories/with_agent').set(viewer).send({ repository: { repo_code: 'X', name: 'X' } })).status, 403);
    assert.equal((await t.http.get('/repositories/with_agent/9999').set(H)).status, 404);
    const moved = await t.http.post(`/repositories/${id}/position`).query({ position: 0 }).set(H);
    assert.equal(moved.status, 200, moved.text);
    assert.equal((await t.http.get(`/repositories/${id}`).set(H)).body.position, 0);
    assert.equal((await t.http.post(`/repositories/${id}/position`).query({ position: -1 }).set(H)).status, 400);
  });

  it('reports active edits with lock versions, system information and log to administrators, a record graph', async () => {
    const acc = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'E1', title: 'Edited', accession_date: '2024-01-01' });
    const edits = await t.http.post('/update_monitor').set(H).send({ active_edits: [{ user: 'admin', uri: acc.body.uri, time: new Date().toISOString() }] });
    assert.equal(edits.status, 200, edits.text);
    assert.equal(edits.body[acc.body.uri].lock_version, 0);
    assert.ok(edits.body[acc.body.uri].edited_by.admin);
    assert.equal((await t.http.post('/update_monitor').set(H).send({ active_edits: [{ uri: 1 }] })).status, 400);
    const info = await t.http.get('/system/info').set(H);
    assert.equal(info.status, 200);
    assert.ok(info.body.db_info.product);
    // The embedded index's own thread reports its heap (the process's memory tells only the main thread's).
    if (info.body.search_info?.adapter === 'embedded') assert.ok(info.body.search_info.thread_memory.heap_used > 0, JSON.stringify(info.body.search_info));
    assert.equal((await t.http.get('/system/info').set(viewer)).status, 403);
    assert.equal((await t.http.get('/system/log').set(H)).status, 200);
    const resource = await t.http.post(`/repositories/${repo}/resources`).set(H).send({
      id_0: 'G', title: 'Graph', level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }],
      extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng' } }],
      finding_aid_language: 'eng', finding_aid_script: 'Latn',
    });
    await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'Leaf', level: 'file', resource: { ref: resource.body.uri }, notes: [{ jsonmodel_type: 'note_singlepart', type: 'abstract', content: ['x'] }] }).expect(200);
    const graph = await t.http.get(`${resource.body.uri}/models_in_graph`).set(H);
    assert.equal(graph.status, 200, graph.text);
    for (const model of ['resource', 'archival_object', 'date', 'extent', 'note_singlepart']) assert.ok(graph.body.includes(model), `${model} in ${graph.text}`);
    assert.equal((await t.http.get(`/repositories/${repo}/resources/9999/models_in_graph`).set(H)).status, 404);
  });

  it('keeps assessment attribute definitions: the installation\'s and the repository\'s own', async () => {
    const base = `/repositories/${repo}/assessment_attribute_definitions`;
    const before = (await t.http.get(base).set(viewer)).body.definitions;
    assert.ok(before.some((d: any) => d.label === 'Housing Quality' && d.type === 'rating' && d.global));
    const saved = await t.http.post(base).set(H).send({ definitions: [...before, { label: 'Smell', type: 'conservation_issue' }] });
    assert.equal(saved.status, 200, saved.text);
    const after = (await t.http.get(base).set(H)).body.definitions;
    assert.equal(after.length, before.length + 1);
    assert.equal(after[after.length - 1].label, 'Smell');
    assert.equal((await t.http.post(base).set(H).send({ definitions: [{ label: 'Bad', type: 'colour' }] })).status, 400);
    assert.equal((await t.http.post(base).set(viewer).send({ definitions: [] })).status, 403);
  });
});
