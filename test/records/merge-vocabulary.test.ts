import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';

/**
 * Merge requests in the vocabulary of ArchivesSpace before 4.1 (`target`, `victims`; the answer's
 * `target_uri`), which scripts written for 3.x send, beside `merge_destination` and `merge_candidates`.
 */
describe(`merge requests in the 3.x vocabulary (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  let base: string;
  let n = 0;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'MRV', name: 'Merges' })).body.id;
    base = `/repositories/${repo}`;
  });
  after(() => t?.close());

  const post = async (path: string, body: object) => {
    const res = await t.http.post(path).set(H).send(body);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body.uri as string;
  };
  const RESOURCE = {
    level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
  };
  /** A fresh record of each merge route's type, and whether the route takes repo_id. */
  const makers: Record<string, { make: () => Promise<string>; scoped: boolean }> = {
    subject: { scoped: false, make: () => post('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `Term ${++n}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] }) },
    agent: { scoped: false, make: () => post('/agents/people', { names: [{ primary_name: `Person ${++n}`, name_order: 'direct', sort_name: `Person ${n}` }] }) },
    container_profile: { scoped: false, make: () => post('/container_profiles', { name: `Box ${++n}`, extent_dimension: 'width', dimension_units: 'inches', width: '10', height: '12', depth: '15' }) },
    top_container: { scoped: true, make: () => post(`${base}/top_containers`, { type: 'box', indicator: `${++n}` }) },
    resource: { scoped: true, make: () => post(`${base}/resources`, { ...RESOURCE, id_0: `R${++n}`, title: `Resource ${n}` }) },
    digital_object: { scoped: true, make: () => post(`${base}/digital_objects`, { digital_object_id: `D${++n}`, title: `Object ${n}` }) },
  };
  const merge = (route: string, body: object) => {
    const req = t.http.post(`/merge_requests/${route}`).set(H);
    return (makers[route]?.scoped ? req.query({ repo_id: repo }) : req).send(body);
  };

  for (const route of Object.keys(makers)) {
    it(`merges with target and victims on /merge_requests/${route}, answering target_uri as 3.x did`, async () => {
      const [keep, dup1, dup2] = [await makers[route].make(), await makers[route].make(), await makers[route].make()];
      const res = await merge(route, { uri: `merge_requests/${route}`, target: { ref: keep }, victims: [{ ref: dup1 }, { ref: dup2 }] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        status: 'Merged', id: Number(keep.split('/').pop()), selections: [], merge_destination_uri: keep, target_uri: keep, deleted_uris: [dup1, dup2],
      });
      for (const gone of [dup1, dup2]) assert.equal((await t.http.get(gone).set(H)).status, 404, gone);
      assert.equal((await t.http.get(keep).set(H)).status, 200);
    });
  }

  it('answers the 4.1 vocabulary without target_uri, and takes both vocabularies when they name the same records', async () => {
    const [keep, dup, dup2] = [await makers.subject.make(), await makers.subject.make(), await makers.subject.make()];
    const current = await merge('subject', { merge_destination: { ref: keep }, merge_candidates: [{ ref: dup }] });
    assert.equal(current.status, 200, current.text);
    assert.equal('target_uri' in current.body, false);
    const dup3 = await makers.subject.make();
    const both = await merge('subject', { merge_destination: { ref: keep }, target: { ref: keep }, merge_candidates: [{ ref: dup2 }, { ref: dup3 }], victims: [{ ref: dup3 }, { ref: dup2 }] });
    assert.equal(both.status, 200, both.text);
    assert.deepEqual([both.body.merge_destination_uri, both.body.target_uri, both.body.deleted_uris], [keep, keep, [dup2, dup3]], 'in either order, merge_candidates\' order');
  });

  it('mixes the vocabularies (merge_destination with victims, target with merge_candidates)', async () => {
    const [keep, dup, dup2] = [await makers.subject.make(), await makers.subject.make(), await makers.subject.make()];
    const a = await merge('subject', { merge_destination: { ref: keep }, victims: [{ ref: dup }] });
    assert.equal(a.status, 200, a.text);
    const b = await merge('subject', { target: { ref: keep }, merge_candidates: [{ ref: dup2 }] });
    assert.equal(b.status, 200, b.text);
    assert.deepEqual([b.body.target_uri, b.body.deleted_uris], [keep, [dup2]]);
  });

  it('refuses a body with neither vocabulary, no victims, and the two vocabularies naming different records', async () => {
    const [keep, dup, other] = [await makers.subject.make(), await makers.subject.make(), await makers.subject.make()];
    const neither = await merge('subject', { uri: 'merge_requests/subject' });
    assert.deepEqual([neither.status, neither.body], [400, { error: { merge_destination: ['Property is required but was missing'] } }]);
    const noVictims = await merge('subject', { target: { ref: keep }, victims: [] });
    assert.deepEqual([noVictims.status, noVictims.body], [400, { error: { merge_candidates: ['Must have at least 1 item, each with a ref'] } }]);
    const victimWithoutRef = await merge('subject', { target: { ref: keep }, victims: [{ uri: dup }] });
    assert.equal(victimWithoutRef.status, 400);
    const twoTargets = await merge('subject', { merge_destination: { ref: keep }, target: { ref: other }, merge_candidates: [{ ref: dup }] });
    assert.deepEqual([twoTargets.status, twoTargets.body], [400, { error: { merge_request: ['merge_destination and target name different records: send one of them'] } }]);
    const twoVictimLists = await merge('subject', { target: { ref: keep }, merge_candidates: [{ ref: dup }], victims: [{ ref: other }] });
    assert.deepEqual([twoVictimLists.status, twoVictimLists.body], [400, { error: { merge_request: ['merge_candidates and victims name different records: send one of them'] } }]);
    const missing = await merge('subject', { target: { ref: keep }, victims: [{ ref: '/subjects/99999' }] });
    assert.equal(missing.status, 400);
    const wrongType = await merge('subject', { target: { ref: keep }, victims: [{ ref: `${base}/top_containers/1` }] });
    assert.equal(wrongType.status, 400);
    for (const uri of [keep, dup, other]) assert.equal((await t.http.get(uri).set(H)).status, 200, 'refused requests merge nothing');
  });

  it('merges agents field by field (agent_detail) with target and victims', async () => {
    const keep = await makers.agent.make();
    const dup = await makers.agent.make();
    const request = {
      merge_request_detail: {
        jsonmodel_type: 'merge_request_detail', target: { ref: keep }, victims: [{ ref: dup }],
        selections: { names: [{ primary_name: 'REPLACE', position: '0' }] },
      },
    };
    const dry = await t.http.post('/merge_requests/agent_detail').query({ dry_run: true }).set(H).send(request);
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.target_uri, keep);
    assert.match(dry.body.result.names[0].primary_name, /^Person /);
    const merged = await t.http.post('/merge_requests/agent_detail').set(H).send(request);
    assert.equal(merged.status, 200, merged.text);
    assert.deepEqual([merged.body.target_uri, merged.body.deleted_uris], [keep, [dup]]);
    assert.equal((await t.http.get(dup).set(H)).status, 404);
    const refused = await t.http.post('/merge_requests/agent_detail').set(H).send({ merge_request_detail: { target: { ref: keep }, victims: [], selections: {} } });
    assert.equal(refused.status, 400);
  });
});
