import assert from 'node:assert/strict';
import fc from 'fast-check';
import qs from 'qs';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

const H = 'X-ArchivesSpace-Session';
/** Rack-style query strings (type[]=a&type[]=b), as the reference's clients send them. */
const q = (params: Record<string, unknown>) => qs.stringify(params, { arrayFormat: 'brackets' });

/** A populated repository 2, searched through the HTTP API as the reference's clients do. */
describe(`search (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let token: string;
  let repo: number;
  const uri: Record<string, string> = {};

  const create = async (path: string, body: object, name: string) => {
    const res = await t.http.post(path).set(H, token).send(body);
    assert.equal(res.status, 200, `${name}: ${res.text}`);
    uri[name] = res.body.uri;
    return res.body.uri as string;
  };
  const search = async (path: string, query: Record<string, unknown>, status = 200) => {
    await t.services.search!.indexer.drain();
    const res = await t.http.get(path).set(H, token).query(q(query));
    assert.equal(res.status, status, res.text);
    return res.body;
  };
  const uris = (body: any) => (body.results as any[]).map((r) => r.uri).sort();
  const date = (begin: string, end?: string) => ({ date_type: end ? 'inclusive' : 'single', label: 'creation', begin, ...(end ? { end } : {}) });
  const resource = (id: string, title: string, extra: object = {}) => ({
    id_0: id, title, level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn',
    dates: [date('1860', '1870')], extents: [{ portion: 'whole', number: '2', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }], ...extra,
  });
  const term = (term: string, term_type: string) => ({ term, term_type, vocabulary: '/vocabularies/1' });

  before(async () => {
    t = await startTestApp();
    token = await t.adminToken();
    repo = await createRepository(t, 'MAIN');
    assert.equal(repo, 2);
    const r = `/repositories/${repo}`;
    await create('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [term('Maps', 'genre_form'), term('Texas', 'geographic')] }, 'mapsTexas');
    await create('/subjects', { source: 'lcsh', vocabulary: '/vocabularies/1', terms: [term('Texas', 'geographic')] }, 'texas');
    await create('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [term('Maps', 'genre_form')] }, 'maps');
    await create('/agents/people', { names: [{ primary_name: 'Smith', rest_of_name: 'Jane', name_order: 'inverted', sort_name: 'Smith, Jane' }] }, 'smith');
    await create('/agents/people', { names: [{ primary_name: 'Smithers', rest_of_name: 'Waylon', name_order: 'inverted', sort_name: 'Smithers, Waylon' }] }, 'smithers');
    await create('/agents/corporate_entities', { names: [{ primary_name: 'Texas Historical Society', sort_name: 'Texas Historical Society' }] }, 'society');
    await create('/container_profiles', { name: 'Document box', dimension_units: 'inches', extent_dimension: 'width', depth: '15', height: '10', width: '5' }, 'cprofile');
    await create('/location_profiles', { name: 'Standard shelf', dimension_units: 'inches', depth: '10', height: '12', width: '30' }, 'lprofile');
    await create('/location_profiles', { name: 'Map case', dimension_units: 'inches', depth: '40', height: '4', width: '50' }, 'lprofile2');
    await create('/locations', { building: 'Main', room: '101', barcode: 'LOC-1' }, 'loc1');
    await create('/locations', { building: 'Annex', barcode: 'LOC-2', owner_repo: { ref: r } }, 'loc2');
    await create(`${r}/top_containers`, { indicator: '12', type: 'box', barcode: '39002001234567', container_locations: [{ ref: uri.loc1, status: 'current', start_date: '2020-01-01' }] }, 'box12');
    await create(`${r}/top_containers`, { indicator: '3', type: 'box', barcode: '39002000000003' }, 'box3');
    await create(`${r}/resources`, resource('MSS-001', 'Papers of Jane Smith', {
      publish: true,
      subjects: [{ ref: uri.mapsTexas }],
      linked_agents: [{ role: 'creator', ref: uri.smith }],
      notes: [{ jsonmodel_type: 'note_multipart', type: 'scopecontent', publish: true, subnotes: [{ jsonmodel_type: 'note_text', content: 'Letters written during the civil war.' }] }],
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: uri.box12 } } }],
      external_ids: [{ external_id: '3854', source: 'catalog' }],
    }), 'papers');
    await create(`${r}/resources`, resource('MSS-002', 'Texas maps collection', { subjects: [{ ref: uri.maps }], linked_agents: [{ role: 'subject', ref: uri.society }] }), 'mapsColl');
    await create(`${r}/resources`, resource('MSS-010', 'Zebra records', { level: 'otherlevel', other_level: 'fonds' }), 'zebra');
    await create(`${r}/archival_objects`, { title: 'Letters', level: 'file', resource: { ref: uri.papers }, dates: [date('1861')] }, 'letters');
    await create(`${r}/archival_objects`, { title: 'Diary', level: 'item', resource: { ref: uri.papers }, component_id: 'D-1' }, 'diary');
    await create(`${r}/accessions`, {
      id_0: 'A', id_1: '001', title: 'Civil war letters', accession_date: '2020-03-15', subjects: [{ ref: uri.mapsTexas }],
      linked_agents: [{ role: 'creator', ref: uri.smith }],
    }, 'accession1');
    await create(`${r}/accessions`, { id_0: 'A', id_1: '002', title: 'Maps of Texas', external_ids: [{ external_id: 'dup', source: 'x' }] }, 'accession2');
    await create(`${r}/accessions`, { id_0: 'A', id_1: '003', title: 'Second map gift', external_ids: [{ external_id: 'dup', source: 'x' }] }, 'accession3');
    await create(`${r}/events`, {
      event_type: 'accession', date: { date_type: 'single', label: 'event', expression: '2020' },
      linked_agents: [{ role: 'implementer', ref: uri.smith }], linked_records: [{ role: 'source', ref: uri.accession1 }],
    }, 'event1');
    const other = await createRepository(t, 'OTHER');
    await create(`/repositories/${other}/accessions`, { id_0: 'O', title: 'Civil war in another repository' }, 'otherAccession');
  });
  after(() => t.close());

  it('documents carry the reference fields: identifier, subjects, creators, years, json; no jsonmodel_type stored', async () => {
    const body = await search(`/repositories/${repo}/search`, { page: 1, q: `id:"${uri.papers}"`.replace('id:', 'uri:') });
    assert.equal(body.total_hits, 1);
    const doc = body.results[0];
    assert.equal(doc.identifier, 'MSS-001');
    assert.deepEqual(doc.subjects, ['Maps -- Texas']);
    assert.deepEqual(doc.creators, ['Smith, Jane']);
    assert.deepEqual(doc.years.slice(0, 2), [1860, 1861]);
    assert.equal(doc.jsonmodel_type, 'resource');
    assert.equal(doc.primary_type, 'resource');
    assert.equal(JSON.parse(doc.json).uri, uri.papers);
    assert.equal(doc.repository, `/repositories/${repo}`);
    assert.equal(doc.publish, true);
    assert.ok(doc.types.includes('pui_collection'));
    assert.equal(doc.title_sort, undefined, 'title_sort is not returned');
    assert.equal(doc.fullrecord, undefined, 'fullrecord is not returned');
  });

  it('1. keyword search across a repository: both words, global records included, other repositories not', async () => {
    const body = await search(`/repositories/${repo}/search`, {
      q: 'civil war', page: 1, sort: 'score desc', facet: ['primary_type', 'creators', 'subjects', 'langcode'],
    });
    // The event matches through its linked accession, whose resolved copy its full-record text holds (as the original).
    assert.deepEqual(uris(body), [uri.accession1, uri.event1, uri.papers].sort());
    assert.equal(body.first_page, 1);
    assert.equal(body.last_page, 1);
    assert.equal(body.offset_first, 1);
    assert.equal(body.offset_last, 3);
    assert.ok(Array.isArray(body.facets.facet_fields.primary_type));
    assert.deepEqual(body.facets.facet_fields.creators.slice(0, 2), ['Smith, Jane', 2]);
    assert.deepEqual(Object.keys(body.facets), ['facet_queries', 'facet_fields', 'facet_ranges', 'facet_intervals', 'facet_heatmaps']);
    const global = await search(`/repositories/${repo}/search`, { q: 'texas', page: 1, type: ['subject'] });
    assert.deepEqual(uris(global), [uri.mapsTexas, uri.texas].sort(), 'subjects are global and appear in repository searches');
  });

  it('2. browse resources A–Z by title_sort with resource facets', async () => {
    const body = await search(`/repositories/${repo}/search`, {
      type: ['resource'], page: 1, sort: 'title_sort asc', facet: ['subjects', 'publish', 'level', 'classification_path', 'primary_type', 'langcode'],
    });
    assert.deepEqual(body.results.map((r: any) => r.title), ['Papers of Jane Smith', 'Texas maps collection', 'Zebra records']);
    assert.deepEqual(body.facets.facet_fields.publish, ['false', 2, 'true', 1]);
    // A resource's level is the raw value, otherlevel included; mincount 0 lists the other levels at 0.
    assert.deepEqual(body.facets.facet_fields.level, ['collection', 2, 'otherlevel', 1, 'file', 0, 'item', 0]);
    assert.deepEqual(body.facets.facet_fields.classification_path, []);
    const desc = await search(`/repositories/${repo}/search`, { type: ['resource'], page: 1, sort: 'title_sort desc' });
    assert.equal(desc.results[0].title, 'Zebra records');
  });

  it('3. resources and archival objects together', async () => {
    const body = await search(`/repositories/${repo}/search`, { type: ['resource', 'archival_object'], page: 1, sort: 'title_sort asc' });
    assert.equal(body.total_hits, 5);
    assert.deepEqual(body.results.map((r: any) => r.title), ['Diary', 'Letters, 1861', 'Papers of Jane Smith', 'Texas maps collection', 'Zebra records']);
  });

  it('4. a facet click as `filter`: subjects "Maps" matches "Maps -- Texas" too (phrase on subjects_text)', async () => {
    const filter = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'field_query', field: 'subjects', value: 'Maps', negated: false, literal: false }] } };
    const body = await search(`/repositories/${repo}/search`, { type: ['resource'], page: 1, sort: 'title_sort asc', filter: JSON.stringify(filter), 'filter_term[]': '{"subjects":"Maps"}' });
    assert.deepEqual(uris(body), [uri.papers, uri.mapsColl].sort());
  });

  it('5. the advanced-search form: ((keyword AND NOT title) OR created after) AND level empty', async () => {
    const aq = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [
      { jsonmodel_type: 'boolean_query', op: 'OR', subqueries: [
        { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [
          { jsonmodel_type: 'field_query', field: 'keyword', value: 'civil war', comparator: 'contains' },
          { jsonmodel_type: 'field_query', field: 'title', value: 'letters', comparator: 'contains', negated: true }] },
        { jsonmodel_type: 'date_field_query', field: 'create_time', value: '2999-03-01', comparator: 'greater_than', precision: 'month' }] },
      { jsonmodel_type: 'field_query', field: 'level', comparator: 'empty', literal: true }] } };
    const body = await search(`/repositories/${repo}/search`, { page: 1, sort: 'score desc', aq: JSON.stringify(aq), facet: ['primary_type'] });
    // Civil-war records without "letters" in the title and without a level: the resource has a level, the
    // accession's title has "letters"; the event (linked to the accession) qualifies. Nothing was created after 2999.
    assert.deepEqual(uris(body), [uri.event1]);
    const none = await search(`/repositories/${repo}/search`, { page: 1, aq: JSON.stringify(aq), type: ['resource'] });
    assert.equal(none.total_hits, 0);
    assert.equal(none.last_page, 0, 'last_page is 0 when nothing matches');
    const created = structuredClone(aq);
    created.query.subqueries[0].subqueries[1].value = '2000-01';
    const recent = await search(`/repositories/${repo}/search`, { page: 1, aq: JSON.stringify(created), type: ['accession'] });
    assert.equal(recent.total_hits, 3, 'created after January 2000 and no level: every accession of the repository');
  });

  it('6. agent linker typeahead: prefix, aggregate type agent, exclusions', async () => {
    const body = await search(`/repositories/${repo}/search`, { q: 'smi*', type: ['agent'], exclude: [uri.smithers], page: 1, sort: 'score desc' });
    assert.deepEqual(uris(body), [uri.smith]);
    const both = await search(`/repositories/${repo}/search`, { q: 'smi*', type: ['agent'], page: 1 });
    assert.deepEqual(uris(both), [uri.smith, uri.smithers].sort());
  });

  it('7. subject linker restricted to geographic first terms', async () => {
    const filter = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'field_query', field: 'first_term_type', value: 'geographic', negated: false, literal: false }] } };
    const body = await search(`/repositories/${repo}/search`, { q: 'tex*', type: ['subject'], page: 1, sort: 'title_sort asc', facet: ['source', 'first_term_type'], filter: JSON.stringify(filter) });
    assert.deepEqual(uris(body), [uri.texas]);
    assert.deepEqual(body.facets.facet_fields.first_term_type, ['geographic', 1, 'genre_form', 0]);
  });

  it('8. top container typeahead inside a collection (leading wildcard, nested filter without jsonmodel_type at the top)', async () => {
    const literal = (field: string, value: string, negated = false) => ({ jsonmodel_type: 'field_query', field, value, negated, literal: true });
    const filter = { query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [
      { jsonmodel_type: 'boolean_query', op: 'OR', subqueries: [
        { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [literal('collection_uri_u_sstr', '*', true),
          { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [literal('created_for_collection_u_sstr', uri.papers)] }] },
        { jsonmodel_type: 'boolean_query', op: 'OR', subqueries: [literal('collection_uri_u_sstr', uri.papers)] }] }] }] } };
    const body = await search(`/repositories/${repo}/search`, { q: 'top_container_u_typeahead_utext:*box12*', type: ['top_container'], page: 1, sort: 'top_container_u_icusort asc', filter: JSON.stringify(filter) });
    assert.deepEqual(uris(body), [uri.box12]);
  });

  it('9. and 16. top containers through the raw Solr route', async () => {
    const filter = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [
      { jsonmodel_type: 'boolean_field_query', field: 'has_location_u_sbool', value: false, negated: false }] } };
    const raw = await search(`/repositories/${repo}/top_containers/search`, { type: ['top_container'], page: 1, filter: JSON.stringify(filter) });
    assert.equal(raw.response.numFound, 1);
    assert.equal(raw.response.docs[0].uri, uri.box3);
    assert.equal(raw.response.start, 0);
    assert.ok(raw.responseHeader);
    const byBarcode = await search(`/repositories/${repo}/top_containers/search`, { q: 'barcode_u_sstr:39002001234567' });
    assert.deepEqual(byBarcode.response.docs.map((d: any) => d.uri), [uri.box12]);
    assert.equal(JSON.parse(byBarcode.response.docs[0].json).barcode, '39002001234567');
    assert.equal(byBarcode.results, undefined);
  });

  it('10. a purely negative q: locations with no owner repository', async () => {
    const body = await search(`/repositories/${repo}/search`, { type: ['location'], page: 1, sort: 'title_sort asc', q: '-owner_repo_display_string_u_ssort:*',
      facet: ['temporary', 'owner_repo_display_string_u_ssort', 'building', 'floor', 'room', 'area', 'location_profile_display_string_u_ssort'] });
    assert.deepEqual(uris(body), [uri.loc1]);
    assert.deepEqual(body.facets.facet_fields.building, ['Main', 1, 'Annex', 0]);
  });

  it('11. events linked to a record, with fields[]=id', async () => {
    const body = await search(`/repositories/${repo}/search`, { q: `linked_record_uris:"${uri.accession1}"`, type: ['event'], page: 1, fields: ['id'], sort: 'event_type asc', facet: ['event_type', 'outcome'] });
    assert.equal(body.total_hits, 1);
    assert.deepEqual(body.results, [{ id: uri.event1, uri: uri.event1, jsonmodel_type: null }]);
  });

  it('12. and 13. location profiles and repositories answer without a session', async () => {
    await t.services.search!.indexer.drain();
    const profiles = await t.http.get('/search/location_profile').query(q({ page: 1, sort: 'title_sort asc', facet: ['location_profile_width_u_sstr', 'location_profile_height_u_sstr', 'location_profile_depth_u_sstr', 'location_profile_dimension_units_u_sstr'] }));
    assert.equal(profiles.status, 200, profiles.text);
    assert.deepEqual(profiles.body.results.map((r: any) => r.uri), [uri.lprofile2, uri.lprofile]);
    assert.deepEqual(profiles.body.facets.facet_fields.location_profile_width_u_sstr, ['30', 1, '50', 1]);
    const repos = await t.http.get('/search/repositories').query(q({ page: 1, sort: 'title_sort asc', type: ['accession'] }));
    assert.equal(repos.status, 200);
    assert.deepEqual(repos.body.results.map((r: any) => r.title), ['MAIN', 'OTHER'], 'type[] is replaced; title is the repo code, sorted by name');
  });

  it('14. CSV export of the top-container list', async () => {
    await t.services.search!.indexer.drain();
    const res = await t.http.get(`/repositories/${repo}/search`).set(H, token).query(q({ type: ['top_container'], page: 1, dt: 'csv', csv_export_use_solr_writer: true, fields: ['uri', 'barcode_u_sstr', 'indicator_u_icusort'], sort: 'indicator_u_icusort asc' }));
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^text\/csv/);
    assert.equal(res.text, `uri,barcode_u_sstr,indicator_u_icusort\n${uri.box3},39002000000003,3\n${uri.box12},39002001234567,12\n`);
  });

  it('15. ArchivesSnake paging: published resources, 1 per page until this_page == last_page', async () => {
    const first = await search(`/repositories/${repo}/search`, { q: 'primary_type:resource AND publish:true', page_size: 1, page: 1 });
    assert.deepEqual([first.total_hits, first.this_page, first.last_page], [1, 1, 1]);
    const all = await search(`/repositories/${repo}/search`, { q: 'primary_type:resource', page_size: 2, page: 2 });
    assert.deepEqual([all.total_hits, all.this_page, all.last_page, all.results.length, all.offset_first, all.offset_last], [3, 2, 2, 1, 3, 3]);
    const past = await search(`/repositories/${repo}/search`, { q: 'primary_type:resource', page_size: 2, page: 5 });
    assert.deepEqual([past.results.length, past.offset_first, past.offset_last], [0, 9, 3]);
    const clamped = await search(`/repositories/${repo}/search`, { page: 1, page_size: 1000 });
    assert.equal(clamped.page_size, 250);
  });

  it('17. lowercase "and" is a search word, not an operator', async () => {
    const body = await search(`/repositories/${repo}/search`, { q: '*:* and primary_type:archival_object', page_size: 100, page: 1 });
    assert.equal(body.total_hits, 0);
    const upper = await search(`/repositories/${repo}/search`, { q: '*:* AND primary_type:archival_object', page: 1 });
    assert.equal(upper.total_hits, 2);
  });

  it('18. keyword aq with a type and subject filter, highlighting and resolve[]', async () => {
    const aq = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'field_query', field: 'keyword', value: 'civil war', negated: false, literal: false }] }] } };
    const filter = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [
      { jsonmodel_type: 'boolean_query', op: 'OR', subqueries: [{ jsonmodel_type: 'field_query', field: 'types', value: 'resource', negated: false, literal: false }] },
      { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'field_query', field: 'subjects', value: 'Maps', negated: false, literal: false }] }] }] } };
    await t.services.search!.indexer.drain();
    const res = await t.http.post('/search').set(H, token).query(q({
      publish: 'true', 'facet.mincount': 1, 'q.op': 'AND', page_size: 10, hl: true, page: 1,
      resolve: ['repository:id'], facet: ['repository', 'primary_type', 'subjects', 'published_agents', 'langcode'],
      aq: JSON.stringify(aq), filter: JSON.stringify(filter),
    }));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.results.map((r: any) => r.uri), [uri.papers]);
    assert.deepEqual(res.body.highlighting[uri.papers].title, undefined);
    assert.match(res.body.highlighting[uri.papers].notes[0], /<span class="searchterm">civil<\/span> <span class="searchterm">war<\/span>/);
    const resolved = res.body.results[0]._resolved_repository;
    assert.equal(resolved[`/repositories/${repo}`][0].title, 'MAIN');
  });

  it('19. year range, title and keyword aq with filter_query[] (search within results)', async () => {
    const aq = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [
      { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'range_query', field: 'years', from: '1860', to: '1870' },
        { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'field_query', field: 'title', value: 'letters', negated: false, literal: false }] }] },
      { jsonmodel_type: 'boolean_query', op: 'AND', subqueries: [{ jsonmodel_type: 'field_query', field: 'keyword', value: '1861', negated: false, literal: false }] }] } };
    const body = await search('/search', { page: 1, page_size: 10, hl: true, aq: JSON.stringify(aq), facet: ['repository', 'primary_type'] });
    assert.deepEqual(uris(body), [uri.letters]);
    const within = await search('/search', { page: 1, aq: JSON.stringify(aq), filter_query: ['diary'] });
    assert.equal(within.total_hits, 0);
  });

  it('20. repository search as a JSON POST body (text/json), scoped to one repository', async () => {
    await t.services.search!.indexer.drain();
    const res = await t.http.post(`/repositories/${repo}/search`).set(H, token).set('Content-Type', 'text/json')
      .send(JSON.stringify({ page: 1, q: 'civil war', type: ['accession'] }));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uris(res.body), [uri.accession1]);
    const everywhere = await search('/search', { page: 1, q: 'civil war', type: ['accession'] });
    assert.deepEqual(uris(everywhere), [uri.accession1, uri.otherAccession].sort());
  });

  it('21. /search/records returns the documents in the order asked, absent ones left out', async () => {
    await t.services.search!.indexer.drain();
    const res = await t.http.post('/search/records').set(H, token).query(q({ uri: [uri.diary, `/repositories/${repo}/archival_objects/999`, uri.papers], resolve: ['resource:id@compact_resource'] }));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.results.map((r: any) => r.uri), [uri.diary, uri.papers]);
    assert.deepEqual(res.body.results[0]._resolved_resource[uri.papers][0], { id_0: 'MSS-001', level: 'collection', title: 'Papers of Jane Smith', uri: uri.papers, publish: true });
  });

  it('22. record counts per type for a repository and for all', async () => {
    await t.services.search!.indexer.drain();
    const one = await t.http.post('/search/record_types_by_repository').set(H, token).query(q({ record_types: ['pui_collection', 'pui_accession'], repo_uri: `/repositories/${repo}` }));
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, { pui_collection: 1, pui_accession: 0 });
    const all = await t.http.get('/search/record_types_by_repository').set(H, token).query(q({ record_types: ['pui_collection'] }));
    assert.deepEqual(all.body, { [`/repositories/${repo}`]: { pui_collection: 1 }, '/repositories/3': { pui_collection: 0 } });
  });

  it('23. all repositories through /search', async () => {
    const body = await search('/search', { q: 'primary_type:repository', page: 1, page_size: 10, hl: true });
    assert.deepEqual(body.results.map((r: any) => r.title).sort(), ['MAIN', 'OTHER']);
    assert.deepEqual(Object.keys(body.highlighting).sort(), body.results.map((r: any) => r.uri).sort());
  });

  it('24. /by-external-id: 303 to the one record, 300 with several, 404 [] with none', async () => {
    await t.services.search!.indexer.drain();
    const one = await t.http.get('/by-external-id').set(H, token).query(q({ eid: '3854', type: ['resource'] })).redirects(0);
    assert.equal(one.status, 303);
    assert.equal(one.headers.location, uri.papers);
    const several = await t.http.get('/by-external-id').set(H, token).query(q({ eid: 'dup' })).redirects(0);
    assert.equal(several.status, 300);
    assert.deepEqual(several.body.sort(), [uri.accession2, uri.accession3].sort());
    const none = await t.http.get('/by-external-id').set(H, token).query(q({ eid: '3854', type: ['accession'] })).redirects(0);
    assert.equal(none.status, 404);
    assert.deepEqual(none.body, []);
  });

  it('25. advanced query on notes with fields[]=notes', async () => {
    const aq = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'field_query', field: 'notes', value: 'written', literal: false, comparator: 'contains', negated: false } };
    const body = await search(`/repositories/${repo}/search`, { page: 1, page_size: 1, fields: ['notes'], aq: JSON.stringify(aq) });
    assert.equal(body.total_hits, 1);
    assert.deepEqual(body.results[0], { notes: ['Letters written during the civil war.'], uri: null, jsonmodel_type: null });
  });

  it('identifier matches whole values case-insensitively; unknown field prefixes are words; quoted URIs match', async () => {
    assert.deepEqual(uris(await search(`/repositories/${repo}/search`, { q: 'identifier:mss-001', page: 1 })), [uri.papers]);
    assert.equal((await search(`/repositories/${repo}/search`, { q: 'nosuchfield:smith', page: 1 })).total_hits, 0);
    assert.equal((await search(`/repositories/${repo}/search`, { q: `repository:"/repositories/${repo}" AND primary_type:accession`, page: 1 })).total_hits, 3);
    assert.equal((await search(`/repositories/${repo}/search`, { q: 'Smíth', page: 1, type: ['agent_person'] })).total_hits, 1, 'accents folded');
    assert.equal((await search(`/repositories/${repo}/search`, { q: 'letter', page: 1, type: ['accession'] })).total_hits, 0, 'no stemming');
    assert.equal((await search(`/repositories/${repo}/search`, { q: 'civil OR zebra', page: 1, type: ['resource'] })).total_hits, 2);
    assert.equal((await search(`/repositories/${repo}/search`, { q: '"jane smith"', page: 1, type: ['resource'] })).total_hits, 1);
    assert.equal((await search(`/repositories/${repo}/search`, { q: 'q=', page: 1 })).total_hits, 0);
  });

  it('suppressed records leave repository searches for staff, not for administrators', async () => {
    const res = await t.http.post(`${uri.accession3}/suppressed`).set(H, token).query(q({ suppressed: true }));
    assert.equal(res.status, 200, res.text);
    const admin = await search(`/repositories/${repo}/search`, { q: 'gift', page: 1 });
    assert.equal(admin.total_hits, 1, 'administrators hold index_system and see suppressed records');
    await t.http.post('/users').query(q({ password: 'pw12345' })).set(H, token).send({ username: 'viewer', name: 'Viewer' });
    const group = (await t.http.get(`/repositories/${repo}/groups`).set(H, token).query(q({ group_code: 'repository-viewers' }))).body[0];
    const g = (await t.http.get(group.uri).set(H, token)).body;
    await t.http.post(group.uri).set(H, token).send({ ...g, member_usernames: ['viewer'] });
    const viewer = (await t.http.post('/users/viewer/login').query(q({ password: 'pw12345' }))).body.session;
    const seen = await t.http.get(`/repositories/${repo}/search`).set(H, viewer).query(q({ q: 'gift', page: 1 }));
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.body.total_hits, 0);
    const denied = await t.http.get('/search').set(H, viewer).query(q({ q: 'gift', page: 1 }));
    assert.equal(denied.status, 403, 'only view_all_records may search everything');
    await t.http.post(`${uri.accession3}/suppressed`).set(H, token).query(q({ suppressed: false }));
  });

  it('the public user (public_anonymous) finds published records only, and searches published notes', async () => {
    await t.http.post('/users').query(q({ password: 'pw12345' })).set(H, token).send({ username: 'public_anonymous', name: 'Public' });
    const group = (await t.http.get(`/repositories/${repo}/groups`).set(H, token).query(q({ group_code: 'repository-viewers' }))).body[0];
    const g = (await t.http.get(group.uri).set(H, token)).body;
    await t.http.post(group.uri).set(H, token).send({ ...g, member_usernames: [...(g.member_usernames ?? []), 'public_anonymous'] });
    const pub = (await t.http.post('/users/public_anonymous/login').query(q({ password: 'pw12345' }))).body.session;
    await t.services.search!.indexer.drain();
    const res = await t.http.get(`/repositories/${repo}/search`).set(H, pub).query(q({ q: 'civil war', page: 1 }));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uris(res.body), [uri.papers], 'staff see the accession and the event too; the public only the published resource');
    const aq = { jsonmodel_type: 'advanced_query', query: { jsonmodel_type: 'field_query', field: 'notes', value: 'written' } };
    const notes = await t.http.get(`/repositories/${repo}/search`).set(H, pub).query(q({ aq: JSON.stringify(aq), page: 1 }));
    assert.deepEqual(uris(notes.body), [uri.papers]);
  });

  it('a linked subject renamed: the old title no longer finds the accession, the new one does', async () => {
    const subject = (await t.http.get(uri.texas).set(H, token)).body;
    await create(`/repositories/${repo}/accessions`, { id_0: 'A', id_1: '100', title: 'Gift', subjects: [{ ref: uri.texas }] }, 'linked');
    assert.deepEqual(uris(await search(`/repositories/${repo}/search`, { q: 'subjects_text:texas', type: ['accession'], page: 1 })), [uri.accession1, uri.linked].sort());
    subject.terms = [term('Oklahoma', 'geographic')];
    const res = await t.http.post(uri.texas).set(H, token).send(subject);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uris(await search(`/repositories/${repo}/search`, { q: 'subjects:Oklahoma', type: ['accession'], page: 1 })), [uri.linked]);
    assert.deepEqual(uris(await search(`/repositories/${repo}/search`, { q: 'subjects_text:texas', type: ['accession'], page: 1 })), [uri.accession1]);
  });

  it('a write through the API is searchable within a second, without waiting on the indexer', async () => {
    const started = Date.now();
    await create(`/repositories/${repo}/accessions`, { id_0: 'A', id_1: '200', title: 'Quicksilver papers' }, 'quick');
    for (;;) {
      const res = await t.http.get(`/repositories/${repo}/search`).set(H, token).query(q({ q: 'quicksilver', page: 1 }));
      if (res.body.total_hits === 1) break;
      assert.ok(Date.now() - started < 1000, 'not searchable within 1 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    const del = await t.http.delete(uri.quick).set(H, token);
    assert.equal(del.status, 200);
    assert.equal((await search(`/repositories/${repo}/search`, { q: 'quicksilver', page: 1 })).total_hits, 0, 'deleted records leave the index');
  });

  it('bad parameters are 400s in the reference shape, never 500s', async () => {
    const base = `/repositories/${repo}/search`;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /page/],
      [{ page: 0 }, /page/],
      [{ page: 1, page_size: 0 }, /page_size/],
      [{ page: 1, q: '(unbalanced' }, /Query syntax error/],
      [{ page: 1, q: 'title:/regex/' }, /Regular expressions/],
      [{ page: 1, sort: 'json asc' }, /sort/],
      [{ page: 1, sort: 'title_sort sideways' }, /sort/],
      [{ page: 1, aq: '{not json' }, /Had some trouble parsing/],
      [{ page: 1, aq: JSON.stringify({ query: { field: 'title', value: 'x' } }) }, /jsonmodel_type/],
      [{ page: 1, aq: JSON.stringify({ query: { jsonmodel_type: 'date_field_query', field: 'create_time', value: '2020', comparator: 'equal' } }) }, /precision/],
      [{ page: 1, aq: JSON.stringify({ query: { jsonmodel_type: 'mystery_query', field: 'x' } }) }, /unknown query type/],
      [{ page: 1, resolve: ['not a definition'] }, /resolve/],
    ];
    for (const [query, pattern] of cases) {
      const res = await t.http.get(base).set(H, token).query(q(query));
      assert.equal(res.status, 400, `${JSON.stringify(query)} → ${res.status} ${res.text}`);
      assert.ok(res.body.error, res.text);
      assert.match(JSON.stringify(res.body.error), pattern);
    }
    const bare = await t.http.get(`${base}?page=1&type=resource`).set(H, token);
    assert.equal(bare.status, 400);
    assert.deepEqual(bare.body, { error: { type: ["Wanted type [String] but got 'resource'.  Perhaps you meant to specify an array like: type[]=resource"] } });
  });

  it('1,000 generated malformed q and aq values: only 200 or 400, never 500', async () => {
    await t.services.search!.indexer.drain();
    const meta = fc.constantFrom('(', ')', '"', ':', '*', '?', '[', ']', '{', '}', '^', '~', '\\', '/', '-', '+', '!', '&&', '||', ' AND ', ' OR ', ' NOT ', ' TO ', 'NEAR', "'", ';', '--', '%', '\u0000', '\ud800', '😀', 'עברית', 'title:', 'years:[', '*:*');
    const qText = fc.array(fc.oneof(meta, fc.string({ maxLength: 6 }), fc.constantFrom('civil', 'war', 'smith', 'maps')), { maxLength: 12 }).map((parts) => parts.join(''));
    const leaf = fc.record({
      jsonmodel_type: fc.constantFrom('field_query', 'date_field_query', 'boolean_field_query', 'range_query', 'bogus', undefined),
      field: fc.oneof(fc.constantFrom('keyword', 'title', 'create_time', 'years', 'publish', 'level', ''), fc.string({ maxLength: 5 }), fc.integer()),
      value: fc.oneof(qText, fc.boolean(), fc.integer(), fc.constant(null)),
      comparator: fc.constantFrom('contains', 'empty', 'greater_than', 'lesser_than', 'equal', 'weird', undefined),
      precision: fc.constantFrom('day', 'month', 'year', 'decade', undefined),
      negated: fc.oneof(fc.boolean(), fc.constant('yes')),
      literal: fc.boolean(),
      from: fc.oneof(fc.string({ maxLength: 5 }), fc.constant('*')),
      to: fc.oneof(fc.string({ maxLength: 5 }), fc.constant(undefined)),
    }, { requiredKeys: [] });
    const node = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, tie('bool'), fc.constant(null), fc.constant([]), fc.string({ maxLength: 4 })),
      bool: fc.record({ jsonmodel_type: fc.constantFrom('boolean_query', undefined), op: fc.constantFrom('AND', 'OR', 'NOT', 'XOR', undefined), subqueries: fc.array(tie('node'), { maxLength: 3 }) }, { requiredKeys: [] }),
    })).node;
    const aqText = fc.oneof(node.map((n) => JSON.stringify({ jsonmodel_type: 'advanced_query', query: n })), qText, fc.json());
    const request = fc.record({ q: fc.option(qText, { nil: undefined }), aq: fc.option(aqText, { nil: undefined }), filter: fc.option(aqText, { nil: undefined }), filter_query: fc.option(fc.array(qText, { maxLength: 2 }), { nil: undefined }) }, { requiredKeys: [] });
    let sent = 0;
    const statuses = new Map<number, number>();
    await fc.assert(fc.asyncProperty(request, async (params) => {
      const query: Record<string, unknown> = { page: 1 };
      for (const [k, v] of Object.entries(params)) if (v !== undefined) query[k] = v;
      const res = await t.http.get(`/repositories/${repo}/search`).set(H, token).query(q(query));
      sent++;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      assert.ok([200, 400].includes(res.status), `${JSON.stringify(query)} → ${res.status} ${res.text}`);
      if (res.status === 400) assert.ok(res.body.error, res.text);
    }), { numRuns: 1000, seed: 20261123 });
    assert.equal(sent, 1000);
    assert.ok((statuses.get(200) ?? 0) > 100 && (statuses.get(400) ?? 0) > 100, `both outcomes exercised: ${JSON.stringify([...statuses])}`);
  });

  it('documents built in the index thread while writes happen are those a rebuild builds', async () => {
    const indexer = t.services.search!.indexer;
    // Rewritten live: a linked agent renamed re-indexes what resolves it (kept linked records spliced in).
    const smith = (await t.http.get(uri.smith).set(H, token)).body;
    const renamed = { ...smith, names: [{ ...smith.names[0], rest_of_name: 'Jane Q.', sort_name: 'Smith, Jane Q.' }] };
    assert.equal((await t.http.post(uri.smith).set(H, token).send(renamed)).status, 200);
    await indexer.drain();
    // A subject's or agent's is_linked_to_published_record is worked out when its own document is
    // built: a record published later that links it does not re-index it (the rebuild sees it).
    const stored = async () => new Map((await indexer.index.dump()).map((d) => [d.uri, d.json.replace(/,"is_linked_to_published_record":(true|false)/, '')]));
    const live = await stored();
    assert.ok(live.get(uri.accession1)?.includes('Smith, Jane Q.'), 'the accession carries the renamed agent');
    assert.ok(live.get(uri.letters)?.includes('"ancestors"'), 'an archival object carries its place in the tree');
    await indexer.rebuild();
    const rebuilt = await stored();
    assert.deepEqual([...live.keys()].sort(), [...rebuilt.keys()].sort());
    for (const [u, json] of rebuilt) assert.equal(live.get(u), json, u);
  });
});
