import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { viewerAndNobody } from '../exchange/viewer';

/**
 * GET /repositories/:repo_id/collection_management/:id, as ArchivesSpace answers it: the collection
 * management kept inside an accession, resource or digital object, with its uri and parent.
 */
describe(`collection management by id (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  let base: string;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'CM', name: 'Processing' })).body.id;
    base = `/repositories/${repo}`;
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
  const RESOURCE = {
    level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
  };
  const CM = { processing_status: 'new', processing_priority: 'high', processors: 'A. Archivist', processing_hours_total: '12', external_ids: [{ external_id: 'cm-1', source: 'local' }] };

  it('gives the collection management of accessions, resources and digital objects a uri, and answers it there with its parent', async () => {
    const acc = await post(`${base}/accessions`, { id_0: 'CM1', title: 'Accession', accession_date: '2024-01-01', collection_management: CM });
    const res = await post(`${base}/resources`, { ...RESOURCE, id_0: 'CM2', title: 'Resource', collection_management: { processing_status: 'in_progress' } });
    const dobj = await post(`${base}/digital_objects`, { digital_object_id: 'CM3', title: 'Scan', collection_management: { rights_determined: true } });
    const uris: string[] = [];
    for (const parent of [acc, res, dobj]) {
      const record = await get(parent);
      const uri = record.collection_management.uri as string;
      assert.match(uri, new RegExp(`^${base}/collection_management/\\d+$`), parent);
      uris.push(uri);
      const cm = await get(uri);
      assert.deepEqual(cm.parent, { ref: parent });
      assert.deepEqual(cm.repository, { ref: base });
      assert.equal(cm.jsonmodel_type, 'collection_management');
      assert.equal(cm.uri, uri);
      assert.equal(cm.lock_version, 0);
      for (const field of ['created_by', 'last_modified_by', 'create_time', 'system_mtime', 'user_mtime']) assert.ok(cm[field], field);
    }
    assert.equal(new Set(uris).size, 3, 'one id each');
    const cm = await get(uris[0]);
    assert.equal(cm.processing_status, 'new');
    assert.equal(cm.processors, 'A. Archivist');
    assert.equal(cm.rights_determined, false);
    assert.deepEqual(cm.external_ids.map((e: any) => e.external_id), ['cm-1']);
    assert.equal((await get(uris[2])).rights_determined, true);

    // resolve[] resolves the parent, as ArchivesSpace's route does.
    const resolved = await t.http.get(uris[0]).query({ 'resolve[]': 'parent' }).set(H);
    assert.equal(resolved.body.parent._resolved.title, 'Accession');

    // An update keeps the address; what it changed is answered there.
    const record = await get(acc);
    const updated = await t.http.post(acc).set(H).send({ ...record, collection_management: { ...record.collection_management, processing_status: 'completed' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await get(acc)).collection_management.uri, uris[0]);
    assert.equal((await get(uris[0])).processing_status, 'completed');
    assert.equal((await get(uris[0])).last_modified_by, 'admin');
  });

  it('answers 404 in the usual shape where there is none, 400 for an id that is not a number, 403 without view_repository', async () => {
    const bare = await post(`${base}/accessions`, { id_0: 'CM4', title: 'No processing', accession_date: '2024-01-01' });
    assert.equal((await get(bare)).collection_management, undefined);
    const withCm = await post(`${base}/accessions`, { id_0: 'CM5', title: 'Processing', accession_date: '2024-01-01', collection_management: CM });
    const uri = (await get(withCm)).collection_management.uri as string;
    const id = Number(uri.split('/').pop());
    // The neighbouring ids: another type's record of the same id, a record that has none, one that does not exist.
    for (const missing of [id + 1, id + 2, id - 3, 999_999, 0]) {
      const res = await t.http.get(`${base}/collection_management/${missing}`).set(H);
      if (res.status === 200) assert.notEqual(res.body.parent.ref, withCm);
      else assert.deepEqual([res.status, res.body], [404, { error: 'CollectionManagement not found' }], String(missing));
    }
    const none = await t.http.get(`${base}/collection_management/999999`).set(H);
    assert.deepEqual([none.status, none.body], [404, { error: 'CollectionManagement not found' }]);
    const bad = await t.http.get(`${base}/collection_management/abc`).set(H);
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.id, bad.text);

    const other = (await t.http.post('/repositories').set(H).send({ repo_code: 'CM-OTHER', name: 'Other' })).body.id;
    const elsewhere = await t.http.get(`/repositories/${other}/collection_management/${id}`).set(H);
    assert.deepEqual([elsewhere.status, elsewhere.body], [404, { error: 'CollectionManagement not found' }], 'another repository\'s is not found');

    const { viewer, nobody } = await viewerAndNobody(t, repo, 'cm-');
    assert.equal((await t.http.get(uri).set('X-ArchivesSpace-Session', viewer)).status, 200);
    assert.equal((await t.http.get(uri).set('X-ArchivesSpace-Session', nobody)).status, 403);

    assert.equal((await t.http.delete(withCm).set(H)).status, 200);
    const gone = await t.http.get(uri).set(H);
    assert.deepEqual([gone.status, gone.body], [404, { error: 'CollectionManagement not found' }], 'deleted with its record');
  });

  it('moves with its record to another repository', async () => {
    const acc = await post(`${base}/accessions`, { id_0: 'CM6', title: 'Moving', accession_date: '2024-01-01', collection_management: CM });
    const uri = (await get(acc)).collection_management.uri as string;
    const to = (await t.http.post('/repositories').set(H).send({ repo_code: 'CM-TO', name: 'Target' })).body.id;
    const moved = await t.http.post(`${acc}/transfer`).query({ target_repo: `/repositories/${to}` }).set(H);
    assert.equal(moved.status, 200, moved.text);
    const newAcc = acc.replace(base, `/repositories/${to}`);
    const newUri = uri.replace(base, `/repositories/${to}`);
    assert.equal((await get(newAcc)).collection_management.uri, newUri);
    assert.deepEqual((await get(newUri)).parent, { ref: newAcc });
    assert.equal((await t.http.get(uri).set(H)).status, 404);
  });
});
