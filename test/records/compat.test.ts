import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { showingClause, showingRecordsAs } from '../../src/store/connect';

/** Behaviours public institutional scripts rely on, each as ArchivesSpace answers. */
describe(`ArchivesSpace behaviours scripts rely on (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: string;
  const RESOURCE = {
    level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }],
    extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
  };

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = `/repositories/${(await t.http.post('/repositories').set(H).send({ repo_code: 'COMPAT', name: 'Compat' })).body.id}`;
  });
  after(() => t?.close());

  const create = async (path: string, body: object) => {
    const res = await t.http.post(path).set(H).send(body);
    assert.equal(res.status, 200, res.text);
    return (await t.http.get(res.body.uri).set(H)).body;
  };

  it('answers publish: false and suppressed: false for records and subrecords saved without them', async () => {
    const dobj = await create(`${repo}/digital_objects`, { digital_object_id: 'DO-P', title: 'Scans', file_versions: [{ file_uri: 'http://example.org/1.jpg' }] });
    assert.equal(dobj.publish, false);
    assert.equal(dobj.suppressed, false);
    assert.equal(dobj.file_versions[0].publish, false);
    const acc = await create(`${repo}/accessions`, { id_0: 'P1', title: 'Unpublished', accession_date: '2024-01-01' });
    assert.deepEqual([acc.publish, acc.suppressed], [false, false]);
    const suppressed = await t.http.post(`${acc.uri}/suppressed`).query({ suppressed: true }).set(H);
    assert.equal(suppressed.status, 200, suppressed.text);
    assert.equal((await t.http.get(acc.uri).set(H)).body.suppressed, true);
  });

  it("fills a digital object's collection and linked_instances from the records whose instances link it", async () => {
    const dobj = await create(`${repo}/digital_objects`, { digital_object_id: 'DO-L', title: 'Linked' });
    await create(`${repo}/digital_object_components`, { title: 'Part', digital_object: { ref: dobj.uri } });
    const instance = { instance_type: 'digital_object', digital_object: { ref: dobj.uri } };
    const resource = await create(`${repo}/resources`, { ...RESOURCE, id_0: 'L1', title: 'Holding resource' });
    const published = await create(`${repo}/archival_objects`, { title: 'Published file', level: 'file', publish: true, resource: { ref: resource.uri }, instances: [instance] });
    const hidden = await create(`${repo}/archival_objects`, { title: 'Unpublished file', level: 'file', resource: { ref: resource.uri }, instances: [instance] });
    const acc = await create(`${repo}/accessions`, { id_0: 'L2', title: 'Holding accession', accession_date: '2024-01-01', instances: [instance] });
    const got = (await t.http.get(dobj.uri).set(H)).body;
    assert.deepEqual(got.linked_instances.map((l: any) => l.ref).sort(), [published.uri, hidden.uri, acc.uri].sort());
    // An archival object gives its resource only when it is published (as the original).
    assert.deepEqual(got.collection.map((c: any) => c.ref).sort(), [resource.uri, acc.uri].sort());
  });

  it('publishes the nested subrecords that have a publish flag with the record', async () => {
    const dobj = await create(`${repo}/digital_objects`, {
      digital_object_id: 'DO-C', title: 'Cascade', file_versions: [{ file_uri: 'http://example.org/2.jpg', publish: false }],
      notes: [{ jsonmodel_type: 'note_digital_object', type: 'note', content: ['A note'], publish: false }],
    });
    const res = await t.http.post(`${dobj.uri}/publish`).set(H);
    assert.equal(res.status, 200, res.text);
    const got = (await t.http.get(dobj.uri).set(H)).body;
    assert.equal(got.publish, true);
    assert.equal(got.file_versions[0].publish, true);
    assert.equal(got.notes[0].publish, true);
    // Unpublishing a resource reaches its components' notes the same way.
    const resource = await create(`${repo}/resources`, { ...RESOURCE, id_0: 'UNP', title: 'Unpublish', publish: true });
    const ao = await create(`${repo}/archival_objects`, {
      title: 'File', level: 'file', publish: true, resource: { ref: resource.uri },
      notes: [{ jsonmodel_type: 'note_singlepart', type: 'abstract', content: ['Shown'], publish: true }],
    });
    assert.equal((await t.http.post(`${resource.uri}/unpublish`).set(H)).status, 200);
    const after = (await t.http.get(ao.uri).set(H)).body;
    assert.deepEqual([after.publish, after.notes[0].publish], [false, false]);
  });

  it('lists the top containers of a resource and of its published archival objects only', async () => {
    const box = (n: string) => create(`${repo}/top_containers`, { type: 'box', indicator: n });
    const [own, shown, hiddenBox] = await Promise.all([box('1'), box('2'), box('3')]);
    const inst = (uri: string) => [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: uri } } }];
    const resource = await create(`${repo}/resources`, { ...RESOURCE, id_0: 'TC', title: 'Boxes', publish: true, instances: inst(own.uri) });
    await create(`${repo}/archival_objects`, { title: 'Shown', level: 'file', publish: true, resource: { ref: resource.uri }, instances: inst(shown.uri) });
    await create(`${repo}/archival_objects`, { title: 'Not shown', level: 'file', publish: false, resource: { ref: resource.uri }, instances: inst(hiddenBox.uri) });
    const hiddenSeries = await create(`${repo}/archival_objects`, { title: 'Unpublished series', level: 'series', publish: false, resource: { ref: resource.uri } });
    const [under] = await Promise.all([box('4')]);
    await create(`${repo}/archival_objects`, { title: 'Published, under it', level: 'file', publish: true, resource: { ref: resource.uri }, parent: { ref: hiddenSeries.uri }, instances: inst(under.uri) });
    const res = await t.http.get(`${resource.uri}/top_containers`).set(H);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.map((c: any) => c.ref), [own.uri, shown.uri]);
    // An unpublished resource lists nothing, as its tree is not shown at all.
    const draft = await create(`${repo}/resources`, { ...RESOURCE, id_0: 'TC2', title: 'Draft', instances: inst(own.uri) });
    assert.deepEqual((await t.http.get(`${draft.uri}/top_containers`).set(H)).body, []);
    assert.equal((await t.http.get(`${repo}/resources/999999/top_containers`).set(H)).status, 404);
  });

  it('reads a path with doubled slashes as the single-slash path', async () => {
    const res = await t.http.get(`${repo}//accessions`).query({ page: 1 }).set(H);
    assert.equal(res.status, 200, res.text);
    const search = await t.http.get(`${repo}//search`).query({ page: 1, q: '*' }).set(H);
    assert.equal(search.status, 200, search.text);
  });

  it('matches boolean_field_query on a string field and identifiers with a space by their words', async () => {
    await create(`${repo}/resources`, { ...RESOURCE, id_0: 'SC 0123', title: 'Smith collection' });
    await create(`${repo}/accessions`, { id_0: 'SC', id_1: '0124', title: 'Smith accession', accession_date: '2024-01-01' });
    await t.services.search!.indexer.drain();
    const aq = (sub: object) => JSON.stringify({ query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [sub] } });
    const byType = await t.http.get(`${repo}/search`).query({ page: 1, aq: aq({ jsonmodel_type: 'boolean_field_query', field: 'primary_type', value: 'resource' }) }).set(H);
    assert.ok(byType.body.results.length > 0, byType.text);
    assert.ok(byType.body.results.every((r: any) => r.primary_type === 'resource'));
    const byId = await t.http.get(`${repo}/search`).query({ page: 1, aq: aq({ jsonmodel_type: 'field_query', field: 'identifier', value: 'SC 0123' }) }).set(H);
    assert.deepEqual(byId.body.results.map((r: any) => r.identifier), ['SC 0123']);
    const byPrefix = await t.http.get(`${repo}/search`).query({ page: 1, q: 'identifier:SC' }).set(H);
    assert.deepEqual(byPrefix.body.results.map((r: any) => r.identifier).sort(), ['SC 0123', 'SC-0124']);
  });

  it('says whether a published record links a subject, agent or top container (is_linked_to_published_record)', async () => {
    const subject = await create('/subjects', { source: 'lcsh', vocabulary: '/vocabularies/1', terms: [{ term: 'Canals', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const agent = await create('/agents/people', { names: [{ primary_name: 'Ames', name_order: 'inverted', source: 'local', sort_name_auto_generate: true }] });
    const box = await create(`${repo}/top_containers`, { type: 'box', indicator: 'IP1' });
    const linked = async () => Promise.all([subject, agent, box].map(async (r) => (await t.http.get(r.uri).set(H)).body.is_linked_to_published_record));
    assert.deepEqual(await linked(), [false, false, false]);
    // An event is not publishable: its link does not count.
    await create(`${repo}/events`, {
      event_type: 'accession', date: { date_type: 'single', label: 'event', begin: '2024-05-01' },
      linked_agents: [{ role: 'implementer', ref: agent.uri }], linked_records: [{ role: 'source', ref: box.uri }],
    });
    const resource = await create(`${repo}/resources`, { ...RESOURCE, id_0: 'IP', title: 'Implied', publish: false });
    const ao = await create(`${repo}/archival_objects`, {
      title: 'File', level: 'file', publish: true, resource: { ref: resource.uri }, subjects: [{ ref: subject.uri }],
      linked_agents: [{ role: 'creator', ref: agent.uri }], instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.uri } } }],
    });
    assert.deepEqual(await linked(), [false, false, false], 'a published component under an unpublished resource is not shown');
    assert.equal((await t.http.post(`${resource.uri}/publish`).set(H)).status, 200);
    assert.deepEqual(await linked(), [true, true, true]);
    const listed = await t.http.get('/subjects').query({ page: 1, page_size: 250 }).set(H);
    assert.equal(listed.body.results.find((r: any) => r.uri === subject.uri).is_linked_to_published_record, true);
    // Answers are kept while nothing is written: a repository marked unpublished takes them back at once.
    const setRepoPublish = async (publish: boolean) => {
      const current = (await t.http.get(repo).set(H)).body;
      assert.equal((await t.http.post(repo).set(H).send({ ...current, publish })).status, 200);
    };
    await setRepoPublish(false);
    assert.deepEqual(await linked(), [false, false, false], 'an unpublished repository shows nothing');
    await setRepoPublish(true);
    assert.deepEqual(await linked(), [true, true, true]);
    assert.equal((await t.http.post(`${ao.uri}/suppressed`).query({ suppressed: true }).set(H)).status, 200);
    assert.deepEqual(await linked(), [false, false, false], 'a suppressed record does not count');
  });

  it('finds the one published record among many that link a subject (is_linked_to_published_record past the first pages)', async () => {
    const subject = await create('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Many links', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const linkedNow = async () => (await t.http.get(subject.uri).set(H)).body.is_linked_to_published_record;
    for (let i = 0; i < 40; i++) await create(`${repo}/accessions`, { id_0: `ML-${i}`, title: `Unpublished ${i}`, publish: false, subjects: [{ ref: subject.uri }] });
    assert.equal(await linkedNow(), false, 'forty unpublished links');
    const last = await create(`${repo}/accessions`, { id_0: 'ML-last', title: 'Published', publish: true, subjects: [{ ref: subject.uri }] });
    assert.equal(await linkedNow(), true, 'the forty-first, published, shows it');
    const current = (await t.http.get(last.uri).set(H)).body;
    assert.equal((await t.http.post(last.uri).set(H).send({ ...current, publish: false })).status, 200);
    assert.equal(await linkedNow(), false);
  });

  it('decides whether linking records show from an index, not their rows (MySQL: migration 017)', async function () {
    if (STORE !== 'mariadb') this.skip();
    const { knex } = t.services.db;
    const query = knex('record_refs as x').join(showingRecordsAs(t.services.db, 'r'), 'r.rid', 'x.from_rid')
      .where('x.to_uri', '/subjects/1').whereIn('r.type', ['accession']).andWhereRaw(showingClause(t.services.db, 'r'))
      .orderBy('x.from_rid').limit(16).select('x.from_rid');
    const [plan] = await knex.raw(`EXPLAIN ${query.toString()}`);
    const records = plan.find((row: any) => row.table === 'r');
    assert.equal(records.key, 'records_shown');
    assert.match(records.Extra, /Using index/, 'the rows themselves are not read');
    // The column follows the JSON: a record published by an update shows at once.
    const acc = await create(`${repo}/accessions`, { id_0: 'IX-1', title: 'Indexed', publish: false });
    const shown = async () => (await knex('records').where({ uri: acc.uri }).first('published')).published;
    assert.equal(await shown(), 0);
    const current = (await t.http.get(acc.uri).set(H)).body;
    assert.equal((await t.http.post(acc.uri).set(H).send({ ...current, publish: true })).status, 200);
    assert.equal(await shown(), 1);
    // Text JSON allows and MariaDB's parser refuses (a lone surrogate escape) is stored, not a 500.
    const odd = await create(`${repo}/accessions`, { id_0: 'IX-2', title: 'Half a pair \udfff', publish: true });
    assert.equal((await t.http.get(odd.uri).set(H)).body.title, 'Half a pair \udfff');
  });

  it("gives a top container the restrictions in force of the records holding it and of their ancestors (active_restrictions, restricted)", async () => {
    const restrict = (type: string, rr: object) => ({ jsonmodel_type: 'note_multipart', type, rights_restriction: rr, subnotes: [{ jsonmodel_type: 'note_text', content: 'Closed' }] });
    const box = await create(`${repo}/top_containers`, { type: 'box', indicator: 'R1' });
    const free = await create(`${repo}/top_containers`, { type: 'box', indicator: 'R2' });
    const resource = await create(`${repo}/resources`, {
      ...RESOURCE, id_0: 'RR', title: 'Restricted',
      notes: [restrict('accessrestrict', { local_access_restriction_type: ['RestrictedSpecColl'] }), restrict('userestrict', { begin: '2999-01-01' })],
    });
    const series = await create(`${repo}/archival_objects`, { title: 'Series', level: 'series', resource: { ref: resource.uri }, notes: [restrict('userestrict', { end: '2999-12-31' })] });
    await create(`${repo}/archival_objects`, {
      title: 'File', level: 'file', resource: { ref: resource.uri }, parent: { ref: series.uri },
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.uri } } }],
      notes: [restrict('accessrestrict', { end: '2000-01-01', local_access_restriction_type: ['InProcessSpecColl'] })],
    });
    const got = (await t.http.get(box.uri).set(H)).body;
    assert.equal(got.restricted, true);
    // The file's restriction has ended and the resource's use restriction has not begun.
    assert.deepEqual(got.active_restrictions.map((r: any) => [r.linked_records.ref, r.restriction_note_type, r.local_access_restriction_type]).sort(),
      [[resource.uri, 'accessrestrict', ['RestrictedSpecColl']], [series.uri, 'userestrict', []]].sort());
    assert.equal(got.active_restrictions[0].jsonmodel_type, 'rights_restriction');
    const none = (await t.http.get(free.uri).set(H)).body;
    assert.deepEqual([none.restricted, none.active_restrictions], [false, []]);
  });

  it("takes publish, when a record is saved without it, from the caller's preferences (ArchivesSpace's Preference.defaults)", async () => {
    const other = `/repositories/${(await t.http.post('/repositories').set(H).send({ repo_code: 'PUBPREF', name: 'Publishing' })).body.id}`;
    await t.http.post(`${other}/preferences`).set(H).send({ defaults: { publish: true } }).expect(200);
    const dobj = await create(`${other}/digital_objects`, { digital_object_id: 'DO-PREF', title: 'Scans', file_versions: [{ file_uri: 'http://example.org/p.jpg' }] });
    assert.deepEqual([dobj.publish, dobj.file_versions[0].publish], [true, true]);
    const kept = await create(`${other}/accessions`, { id_0: 'PREF1', accession_date: '2024-01-01', publish: false });
    assert.equal(kept.publish, false, 'a value sent is kept');
    const subject = await create('/subjects', { source: 'lcsh', vocabulary: '/vocabularies/1', terms: [{ term: 'Prefs', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    assert.equal(subject.publish, true, "a read-only publish keeps the schema's default");
    // Elsewhere the installation's default (false) holds.
    assert.equal((await create(`${repo}/accessions`, { id_0: 'PREF2', accession_date: '2024-01-01' })).publish, false);
  });
});
