import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { post } from '../exchange/formats-fixture';
import { parseCsv, pdfText, reportFile, rendersEveryFormat, runReport } from './report-helpers';

/** Created accessions, assessments, file versions, location holdings, shelflist and resource instances over records the test made. */
describe(`reports: accessions by date, assessments, locations, instances (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;
  let repoId: number;
  const repoName = 'More Reports';
  const uris: Record<string, string> = {};
  const json = async (code: string, params?: object) => JSON.parse((await reportFile(t, H, base, code, 'json', params)).text);

  before(async () => {
    t = await startTestApp();
    const token = await t.adminToken();
    H = { 'X-ArchivesSpace-Session': token };
    const p = (path: string, body: unknown) => post(t, token, path, body);
    repoId = (await p('/repositories', { repo_code: 'MORE', name: repoName })).id;
    base = `/repositories/${repoId}`;
    const locationProfile = await p('/location_profiles', { name: 'Shelf unit', dimension_units: 'inches', height: '10', width: '10', depth: '10' });
    const east1 = await p('/locations', { building: 'East', floor: '1', room: '101', barcode: 'L-1', temporary: 'loan', location_profile: { ref: locationProfile.uri }, coordinate_1_label: 'Shelf', coordinate_1_indicator: '4' });
    const east2 = await p('/locations', { building: 'East', floor: '2', room: '201', coordinate_1_label: 'Shelf', coordinate_1_indicator: '1' });
    await p('/locations', { building: 'West', floor: '1', room: '9', coordinate_1_label: 'Shelf', coordinate_1_indicator: '2' });
    uris.east1 = east1.uri;
    uris.east2 = east2.uri;
    const profile = await p('/container_profiles', { name: 'Legal box', dimension_units: 'inches', extent_dimension: 'width', height: '10', width: '15', depth: '12' });
    const box = await p(`${base}/top_containers`, {
      type: 'box', indicator: '1', barcode: 'B-1', ils_item_id: 'I-1', ils_holding_id: 'H-1', container_profile: { ref: profile.uri },
      container_locations: [{ ref: east1.uri, status: 'current', start_date: '2020-01-01' }],
    });
    const box2 = await p(`${base}/top_containers`, { type: 'box', indicator: '2', container_locations: [{ ref: east2.uri, status: 'current', start_date: '2020-01-01' }] });
    const inBox = (top: string, extra: object = {}) => ({ instance_type: 'mixed_materials', sub_container: { top_container: { ref: top }, ...extra } });
    const a1 = await p(`${base}/accessions`, { id_0: '2021', id_1: '1', title: 'March gift', accession_date: '2021-03-01', instances: [inBox(box.uri)] });
    await p(`${base}/accessions`, { id_0: '2021', id_1: '2', title: 'January gift', accession_date: '2021-01-15' });
    await p(`${base}/accessions`, { id_0: '2021', id_1: '3', title: 'Later gift', accession_date: '2022-06-01' });
    const digital = await p(`${base}/digital_objects`, {
      digital_object_id: 'DO-9', title: 'Scans', file_versions: [{ file_uri: 'http://example.org/1.tif' }, { file_uri: 'http://example.org/2.tif' }],
    });
    await p(`${base}/digital_object_components`, { title: 'Page one', digital_object: { ref: digital.uri }, file_versions: [{ file_uri: 'http://example.org/p1.tif' }] });
    await p(`${base}/digital_objects`, { digital_object_id: 'DO-10', title: 'No files' });
    const resource = await p(`${base}/resources`, {
      title: 'Papers', id_0: 'MS', id_1: '9', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'inclusive', label: 'creation', begin: '1900', end: '1910' }],
      extents: [{ portion: 'whole', number: '2', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }],
      instances: [inBox(box.uri), { instance_type: 'digital_object', digital_object: { ref: digital.uri } }],
    });
    await p(`${base}/archival_objects`, { title: 'Folder', level: 'file', resource: { ref: resource.uri }, instances: [inBox(box.uri, { type_2: 'folder', indicator_2: '3' }), inBox(box2.uri)] });
    const person = await p('/agents/people', { names: [{ primary_name: 'Surveyor', rest_of_name: 'Sam', name_order: 'inverted', sort_name: 'Surveyor, Sam', source: 'local' }] });
    await p(`${base}/assessments`, {
      records: [{ ref: a1.uri }, { ref: resource.uri }], surveyed_by: [{ ref: person.uri }], reviewer: [{ ref: person.uri }], survey_begin: '2021-02-01', survey_end: '2021-02-03',
      purpose: 'Check', appraisal: true, monetary_value: '12.5', general_assessment_note: 'Fine shape',
      ratings: [{ definition_id: 1, value: '3', note: 'Ready' }, { definition_id: 8, value: '5' }],
      formats: [{ definition_id: 18, value: 'true' }], conservation_issues: [{ definition_id: 25, value: 'true' }],
    });
    await p(`${base}/assessments`, { records: [{ ref: a1.uri }], surveyed_by: [{ ref: person.uri }], survey_begin: '2021-05-01', inactive: true, ratings: [{ definition_id: 1, value: '1' }] });
    uris.resource = resource.uri;
    uris.accession = a1.uri;
  });
  after(() => t?.close());

  it('created accessions: strictly between the dates, by accession date', async () => {
    const out = await json('created_accessions_report', { from: '2021-01-01', to: '2021-12-31' });
    assert.deepEqual(out.info, { scoped_by_date_range: '2021-01-01 00:00:00 & 2021-12-31 00:00:00', total_count: 2, repository: repoName });
    assert.deepEqual(out.records, [
      { accession_number: '2021.2', record_title: 'January gift', accession_date: '2021-01-15' },
      { accession_number: '2021.1', record_title: 'March gift', accession_date: '2021-03-01' },
    ]);
    const listed = (await t.http.get('/reports').expect(200)).body.reports.created_accessions_report;
    assert.deepEqual(listed.params, [['from', 'Date', 'The start of report range'], ['to', 'Date', 'The start of report range'], ['include_suppressed', 'IncludeSuppressed', 'Include suppressed records']]);
    const bad = await t.http.post(`${base}/jobs`).set(H).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'created_accessions_report', format: 'json' }, job_params: '{"from": "soon"}' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /from/);
    await rendersEveryFormat(t, H, base, 'created_accessions_report', /Accession Number: 2021\.2/, { from: '2021-01-01', to: '2021-12-31' });
  });

  it('assessment list: active assessments, attributes by their labels, a CSV column per attribute', async () => {
    const out = await json('assessment_list_report');
    assert.deepEqual(out.info, { total_count: 1, repository: repoName });
    const [row] = out.records;
    assert.deepEqual(Object.keys(row).slice(0, 4), ['linked_records', 'id', 'accession_report', 'appraisal']);
    assert.deepEqual(Object.keys(row).slice(-6), ['monetary_value_note', 'formats', 'special_format_note', 'conservation_issues', 'conservation_note', 'ratings']);
    assert.deepEqual(row.linked_records, [
      { record_id: `resource_${uris.resource.split('/').pop()}`, record_title: 'Papers', identifier: 'MS.9' },
      { record_id: `accession_${uris.accession.split('/').pop()}`, record_title: 'March gift', identifier: '2021.1' },
    ]);
    assert.equal(row.appraisal, 'Yes');
    assert.equal(row.accession_report, 'No');
    assert.equal(row.surveyed_by, 'Surveyor, Sam');
    assert.equal(row.reviewer, 'Surveyor, Sam');
    assert.equal(row.monetary_value, '12.50');
    assert.equal(row.formats, 'Photographs');
    assert.equal(row.conservation_issues, 'Potential Mold or Mold Damage');
    assert.deepEqual(row.ratings, [{ field: 'Reformatting Readiness', rating: '3', note: 'Ready' }, { field: 'Research Value', rating: '5', note: null }]);
    const csv = parseCsv((await reportFile(t, H, base, 'assessment_list_report', 'csv')).text);
    const header = csv[3];
    assert.ok(!header.includes('formats') && !header.includes('ratings_field'));
    for (const [column, value] of [['photographs', 'Yes'], ['glass', ''], ['potential_mold_or_mold_damage', 'Yes'], ['reformatting_readiness_rating', '3'], ['reformatting_readiness_note', 'Ready'], ['research_value_rating', '5']]) {
      assert.equal(csv[4][header.indexOf(column)], value, column);
    }
    assert.ok(!header.includes('research_value_note'));
    const scoped = await json('assessment_list_report', { scope_by_date: true, from: '2021-03-01', to: '2021-12-31' });
    assert.deepEqual(scoped.records, []);
    assert.equal(scoped.info.scoped_by_date_range, '2021-03-01 00:00:00 & 2021-12-31 00:00:00');
    await rendersEveryFormat(t, H, base, 'assessment_list_report', /Linked Records/);
  });

  it('assessment rating: the assessments whose rating has a chosen value', async () => {
    const out = await json('assessment_rating_report', { rating: '1', value_3: 'on', value_4: 'on' });
    assert.deepEqual(out.info, { scoped_by_rating: 'Reformatting Readiness', showing_values: '3, 4', repository: repoName });
    assert.equal(out.records.length, 1);
    assert.deepEqual(Object.keys(out.records[0]), ['linked_records', 'id', 'rating_name', 'rating_note', 'general_assessment_note', 'surveyed_by', 'surveyed_extent', 'survey_begin', 'survey_end']);
    assert.equal(out.records[0].rating_name, '3');
    assert.equal(out.records[0].rating_note, 'Ready');
    const inactiveToo = await json('assessment_rating_report', { rating: 1, values: [1] });
    assert.equal(inactiveToo.records[0].survey_begin, '2021-05-01');
    const none = await t.http.post(`${base}/jobs`).set(H).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'assessment_rating_report', format: 'json' }, job_params: '{"rating": "1"}' });
    assert.equal(none.status, 400);
    assert.match(JSON.stringify(none.body), /Need a rating and at least one value of interest/);
    const notRating = await t.http.post(`${base}/jobs`).set(H).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'assessment_rating_report', format: 'json' }, job_params: '{"rating": "18", "value_1": "on"}' });
    assert.equal(notRating.status, 400);
    assert.match(JSON.stringify(notRating.body), /rating/);
    await rendersEveryFormat(t, H, base, 'assessment_rating_report', /Rating Name: 3/, { rating: '1', value_3: 'on' });
  });

  it('digital object file versions: a row per file version, the object\'s and its components\' versions below', async () => {
    const out = await json('digital_object_file_versions_report');
    assert.deepEqual(out.info, { total_count: 2, repository: repoName });
    assert.deepEqual(out.records.map((r: { digital_object_uri: string }) => r.digital_object_uri), ['http://example.org/1.tif', 'http://example.org/2.tif']);
    assert.deepEqual(Object.keys(out.records[0]), ['digital_object_id', 'digital_object_identifier', 'digital_object_title', 'digital_object_uri', 'file_versions']);
    assert.equal(out.records[0].digital_object_identifier, 'DO-9');
    assert.deepEqual(out.records[0].file_versions, [
      { file_uri: 'http://example.org/1.tif', digital_object_title: 'Scans', digital_object_component_title: null },
      { file_uri: 'http://example.org/2.tif', digital_object_title: 'Scans', digital_object_component_title: null },
      { file_uri: 'http://example.org/p1.tif', digital_object_title: null, digital_object_component_title: 'Page one' },
    ]);
    await rendersEveryFormat(t, H, base, 'digital_object_file_versions_report', /Digital Object Uri: http:\/\/example\.org\/1\.tif/);
  });

  it('location holdings: by building, one location or a range; containers with the records in them', async () => {
    const byBuilding = await json('location_holdings_report', { building: 'East' });
    assert.equal(byBuilding.records.length, 2);
    const [first] = byBuilding.records;
    assert.deepEqual(Object.keys(first), ['record_title', 'building', 'floor', 'room', 'location_url', 'location_profile', 'location_barcode', 'location_in_room', 'containers']);
    assert.equal(first.location_url, uris.east1);
    assert.equal(first.location_profile, 'Shelf unit');
    assert.equal(first.location_in_room, 'Shelf 4, , ');
    assert.deepEqual(first.containers, [{
      top_container_indicator: '1', top_container_barcode: 'B-1', ils_item_id: 'I-1', ils_holding_id: 'H-1', container_profile: 'Legal box',
      records: [{ linked_record_type: 'resource', identifier: 'MS.9', record_title: 'Papers' }, { linked_record_type: 'accession', identifier: '2021.1', record_title: 'March gift' }],
    }]);
    const one = await json('location_holdings_report', { location_start: { ref: uris.east2 } });
    assert.deepEqual(one.records.map((r: { location_url: string }) => r.location_url), [uris.east2]);
    assert.deepEqual(one.records[0].containers, [{ top_container_indicator: '2', top_container_barcode: null, ils_item_id: null, ils_holding_id: null, container_profile: null, records: [{ linked_record_type: 'resource', identifier: 'MS.9', record_title: 'Papers' }] }]);
    const range = await json('location_holdings_report', { location_start: { ref: uris.east2 }, location_end: { ref: uris.east1 } });
    assert.deepEqual(range.records.map((r: { location_url: string }) => r.location_url), [uris.east1, uris.east2]);
    const none = await t.http.post(`${base}/jobs`).set(H).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'location_holdings_report', format: 'json' } });
    assert.equal(none.status, 400);
    assert.match(JSON.stringify(none.body), /locations/);
    const missing = await t.http.post(`${base}/jobs`).set(H).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'location_holdings_report', format: 'json' }, job_params: '{"location_start": {"ref": "/locations/99999"}}' });
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body), /location_start/);
    const csv = parseCsv((await reportFile(t, H, base, 'location_holdings_report', 'csv', { building: 'East' })).text);
    assert.deepEqual(csv.slice(0, 2), [['repository', repoName], ['']]);
    assert.deepEqual(csv[2].slice(-8), ['containers_top_container_indicator', 'containers_top_container_barcode', 'containers_ils_item_id', 'containers_ils_holding_id', 'containers_container_profile', 'containers_records_linked_record_type', 'containers_records_identifier', 'containers_records_record_title']);
    assert.equal(csv.length, 3 + 3, 'one line per container record, one for the second location');
    await rendersEveryFormat(t, H, base, 'location_holdings_report', /Linked Record Type: resource/, { building: 'East' });
  });

  it('shelflist: every location with the repository\'s resources and accessions there, by container', async () => {
    const out = await json('shelflist_report');
    assert.equal(out.records.length, 3);
    const [first, second, third] = out.records;
    assert.deepEqual(Object.keys(first), ['record_title', 'temporary_location', 'building', 'floor', 'room', 'area', 'location_barcode', 'location_in_room', 'location_profile', 'resources', 'accessions']);
    assert.equal(first.temporary_location, 'Loan');
    assert.equal(first.location_barcode, 'L-1');
    assert.deepEqual(first.resources, [{ identifier: 'MS.9', title: 'Papers', containers: [{ top_container_barcode: 'B-1', container_profile: 'Legal box', container: 'Box 1' }] }]);
    assert.deepEqual(first.accessions, [{ identifier: '2021.1', title: 'March gift', containers: [{ top_container_barcode: 'B-1', container_profile: 'Legal box', container: 'Box 1' }] }]);
    assert.deepEqual(second.resources, [{ identifier: 'MS.9', title: 'Papers', containers: [{ top_container_barcode: null, container_profile: null, container: 'Box 2' }] }]);
    assert.equal(second.accessions, null);
    assert.equal(third.resources, null);
    await rendersEveryFormat(t, H, base, 'shelflist_report', /Container: Box 1/);
  });

  it('resource instances list: instances by top container, the components\' included, digital objects apart', async () => {
    const out = await json('resource_instances_list_report');
    assert.deepEqual(out.info, { total_count: 1, total_extent: '2.00', repository: repoName });
    const [row] = out.records;
    assert.deepEqual(Object.keys(row), ['record_title', 'identifier', 'level', 'date', 'instances']);
    assert.equal(row.date, '1900 - 1910');
    const none = { digital_object: null, instance_type: 'Mixed Materials', is_representative: null, container_2: null, container_3: null };
    assert.deepEqual(row.instances, [
      { container: 'Box 1', container_profile: 'Legal box', instances: [none, { ...none, container_2: 'Folder 3' }] },
      { container: 'Digital Object Instances', container_profile: null, instances: [{ ...none, digital_object: 'Scans', instance_type: 'Digital Object' }] },
      { container: 'Box 2', container_profile: null, instances: [none] },
    ]);
    const csv = parseCsv((await reportFile(t, H, base, 'resource_instances_list_report', 'csv')).text);
    assert.deepEqual(csv[4].slice(-5), ['instances_instances_digital_object', 'instances_instances_instance_type', 'instances_instances_is_representative', 'instances_instances_container_2', 'instances_instances_container_3']);
    assert.deepEqual(csv[5].slice(0, 2), ['Papers', 'MS.9']);
    assert.equal(csv.length, 5 + 4, 'a line per instance row');
    await rendersEveryFormat(t, H, base, 'resource_instances_list_report', /Container: Digital Object Instances/);
    const pdf = pdfText((await reportFile(t, H, base, 'resource_instances_list_report', 'pdf')).body);
    assert.match(pdf, /Container 2: Folder 3/);
  });

  it('an empty repository gives empty reports', async () => {
    const other = (await post(t, await t.adminToken(), '/repositories', { repo_code: 'MORE0', name: 'Empty too' })).id;
    for (const [code, params] of [['created_accessions_report', { from: '2000-01-01', to: '2030-01-01' }], ['assessment_list_report', undefined], ['digital_object_file_versions_report', undefined], ['resource_instances_list_report', undefined]] as const) {
      const out = await runReport(t, H, `/repositories/${other}`, code, 'csv', params);
      assert.equal(out.job.status, 'completed', code);
      assert.match(out.file!.text, /No results found\.\n$/, code);
    }
  });
});
