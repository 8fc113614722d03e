import assert from 'node:assert/strict';
import { linksCheck } from '../../src/cli/doctor/checks';
import { startTestApp, STORE, TestApp } from '../helpers';

/** Merge requests: every link to a candidate ends up on the destination; the candidates are gone. */
describe(`merge requests (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  let base: string;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'MRG', name: 'Merges' })).body.id;
    base = `/repositories/${repo}`;
  });
  after(() => t?.close());

  const post = async (path: string, body: object) => {
    const res = await t.http.post(path).set(H).send(body);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body.uri as string;
  };
  const get = async (uri: string) => (await t.http.get(uri).set(H)).body;
  const RESOURCE = {
    level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
  };

  it('merges subjects, agents and top containers linked from accessions, resources, archival objects and digital objects, leaving no dangling link', async () => {
    const subject = (term: string) => post('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term, term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const [keep, dup1, dup2] = [await subject('Railroads'), await subject('Rail roads'), await subject('Railways')];
    const person = (name: string) => post('/agents/people', { names: [{ primary_name: name, name_order: 'direct', sort_name: name }] });
    const [agentKeep, agentDup] = [await person('Smith, Jane'), await person('Smith, J.')];
    const box = (n: string) => post(`${base}/top_containers`, { type: 'box', indicator: n });
    const [boxKeep, boxDup] = [await box('1'), await box('1a')];
    const inst = (uri: string) => [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: uri } } }];
    const acc = await post(`${base}/accessions`, {
      id_0: 'M1', title: 'Accession', accession_date: '2024-01-01', subjects: [{ ref: keep }, { ref: dup1 }],
      linked_agents: [{ ref: agentDup, role: 'creator' }], instances: inst(boxDup),
    });
    const res = await post(`${base}/resources`, { ...RESOURCE, id_0: 'M2', title: 'Resource', subjects: [{ ref: dup2 }], linked_agents: [{ ref: agentDup, role: 'subject' }] });
    const ao = await post(`${base}/archival_objects`, { title: 'File', level: 'file', resource: { ref: res }, subjects: [{ ref: dup1 }], instances: inst(boxDup) });
    const dobj = await post(`${base}/digital_objects`, { digital_object_id: 'M3', title: 'Scan', subjects: [{ ref: dup2 }], linked_agents: [{ ref: agentDup, role: 'creator' }] });

    const merged = await t.http.post('/merge_requests/subject').set(H).send({ uri: 'merge_requests/subject', merge_destination: { ref: keep }, merge_candidates: [{ ref: dup1 }, { ref: dup2 }] });
    assert.equal(merged.status, 200, merged.text);
    assert.deepEqual(merged.body, { status: 'Merged', id: Number(keep.split('/').pop()), selections: [], merge_destination_uri: keep, deleted_uris: [dup1, dup2] });
    const agents = await t.http.post('/merge_requests/agent').set(H).send({ merge_destination: { ref: agentKeep }, merge_candidates: [{ ref: agentDup }] });
    assert.equal(agents.status, 200, agents.text);
    const boxes = await t.http.post('/merge_requests/top_container').query({ repo_id: repo }).set(H).send({ merge_destination: { ref: boxKeep }, merge_candidates: [{ ref: boxDup }] });
    assert.equal(boxes.status, 200, boxes.text);

    // The accession listed the kept subject and a duplicate: it lists it once now.
    assert.deepEqual((await get(acc)).subjects.map((s: any) => s.ref), [keep]);
    assert.deepEqual((await get(res)).subjects.map((s: any) => s.ref), [keep]);
    assert.deepEqual((await get(ao)).subjects.map((s: any) => s.ref), [keep]);
    assert.deepEqual((await get(dobj)).subjects.map((s: any) => s.ref), [keep]);
    assert.equal((await get(acc)).linked_agents[0].ref, agentKeep);
    assert.equal((await get(res)).linked_agents[0].ref, agentKeep);
    assert.equal((await get(dobj)).linked_agents[0].ref, agentKeep);
    assert.equal((await get(acc)).instances[0].sub_container.top_container.ref, boxKeep);
    assert.equal((await get(ao)).instances[0].sub_container.top_container.ref, boxKeep);
    for (const gone of [dup1, dup2, agentDup, boxDup]) assert.equal((await t.http.get(gone).set(H)).status, 404, gone);
    const doctor = await linksCheck.run({ config: t.config, registry: t.services.registry, db: t.services.db, migrated: true });
    assert.equal(doctor.status, 'ok', JSON.stringify(doctor));
    // The search index follows: the accession is found by the kept subject's title.
    await t.services.search!.indexer.drain();
    const found = await t.http.get(`${base}/search`).query({ page: 1, q: 'subjects:"Railroads"' }).set(H);
    assert.ok(found.body.results.some((r: any) => r.uri === acc), found.text);
  });

  it("merges resources: the candidate's archival objects join the destination's tree", async () => {
    const keep = await post(`${base}/resources`, { ...RESOURCE, id_0: 'K', title: 'Kept' });
    const dup = await post(`${base}/resources`, { ...RESOURCE, id_0: 'D', title: 'Duplicate' });
    await post(`${base}/archival_objects`, { title: 'Kept file', level: 'file', resource: { ref: keep } });
    const moved = await post(`${base}/archival_objects`, { title: 'Moved series', level: 'series', resource: { ref: dup } });
    await post(`${base}/archival_objects`, { title: 'Moved file', level: 'file', resource: { ref: dup }, parent: { ref: moved } });
    const res = await t.http.post('/merge_requests/resource').query({ repo_id: repo }).set(H).send({ merge_destination: { ref: keep }, merge_candidates: [{ ref: dup }] });
    assert.equal(res.status, 200, res.text);
    const tree = (await t.http.get(`${keep}/tree`).set(H)).body;
    assert.deepEqual(tree.children.map((c: any) => c.title), ['Kept file', 'Moved series']);
    assert.deepEqual(tree.children[1].children.map((c: any) => c.title), ['Moved file']);
    assert.equal((await get(moved)).resource.ref, keep);
    assert.equal((await t.http.get(dup).set(H)).status, 404);
  });

  it('refuses mixed types, other repositories, missing records and callers without the permission', async () => {
    const subject = await post('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Alone', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const person = await post('/agents/people', { names: [{ primary_name: 'Solo', name_order: 'direct', sort_name: 'Solo' }] });
    const mixed = await t.http.post('/merge_requests/subject').set(H).send({ merge_destination: { ref: subject }, merge_candidates: [{ ref: person }] });
    assert.deepEqual([mixed.status, mixed.body], [400, { error: { merge_request: ['This merge request can only merge subject records'] } }]);
    const none = await t.http.post('/merge_requests/subject').set(H).send({ merge_destination: { ref: subject }, merge_candidates: [] });
    assert.equal(none.status, 400);
    const missing = await t.http.post('/merge_requests/subject').set(H).send({ merge_destination: { ref: subject }, merge_candidates: [{ ref: '/subjects/99999' }] });
    assert.equal(missing.status, 400);
    const other = (await t.http.post('/repositories').set(H).send({ repo_code: 'MRG2', name: 'Other' })).body.id;
    const box = await post(`${base}/top_containers`, { type: 'box', indicator: '9' });
    const box2 = await post(`/repositories/${other}/top_containers`, { type: 'box', indicator: '9' });
    const cross = await t.http.post('/merge_requests/top_container').query({ repo_id: repo }).set(H).send({ merge_destination: { ref: box }, merge_candidates: [{ ref: box2 }] });
    assert.deepEqual([cross.status, cross.body], [400, { error: { merge_request: ['All records to merge must be in the repository specified'] } }]);
    await t.http.post('/users').query({ password: 'pw' }).set(H).send({ username: 'merge-nobody', name: 'N' }).expect(200);
    const nobody = (await t.http.post('/users/merge-nobody/login').query({ password: 'pw' })).body.session;
    const refused = await t.http.post('/merge_requests/subject').set('X-ArchivesSpace-Session', nobody).send({ merge_destination: { ref: subject }, merge_candidates: [{ ref: subject }] });
    assert.equal(refused.status, 403);
    assert.equal((await t.http.get(subject).set(H)).status, 200);
  });
  it('merges agents field by field (agent_detail): a dry run shows the result, the merge keeps the chosen parts and re-points links', async () => {
    const person = (primary: string, id: string) => post('/agents/people', {
      names: [{ primary_name: primary, rest_of_name: 'Jane', name_order: 'inverted', sort_name: `${primary}, Jane` }],
      agent_record_identifiers: [{ record_identifier: id, primary_identifier: true, source: 'local' }],
    });
    const keep = await person('Smith', 'ID-KEEP');
    const dup = await person('Smyth', 'ID-DUP');
    const acc = await post(`${base}/accessions`, { id_0: 'MD1', title: 'Letters', accession_date: '2024-01-01', linked_agents: [{ role: 'creator', ref: dup }] });
    const request = {
      merge_request_detail: {
        jsonmodel_type: 'merge_request_detail', merge_destination: { ref: keep }, merge_candidates: [{ ref: dup }],
        selections: { names: [{ primary_name: 'REPLACE', position: '0' }], agent_record_identifiers: [{ append: 'REPLACE', position: '0' }] },
      },
    };
    const dry = await t.http.post('/merge_requests/agent_detail').query({ dry_run: true }).set(H).send(request);
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.result.names[0].primary_name, 'Smyth');
    assert.equal(dry.body.result.names[0].authorized, true, 'a replaced name keeps the destination\'s flags');
    assert.deepEqual(dry.body.result.agent_record_identifiers.map((i: any) => [i.record_identifier, i.primary_identifier]), [['ID-KEEP', true], ['ID-DUP', false]]);
    assert.deepEqual(dry.body.selections, { 'names.0.primary_name.0': 'REPLACE', 'agent_record_identifiers.0.append.0': 'REPLACE' });
    assert.equal((await t.http.get(dup).set(H)).status, 200, 'a dry run writes nothing');
    assert.equal((await get(keep)).names[0].primary_name, 'Smith');

    const merged = await t.http.post('/merge_requests/agent_detail').set(H).send(request);
    assert.equal(merged.status, 200, merged.text);
    assert.deepEqual([merged.body.status, merged.body.merge_destination_uri, merged.body.deleted_uris], ['Merged', keep, [dup]]);
    const after = await get(keep);
    assert.equal(after.names[0].primary_name, 'Smyth');
    assert.equal(after.agent_record_identifiers.length, 2);
    assert.equal((await t.http.get(dup).set(H)).status, 404);
    assert.equal((await get(acc)).linked_agents[0].ref, keep);

    const other = await person('Jones', 'ID-J');
    const bad = async (selections: unknown, refs = { merge_destination: { ref: keep }, merge_candidates: [{ ref: other }] }) =>
      t.http.post('/merge_requests/agent_detail').set(H).send({ merge_request_detail: { ...refs, selections } });
    assert.equal((await bad('names')).status, 400);
    assert.match(JSON.stringify((await bad({ names: [{ primary_name: 'REPLACE', position: '5' }] })).body), /no names at position 5/);
    assert.equal((await bad({}, { merge_destination: { ref: keep }, merge_candidates: [{ ref: `${base}/accessions/1` }] } as any)).status, 400);
    assert.equal((await t.http.get(other).set(H)).status, 200, 'refused requests merge nothing');
  });
});
