import assert from 'node:assert/strict';
import { linksCheck, recordsCheck, treesCheck } from '../../src/cli/doctor/checks';
import { startTestApp, STORE, TestApp } from '../helpers';

/**
 * Repository transfers: a record moves with its tree, the containers and digital objects only it
 * uses and the events only about it; links follow; what stands in the way is a 409 and nothing moves.
 */
describe(`repository transfers (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(() => t?.close());

  const post = async (path: string, body: object) => {
    const res = await t.http.post(path).set(H).send(body);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body.uri as string;
  };
  const get = async (uri: string) => {
    const res = await t.http.get(uri).set(H);
    assert.equal(res.status, 200, `${uri}: ${res.text}`);
    return res.body;
  };
  const status = async (uri: string) => (await t.http.get(uri).set(H)).status;
  const repository = async (code: string, agent = true) => {
    if (!agent) return Number((await t.http.post('/repositories').set(H).send({ repo_code: code, name: code })).body.id);
    const res = await t.http.post('/repositories/with_agent').set(H).send({
      repository: { repo_code: code, name: `${code} archives` },
      agent_representation: { names: [{ primary_name: `${code} archives`, sort_name: `${code} archives` }] },
    });
    assert.equal(res.status, 200, res.text);
    return Number(res.body.id);
  };
  const doctorIsHappy = async () => {
    for (const check of [linksCheck, recordsCheck, treesCheck]) {
      const result = await check.run({ config: t.config, registry: t.services.registry, db: t.services.db, migrated: true });
      assert.equal(result.status, 'ok', JSON.stringify(result));
    }
  };
  const RESOURCE = {
    level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
  };
  const inst = (box: string) => ({ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box } } });

  it('moves a resource with its tree, its containers, its digital objects and its own events; links follow and the old URIs are deleted', async () => {
    const [from, to] = [await repository('TFROM'), await repository('TTO')];
    const subject = await post('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Mills', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const box = await post(`/repositories/${from}/top_containers`, { type: 'box', indicator: '1', barcode: 'TB-1' });
    const scan = await post(`/repositories/${from}/digital_objects`, { digital_object_id: 'T-DO-1', title: 'Scan' });
    const part = await post(`/repositories/${from}/digital_object_components`, { title: 'Page 1', digital_object: { ref: scan } });
    const accession = await post(`/repositories/${from}/accessions`, { id_0: 'TA', title: 'Left behind', accession_date: '2024-01-01' });
    const resource = await post(`/repositories/${from}/resources`, {
      ...RESOURCE, id_0: 'TR', title: 'Mill papers', subjects: [{ ref: subject }], related_accessions: [{ ref: accession }],
    });
    const series = await post(`/repositories/${from}/archival_objects`, { title: 'Series', level: 'series', resource: { ref: resource }, ref_id: 'tr-s' });
    const file = await post(`/repositories/${from}/archival_objects`, {
      title: 'File', level: 'file', resource: { ref: resource }, parent: { ref: series },
      instances: [inst(box), { instance_type: 'digital_object', digital_object: { ref: scan } }],
    });
    const agent = await post('/agents/people', { names: [{ primary_name: 'Clerk', name_order: 'direct', sort_name: 'Clerk' }] });
    const event = (records: string[]) => post(`/repositories/${from}/events`, {
      event_type: 'processed', date: { date_type: 'single', label: 'event', begin: '2024' },
      linked_agents: [{ role: 'implementer', ref: agent }], linked_records: records.map((ref) => ({ role: 'source', ref })),
    });
    const ownEvent = await event([file]);
    const sharedEvent = await event([resource, accession]);

    const moved = await t.http.post(`${resource}/transfer`).query({ target_repo: `/repositories/${to}` }).set(H);
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(moved.body, { status: 'Moved', id: Number(resource.split('/').pop()), merge_destination: to });

    const there = (uri: string) => uri.replace(`/repositories/${from}/`, `/repositories/${to}/`);
    for (const uri of [resource, series, file, box, scan, part, ownEvent]) {
      assert.equal(await status(uri), 404, uri);
      assert.equal((await get(there(uri))).repository.ref, `/repositories/${to}`, uri);
    }
    const r = await get(there(resource));
    assert.deepEqual(r.subjects, [{ ref: subject }], 'a global record stays linked');
    assert.deepEqual(r.related_accessions ?? [], [], 'a link to a record left behind is dropped');
    const f = await get(there(file));
    assert.equal(f.resource.ref, there(resource));
    assert.equal(f.parent.ref, there(series));
    assert.equal(f.instances[0].sub_container.top_container.ref, there(box));
    assert.equal(f.instances[1].digital_object.ref, there(scan));
    assert.equal((await get(there(part))).digital_object.ref, there(scan));
    assert.deepEqual((await get(there(ownEvent))).linked_records.map((l: any) => l.ref), [there(file)]);
    // The event about the resource and the accession left behind: a copy about the resource there, the original keeps the accession.
    assert.deepEqual((await get(sharedEvent)).linked_records.map((l: any) => l.ref), [accession]);
    const events = (await t.http.get(`/repositories/${to}/events`).query({ page: 1 }).set(H)).body.results;
    const copy = events.find((e: any) => e.event_type === 'processed' && e.linked_records.some((l: any) => l.ref === there(resource)));
    assert.ok(copy, JSON.stringify(events));
    assert.equal(copy.linked_agents[0].ref, agent);
    const custody = events.find((e: any) => e.event_type === 'custody_transfer');
    assert.deepEqual(custody.linked_records, [{ role: 'transfer', ref: there(resource) }]);
    assert.deepEqual(custody.linked_agents.map((a: any) => a.role), ['transmitter', 'recipient']);

    // The tree works under its new URIs; keys and lookups moved with it.
    const tree = await get(`${there(resource)}/tree/root`);
    assert.equal(tree.child_count, 1);
    const node = await get(`${there(resource)}/tree/node?node_uri=${encodeURIComponent(there(series))}`);
    assert.equal(node.child_count, 1);
    const found = await get(`/repositories/${to}/find_by_id/archival_objects?ref_id[]=tr-s`);
    assert.deepEqual(found.archival_objects, [{ ref: there(series) }]);
    assert.equal((await t.http.post(`/repositories/${to}/resources`).set(H).send({ ...RESOURCE, id_0: 'TR', title: 'Clash' })).status, 400, 'the identifier is taken in the target now');
    assert.equal((await t.http.post(`/repositories/${from}/resources`).set(H).send({ ...RESOURCE, id_0: 'TR', title: 'Free again' })).status, 200, 'and free in the source');

    // Search and the delete feed follow the change log.
    await t.services.search!.indexer.drain();
    const hits = (await t.http.get(`/repositories/${to}/search`).query({ page: 1, q: 'Mill papers' }).set(H)).body.results;
    assert.ok(hits.some((h: any) => h.uri === there(resource)), JSON.stringify(hits));
    const old = (await t.http.get(`/repositories/${from}/search`).query({ page: 1, q: 'Mill papers' }).set(H)).body.results;
    assert.ok(!old.some((h: any) => h.uri === resource), JSON.stringify(old));
    const deleted = (await t.http.get('/delete-feed').query({ page: 1 }).set(H)).body.results;
    assert.ok(deleted.includes(resource) && deleted.includes(file), JSON.stringify(deleted));
    await doctorIsHappy();
  });

  it('refuses with 409 what records left behind still use, and moves nothing', async () => {
    const [from, to] = [await repository('TBUSY'), await repository('TBUSY2')];
    const box = await post(`/repositories/${from}/top_containers`, { type: 'box', indicator: '7' });
    const scan = await post(`/repositories/${from}/digital_objects`, { digital_object_id: 'T-DO-2', title: 'Shared scan' });
    const a = await post(`/repositories/${from}/accessions`, {
      id_0: 'TB1', title: 'One', accession_date: '2024-01-01', instances: [inst(box), { instance_type: 'digital_object', digital_object: { ref: scan } }],
    });
    const b = await post(`/repositories/${from}/accessions`, { id_0: 'TB2', title: 'Two', accession_date: '2024-01-01', instances: [inst(box)] });
    const refused = await t.http.post(`${a}/transfer`).query({ target_repo: `/repositories/${to}` }).set(H);
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.error, { [box]: [{ message: 'TOP_CONTAINER_IN_USE' }] });
    for (const uri of [a, b, box, scan]) assert.equal(await status(uri), 200, uri);
    // A digital object linked from a record's instance does not move on its own.
    const linked = await t.http.post(`${scan}/transfer`).query({ target_repo: `/repositories/${to}` }).set(H);
    assert.equal(linked.status, 409, linked.text);
    assert.deepEqual(linked.body.error, { [scan]: [{ message: 'DIGITAL_OBJECT_IN_USE' }] });
    // Once the other accession lets the box go, the first moves with both.
    const bJson = await get(b);
    await post(b, { ...bJson, instances: [] });
    assert.equal((await t.http.post(`${a}/transfer`).query({ target_repo: `/repositories/${to}` }).set(H)).status, 200);
    assert.equal(await status(box.replace(`/repositories/${from}/`, `/repositories/${to}/`)), 200);
    assert.equal(await status(scan.replace(`/repositories/${from}/`, `/repositories/${to}/`)), 200);
    await doctorIsHappy();
  });

  it('answers bad targets and missing permissions in the usual shapes', async () => {
    const [from, to] = [await repository('TPERM', false), await repository('TPERM2', false)];
    const acc = await post(`/repositories/${from}/accessions`, { id_0: 'TP', title: 'Perm', accession_date: '2024-01-01' });
    const transfer = (target: string | undefined, headers = H) => {
      const req = t.http.post(`${acc}/transfer`).set(headers);
      return target === undefined ? req : req.query({ target_repo: target });
    };
    assert.deepEqual((await transfer(undefined)).body, { error: { target_repo: ['Parameter required but no value provided'] } });
    for (const bad of ['/repositories/9999', 'nonsense', '/repositories/1']) {
      const res = await transfer(bad);
      assert.equal(res.status, 400, bad);
      assert.deepEqual(res.body, { error: { target_repo: ['Repository not found'] } });
    }
    assert.equal((await transfer(`/repositories/${from}`)).status, 400);
    assert.equal((await t.http.post(`/repositories/${from}/accessions/99999/transfer`).query({ target_repo: `/repositories/${to}` }).set(H)).status, 404);

    // An archivist of the source repository only: refused in the target, allowed once a member there too.
    const group = async (repo: number) => (await t.http.get(`/repositories/${repo}/groups`).query({ group_code: 'repository-archivists' }).set(H)).body[0].uri;
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [await group(from)] }).set(H).send({ username: 'transfer-archivist', name: 'A' }).expect(200);
    const archivist = { 'X-ArchivesSpace-Session': (await t.http.post('/users/transfer-archivist/login').query({ password: 'pw' })).body.session };
    const denied = await transfer(`/repositories/${to}`, archivist);
    assert.equal(denied.status, 403, denied.text);
    assert.deepEqual(denied.body, { error: { target_repo: ['Permission denied'] } });
    assert.equal(await status(acc), 200);
    const user = (await t.http.get('/users').query({ page: 1 }).set(H)).body.results.find((u: any) => u.username === 'transfer-archivist');
    const joined = await t.http.post(`${user.uri}/groups`).query({ 'groups[]': [await group(to)], repo_id: to, remove_groups: false }).set(H);
    assert.equal(joined.status, 200, joined.text);
    const allowed = await transfer(`/repositories/${to}`, archivist);
    assert.equal(allowed.status, 200, allowed.text);
    // No agents on either repository: no custody event is made.
    assert.equal((await t.http.get(`/repositories/${to}/events`).query({ page: 1 }).set(H)).body.total, 0);
    // A whole repository needs transfer_repository, which archivists do not hold.
    assert.equal((await t.http.post(`/repositories/${from}/transfer`).query({ target_repo: `/repositories/${to}` }).set(archivist)).status, 403);
  });

  it('moves every record of a repository, or none when a key is taken in the target', async () => {
    const [from, to] = [await repository('TALL'), await repository('TALL2')];
    const res = await post(`/repositories/${from}/resources`, { ...RESOURCE, id_0: 'TALL-R', title: 'Everything' });
    const ao = await post(`/repositories/${from}/archival_objects`, { title: 'Part', level: 'file', resource: { ref: res } });
    const acc = await post(`/repositories/${from}/accessions`, { id_0: 'TALL-A', title: 'Acc', accession_date: '2024-01-01', related_resources: [{ ref: res }] });
    const taken = await post(`/repositories/${to}/accessions`, { id_0: 'TALL-A', title: 'Same identifier', accession_date: '2024-01-01' });
    const clash = await t.http.post(`/repositories/${from}/transfer`).query({ target_repo: `/repositories/${to}` }).set(H);
    assert.equal(clash.status, 409, clash.text);
    assert.equal(clash.body.error[acc][0].json_property, 'id_0');
    for (const uri of [res, ao, acc]) assert.equal(await status(uri), 200, uri);

    await t.http.delete(taken).set(H).expect(200);
    const done = await t.http.post(`/repositories/${from}/transfer`).query({ target_repo: `/repositories/${to}` }).set(H);
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body, { status: 'OK' });
    const there = (uri: string) => uri.replace(`/repositories/${from}/`, `/repositories/${to}/`);
    assert.equal((await get(there(acc))).related_resources[0].ref, there(res), 'links among moved records follow');
    assert.equal((await get(there(ao))).resource.ref, there(res));
    assert.equal((await t.http.get(`/repositories/${from}/accessions`).query({ page: 1 }).set(H)).body.total, 0);
    // The repository's own groups stay: its archivists group is still there.
    assert.equal((await t.http.get(`/repositories/${from}/groups`).query({ group_code: 'repository-archivists' }).set(H)).body.length, 1);
    await doctorIsHappy();
  });
});
