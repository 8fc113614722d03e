import assert from 'node:assert/strict';
import { linksCheck, treesCheck } from '../../src/cli/doctor/checks';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * POST …/batch_imports: records linked by temporary URIs, created in one transaction in the order
 * their links need, answered as ArchivesSpace's progress array ending with what was saved.
 */
describe(`batch imports (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'BATCH');
  });
  after(() => t?.close());

  const RESOURCE = {
    jsonmodel_type: 'resource', level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }],
    extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
  };
  const batch = async (records: unknown[], query: Record<string, string> = {}) => {
    const res = await t.http.post(`/repositories/${repo}/batch_imports`).query(query).set(H).send(records);
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const entries = JSON.parse(res.text);
    assert.ok(Array.isArray(entries), res.text);
    return entries as any[];
  };
  const get = async (uri: string) => (await t.http.get(uri).set(H)).body;

  it('creates linked records in the order their links need (children listed before their parents), with new list values', async () => {
    const entries = await batch([
      // Listed first, created last: they link to records further down.
      { jsonmodel_type: 'archival_object', uri: '/repositories/import/archival_objects/import_2', title: 'Second file', level: 'file', position: 1,
        resource: { ref: '/repositories/import/resources/import_r' }, parent: { ref: '/repositories/import/archival_objects/import_s' } },
      { jsonmodel_type: 'archival_object', uri: '/repositories/import/archival_objects/import_1', title: 'First file', level: 'file', position: 0,
        resource: { ref: '/repositories/import/resources/import_r' }, parent: { ref: '/repositories/import/archival_objects/import_s' },
        subjects: [{ ref: '/subjects/import_subject' }] },
      { jsonmodel_type: 'archival_object', uri: '/repositories/import/archival_objects/import_s', title: 'Series', level: 'series',
        resource: { ref: '/repositories/import/resources/import_r' } },
      { ...RESOURCE, uri: '/repositories/import/resources/import_r', id_0: 'B-1', title: 'Batch papers',
        subjects: [{ ref: '/subjects/import_subject' }], linked_agents: [{ role: 'creator', ref: '/agents/people/import_agent' }] },
      { jsonmodel_type: 'subject', uri: '/subjects/import_subject', source: 'batch-migrated-source', vocabulary: '/vocabularies/1',
        terms: [{ term: 'Batches', term_type: 'topical', vocabulary: '/vocabularies/1' }] },
      { jsonmodel_type: 'agent_person', uri: '/agents/people/import_agent', names: [{ primary_name: 'Migrator', name_order: 'direct', sort_name: 'Migrator', source: 'local' }] },
    ]);
    const last = entries[entries.length - 1];
    assert.equal(last.errors, undefined, JSON.stringify(last));
    assert.equal(Object.keys(last.saved).length, 6);
    assert.ok(entries.some((e) => e.status?.[0]?.label === 'Saving records'), JSON.stringify(entries));
    const [resourceUri, resourceId] = last.saved['/repositories/import/resources/import_r'];
    assert.equal(resourceUri, `/repositories/${repo}/resources/${resourceId}`);
    const resource = await get(resourceUri);
    assert.equal(resource.title, 'Batch papers');
    assert.equal(resource.subjects[0].ref, last.saved['/subjects/import_subject'][0]);
    assert.equal(resource.linked_agents[0].ref, last.saved['/agents/people/import_agent'][0]);
    assert.equal((await get(last.saved['/subjects/import_subject'][0])).source, 'batch-migrated-source', 'a new value of an editable list is added to it');
    const tree = await get(`${resourceUri}/tree/root`);
    assert.equal(tree.child_count, 1);
    const series = last.saved['/repositories/import/archival_objects/import_s'][0];
    const node = await get(`${resourceUri}/tree/node?node_uri=${encodeURIComponent(series)}`);
    const children = await get(`${resourceUri}/tree/waypoint?offset=0&parent_node=${encodeURIComponent(series)}`);
    assert.equal(node.child_count, 2);
    assert.deepEqual(children.map((c: any) => c.title), ['First file', 'Second file'], 'siblings in their positions');
    for (const check of [linksCheck, treesCheck]) {
      const result = await check.run({ config: t.config, registry: t.services.registry, db: t.services.db, migrated: true });
      assert.equal(result.status, 'ok', JSON.stringify(result));
    }

    // The same subject again: the one already stored is linked, not refused.
    const again = await batch([
      { jsonmodel_type: 'subject', uri: 'import_subject_again', source: 'batch-migrated-source', vocabulary: '/vocabularies/1',
        terms: [{ term: 'Batches', term_type: 'topical', vocabulary: '/vocabularies/1' }] },
      { jsonmodel_type: 'accession', uri: 'import_accession', id_0: 'B-2', title: 'Links the stored subject', accession_date: '2024-01-01',
        subjects: [{ ref: 'import_subject_again' }], related_resources: [{ ref: resourceUri }] },
    ], { skip_results: 'false' });
    const saved = again[again.length - 1].saved;
    assert.equal(saved.import_subject_again[0], last.saved['/subjects/import_subject'][0]);
    assert.equal((await get(saved.import_accession[0])).related_resources[0].ref, resourceUri);
  });

  it('places a long run of siblings listed in any order where their positions say', async () => {
    const n = 400;
    const children = Array.from({ length: n }, (_, i) => ({
      jsonmodel_type: 'archival_object', uri: `import_child_${i}`, title: `Item ${i}`, level: 'item', position: i,
      resource: { ref: 'import_long' },
    })).reverse();
    const entries = await batch([...children, { ...RESOURCE, uri: 'import_long', id_0: 'B-LONG', title: 'Long' }]);
    const saved = entries[entries.length - 1].saved;
    assert.equal(Object.keys(saved).length, n + 1, JSON.stringify(entries[entries.length - 1]).slice(0, 300));
    const top = await get(`${saved.import_long[0]}/tree/root`);
    assert.equal(top.child_count, n);
    const first = await get(`${saved.import_long[0]}/tree/waypoint?offset=0`);
    assert.deepEqual(first.slice(0, 3).map((c: any) => c.title), ['Item 0', 'Item 1', 'Item 2']);
  });

  it('links records that name each other in a circle', async () => {
    const entries = await batch([
      { jsonmodel_type: 'accession', uri: 'import_a', id_0: 'B-C1', title: 'A', accession_date: '2024-01-01', related_accessions: [{ jsonmodel_type: 'accession_sibling_relationship', relator: 'sibling_of', relator_type: 'bound_with', ref: 'import_b' }] },
      { jsonmodel_type: 'accession', uri: 'import_b', id_0: 'B-C2', title: 'B', accession_date: '2024-01-01', related_accessions: [{ jsonmodel_type: 'accession_sibling_relationship', relator: 'sibling_of', relator_type: 'bound_with', ref: 'import_a' }] },
    ]);
    const saved = entries[entries.length - 1].saved;
    assert.ok(saved.import_a && saved.import_b, JSON.stringify(entries));
    assert.equal((await get(saved.import_a[0])).related_accessions[0].ref, saved.import_b[0]);
    assert.equal((await get(saved.import_b[0])).related_accessions[0].ref, saved.import_a[0]);
  });

  it('writes nothing of a batch with a bad record, and says which and why', async () => {
    const before = (await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1 }).set(H)).body.total;
    const entries = await batch([
      { jsonmodel_type: 'accession', uri: 'import_ok', id_0: 'B-OK', title: 'Fine', accession_date: '2024-01-01' },
      { jsonmodel_type: 'accession', uri: 'import_bad', id_0: 'B-BAD', title: 'No date' , accession_date: 'not a date' },
    ]);
    const last = entries[entries.length - 1];
    assert.deepEqual(last.saved, []);
    assert.match(last.errors[0], /import_bad/);
    assert.match(last.errors[0], /accession_date/);
    // A record that fails only when it is written (its identifier is taken) rolls back the ones before it.
    const taken = await batch([
      { jsonmodel_type: 'accession', uri: 'import_first', id_0: 'B-FIRST', title: 'First', accession_date: '2024-01-01' },
      { jsonmodel_type: 'accession', uri: 'import_dup', id_0: 'B-2', title: 'Identifier taken', accession_date: '2024-01-01' },
    ]);
    assert.match(taken[taken.length - 1].errors[0], /Identifier taken/);
    assert.equal((await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1 }).set(H)).body.total, before);

    for (const [body, message] of [
      [{ not: 'an array' }, /must be a JSON array/],
      [[{ jsonmodel_type: 'accession', title: 'no uri' }], /Missing the temporary uri/],
      [[{ jsonmodel_type: 'no_such_type', uri: 'x' }], /not a record type/],
      [[{ jsonmodel_type: 'accession', uri: 'x' }, { jsonmodel_type: 'accession', uri: 'x' }], /used twice/],
    ] as Array<[unknown, RegExp]>) {
      const res = await t.http.post(`/repositories/${repo}/batch_imports`).set(H).send(body as object);
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error.batch_import[0], message);
    }
    // import_records is needed.
    const viewers = (await t.http.get(`/repositories/${repo}/groups`).query({ group_code: 'repository-viewers' }).set(H)).body[0].uri;
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [viewers] }).set(H).send({ username: 'batch-viewer', name: 'V' }).expect(200);
    const viewer = { 'X-ArchivesSpace-Session': (await t.http.post('/users/batch-viewer/login').query({ password: 'pw' })).body.session };
    assert.equal((await t.http.post(`/repositories/${repo}/batch_imports`).set(viewer).send([])).status, 403);
  });
});
