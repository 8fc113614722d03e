import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';

/** Server-generated fields (record-model.md), computed on every save from x-archive.generated. */
describe(`server-generated fields (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: string;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = `/repositories/${(await t.http.post('/repositories').set(H).send({ repo_code: 'GEN', name: 'Generated' })).body.id}`;
  });
  after(() => t?.close());

  const create = async (path: string, body: object) => {
    const res = await t.http.post(path).set(H).send(body);
    assert.equal(res.status, 200, res.text);
    return (await t.http.get(res.body.uri).set(H)).body;
  };
  const update = async (record: any, changes: object) => {
    const res = await t.http.post(record.uri).set(H).send({ ...record, ...changes });
    assert.equal(res.status, 200, res.text);
    return (await t.http.get(record.uri).set(H)).body;
  };

  it('subject title: its terms joined with " -- ", on create and update, resolved too', async () => {
    const term = (text: string, type = 'topical') => ({ term: text, term_type: type, vocabulary: '/vocabularies/1' });
    const subject = await create('/subjects', { source: 'lcsh', vocabulary: '/vocabularies/1', terms: [term('Railroads'), term('Ohio', 'geographic')] });
    assert.equal(subject.title, 'Railroads -- Ohio');
    const changed = await update(subject, { terms: [term('Canals')], title: 'ignored: read-only' });
    assert.equal(changed.title, 'Canals');
    const acc = await create(`${repo}/accessions`, { id_0: 'S1', title: 'With subject', accession_date: '2024-01-01', subjects: [{ ref: subject.uri }] });
    const resolved = (await t.http.get(acc.uri).query({ 'resolve[]': 'subjects' }).set(H)).body;
    assert.equal(resolved.subjects[0]._resolved.title, 'Canals');
  });

  it('archival object display_string: title and every date, bulk dates marked', async () => {
    const resource = await create(`${repo}/resources`, {
      id_0: 'R1', title: 'Papers', level: 'collection', dates: [{ date_type: 'inclusive', label: 'creation', expression: '1900-1950' }],
      extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
    });
    const ao = await create(`${repo}/archival_objects`, {
      title: 'Letters', level: 'file', resource: { ref: resource.uri },
      dates: [{ date_type: 'inclusive', label: 'creation', begin: '1901', end: '1910' }, { date_type: 'bulk', label: 'creation', expression: '1905' }],
    });
    assert.equal(ao.display_string, 'Letters, 1901 - 1910, bulk: 1905');
    const untitled = await create(`${repo}/archival_objects`, {
      level: 'file', resource: { ref: resource.uri }, dates: [{ date_type: 'single', label: 'creation', begin: '1920' }],
    });
    assert.equal(untitled.display_string, '1920');
    assert.equal((await update(ao, { title: 'Diaries' })).display_string, 'Diaries, 1901 - 1910, bulk: 1905');
  });

  it('digital object component display_string: title, else label, then dates', async () => {
    const dobj = await create(`${repo}/digital_objects`, { digital_object_id: 'DO-1', title: 'Scans' });
    const doc = await create(`${repo}/digital_object_components`, {
      label: 'Page 1', digital_object: { ref: dobj.uri }, dates: [{ date_type: 'single', label: 'creation', expression: 'circa 1900' }],
    });
    assert.equal(doc.display_string, 'Page 1, circa 1900');
  });

  it('location title: building, floor, room, area and the bracketed others', async () => {
    const loc = await create('/locations', {
      building: 'Main', floor: '2', room: '201', area: 'East', barcode: 'L-9', coordinate_1_label: 'Shelf', coordinate_1_indicator: '4',
    });
    assert.equal(loc.title, 'Main, 2, 201, East [L-9, Shelf: 4]');
    assert.equal((await update(loc, { room: '202' })).title, 'Main, 2, 202, East [L-9, Shelf: 4]');
  });

  it('agent sort names of every kind, display_name and title', async () => {
    const person = await create('/agents/people', {
      names: [{ primary_name: 'Smith', rest_of_name: 'Jane', name_order: 'inverted', dates: '1900-1980', source: 'local', sort_name_auto_generate: true }],
    });
    assert.equal(person.names[0].sort_name, 'Smith, Jane, 1900-1980');
    assert.equal(person.names[0].is_display_name, true);
    assert.equal(person.names[0].authorized, true);
    assert.equal(person.display_name.sort_name, 'Smith, Jane, 1900-1980');
    assert.equal(person.title, 'Smith, Jane, 1900-1980');
    const direct = await create('/agents/people', {
      names: [{ primary_name: 'Smith', rest_of_name: 'John', name_order: 'direct', source: 'local', sort_name_auto_generate: true }],
    });
    assert.equal(direct.title, 'John Smith');
    const family = await create('/agents/families', { names: [{ family_name: 'Adams', qualifier: 'Mass.', source: 'local', sort_name_auto_generate: true }] });
    assert.equal(family.title, 'Adams (Mass.)');
    const corp = await create('/agents/corporate_entities', {
      names: [{ primary_name: 'Acme', subordinate_name_1: 'Archives', source: 'local', sort_name_auto_generate: true }],
    });
    assert.equal(corp.title, 'Acme. Archives');
    const software = await create('/agents/software', {
      names: [{ software_name: 'Indexer', manufacturer: 'Acme', version: '2', source: 'local', sort_name_auto_generate: true }],
    });
    assert.equal(software.title, 'Acme Indexer 2');
    const manual = await create('/agents/people', {
      names: [{ primary_name: 'Doe', name_order: 'inverted', source: 'local', sort_name: 'Doe (by hand)', sort_name_auto_generate: false }],
    });
    assert.equal(manual.title, 'Doe (by hand)');
  });

  it('top container display_string, long_display_string and series', async () => {
    const profile = await create('/container_profiles', { name: 'Legal box', extent_dimension: 'width', dimension_units: 'inches', width: '10', height: '12', depth: '15' });
    const loc = await create('/locations', { building: 'Annex', room: '1', barcode: 'L-2' });
    const box = await create(`${repo}/top_containers`, {
      type: 'box', indicator: '7', barcode: '123', container_profile: { ref: profile.uri },
      container_locations: [{ status: 'current', start_date: '2024-01-01', ref: loc.uri }],
    });
    assert.equal(box.display_string, 'Box 7: [Barcode: 123]'); // as the original: the colon stays before a barcode
    const resource = await create(`${repo}/resources`, {
      id_0: 'MSS', id_1: '9', title: 'Ledgers', level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }],
      extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
    });
    const series = await create(`${repo}/archival_objects`, { title: 'Accounts', level: 'series', component_id: 'S1', resource: { ref: resource.uri } });
    await create(`${repo}/archival_objects`, {
      title: 'Ledger 1', level: 'file', resource: { ref: resource.uri }, parent: { ref: series.uri },
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.uri } } }],
    });
    const shown = (await t.http.get(box.uri).set(H)).body;
    assert.equal(shown.display_string, 'Box 7: Series S1 [Barcode: 123]');
    assert.equal(shown.long_display_string, 'Box 7 [Barcode: 123], Legal box, Annex, 1 [L-2], MSS-9, Ledgers, Series S1');
    assert.deepEqual(shown.series.map((s: any) => s.ref), [series.uri]);
    assert.deepEqual(shown.collection.map((c: any) => c.ref), [resource.uri]);
  });

  it('accession display_string: its title, else its identifier parts joined with "-"', async () => {
    const titled = await create(`${repo}/accessions`, { id_0: 'A1', id_1: '2024', title: 'Gift of letters', accession_date: '2024-01-01' });
    assert.equal(titled.display_string, 'Gift of letters');
    const untitled = await update(titled, { title: undefined, display_string: 'ignored: read-only' });
    assert.equal(untitled.display_string, 'A1-2024');
  });

  it('rights statement identifier: kept when given, else a random one', async () => {
    const rights = (identifier?: string) => ({ rights_type: 'copyright', status: 'copyrighted', jurisdiction: 'US', start_date: '2000-01-01', ...(identifier ? { identifier } : {}) });
    const acc = await create(`${repo}/accessions`, { id_0: 'RS1', accession_date: '2024-01-01', rights_statements: [rights('mine'), rights()] });
    assert.equal(acc.rights_statements[0].identifier, 'mine');
    assert.match(acc.rights_statements[1].identifier, /^[0-9a-f]{32}$/);
    const again = await update(acc, {});
    assert.deepEqual(again.rights_statements.map((r: any) => r.identifier), acc.rights_statements.map((r: any) => r.identifier));
  });

  it('archival object ref_id: kept when given, else random, and never changed by an update', async () => {
    const resource = await create(`${repo}/resources`, {
      id_0: 'R-REF', title: 'Ref ids', level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }],
      extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
    });
    const given = await create(`${repo}/archival_objects`, { title: 'Given', level: 'file', ref_id: 'aspace_given', resource: { ref: resource.uri } });
    assert.equal(given.ref_id, 'aspace_given');
    const made = await create(`${repo}/archival_objects`, { title: 'Made', level: 'file', resource: { ref: resource.uri } });
    assert.match(made.ref_id, /^[0-9a-f]{32}$/);
    assert.equal((await update(made, { ref_id: 'changed' })).ref_id, made.ref_id);
  });

  it('display_string of repositories, container profiles and location profiles', async () => {
    assert.equal((await t.http.get(repo).set(H)).body.display_string, 'Generated (GEN)');
    const profile = await create('/container_profiles', { name: 'Wide box', dimension_units: 'inches', extent_dimension: 'width', height: '10', width: '5', depth: '15' });
    assert.equal(profile.display_string, 'Wide box [15d, 10h, 5w inches] extent measured by width');
    const shelf = await create('/location_profiles', { name: 'Shelf', dimension_units: 'centimeters', height: '30', width: '90', depth: '40' });
    assert.equal(shelf.display_string, 'Shelf [40d, 30h, 90w Centimeters]');
    assert.equal((await update(shelf, { depth: undefined })).display_string, 'Shelf');
  });

  it("a person's or software's display name without dates of its own ends with the first date of existence", async () => {
    const existence = (range: object) => [{ date_type_structured: 'range', date_label: 'existence', structured_date_range: range }];
    const person = await create('/agents/people', {
      names: [{ primary_name: 'Moss', rest_of_name: 'Ada', name_order: 'inverted', source: 'local', sort_name_auto_generate: true }],
      dates_of_existence: existence({ begin_date_standardized: '1900-02-03', end_date_standardized: '1980', end_date_standardized_type: 'not_after' }),
    });
    assert.equal(person.title, 'Moss, Ada (1900-Not After 1980)');
    const again = await update(person, {});
    assert.equal(again.names[0].sort_name, 'Moss, Ada (1900-Not After 1980)', 'no second suffix on a save');
    const own = await create('/agents/people', {
      names: [{ primary_name: 'Moss', rest_of_name: 'Bea', name_order: 'inverted', dates: '1850-1900', source: 'local', sort_name_auto_generate: true }],
      dates_of_existence: existence({ begin_date_expression: 'circa 1850' }),
    });
    assert.equal(own.title, 'Moss, Bea, 1850-1900', "a name's own dates win");
    const family = await create('/agents/families', {
      names: [{ family_name: 'Moss', source: 'local', sort_name_auto_generate: true }], dates_of_existence: existence({ begin_date_expression: '1700s' }),
    });
    assert.equal(family.title, 'Moss', 'families do not take them');
  });
});
