import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { post } from '../exchange/formats-fixture';
import { parseCsv, pdfText, reportFile } from './report-helpers';

/** Reports as report jobs over records the test made: rows, columns and order in JSON, and every format rendered. */
describe(`reports (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;
  let repoName: string;
  let viewer: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    const token = await t.adminToken();
    H = { 'X-ArchivesSpace-Session': token };
    const p = (path: string, body: unknown) => post(t, token, path, body);
    repoName = 'Reports Repository';
    const repo = (await p('/repositories', { repo_code: 'REP', name: repoName })).id;
    base = `/repositories/${repo}`;
    const location = await p('/locations', { building: 'Main', floor: '2', room: '201', coordinate_1_label: 'Shelf', coordinate_1_indicator: '3' });
    const box = await p(`${base}/top_containers`, {
      type: 'box', indicator: '7', container_locations: [{ ref: location.uri, status: 'current', start_date: '2020-01-01' }],
    });
    const person = await p('/agents/people', { names: [{ primary_name: 'Smith', rest_of_name: 'Jane', name_order: 'inverted', sort_name: 'Smith, Jane', source: 'local' }] });
    await p('/agents/families', { names: [{ family_name: 'Unsourced family', sort_name: 'Unsourced family' }] });
    await p('/agents/corporate_entities', { names: [{ primary_name: 'Acme', sort_name: 'Acme', source: 'naf' }] });
    const subject = await p('/subjects', { source: 'lcsh', vocabulary: '/vocabularies/1', terms: [{ term: 'Maps', term_type: 'topical', vocabulary: '/vocabularies/1' }, { term: 'Ohio', term_type: 'geographic', vocabulary: '/vocabularies/1' }] });
    await p('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Unused', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const classification = await p(`${base}/classifications`, { identifier: 'C1', title: 'Class one' });
    const first = await p(`${base}/accessions`, {
      id_0: '2020', id_1: '001', title: 'First, "quoted"', accession_date: '2020-01-02', provenance: 'From a donor', acquisition_type: 'gift',
      extents: [{ portion: 'whole', number: '2', extent_type: 'linear_feet', container_summary: 'two boxes' }],
      dates: [{ date_type: 'inclusive', label: 'creation', begin: '1900', end: '1950', expression: '1900-1950' }, { date_type: 'bulk', label: 'creation', begin: '1910', end: '1920' }],
      linked_agents: [{ ref: person.uri, role: 'creator', relator: 'aut' }],
      subjects: [{ ref: subject.uri }],
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.uri } } }],
      deaccessions: [{ scope: 'whole', description: 'Gone', notification: true, date: { date_type: 'single', label: 'deaccession', begin: '2021-05-01' }, extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }] }],
      restrictions_apply: true, classifications: [{ ref: classification.uri }], inventory: 'Two boxes of maps',
      rights_statements: [{ rights_type: 'copyright', status: 'copyrighted', jurisdiction: 'US', start_date: '2020-01-01' }],
    });
    const second = await p(`${base}/accessions`, { id_0: '2020', id_1: '002', title: 'Second', accession_date: '2020-02-03' });
    const event = (event_type: string, record: string, date: object) => p(`${base}/events`, {
      event_type, date, linked_agents: [{ ref: person.uri, role: 'implementer' }], linked_records: [{ ref: record, role: 'source' }],
    });
    await event('processed', first.uri, { date_type: 'single', label: 'event', begin: '2020-06-01' });
    await event('cataloged', second.uri, { date_type: 'single', label: 'event', begin: '2020-07-01' });
    await p(`${base}/events`, {
      event_type: 'copyright_transfer', outcome_note: 'All rights', date: { date_type: 'single', label: 'event', begin: '2020-01-05' },
      linked_agents: [{ ref: person.uri, role: 'implementer' }], linked_records: [{ ref: first.uri, role: 'source' }],
    });
    const digital = await p(`${base}/digital_objects`, { digital_object_id: 'DO-1', title: 'Scan', digital_object_type: 'still_image', dates: [{ date_type: 'single', label: 'creation', begin: '1930' }] });
    await p(`${base}/resources`, {
      title: 'Papers', id_0: 'MS', id_1: '1', level: 'collection', resource_type: 'papers', publish: true, finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'inclusive', label: 'creation', begin: '1900', end: '1950' }],
      extents: [{ portion: 'whole', number: '3', extent_type: 'cubic_feet', container_summary: '3 boxes' }],
      lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }],
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.uri } } }, { instance_type: 'digital_object', digital_object: { ref: digital.uri } }],
      related_accessions: [{ ref: first.uri }],
    });
    const restricted = await p(`${base}/resources`, {
      title: 'Restricted papers', id_0: 'MS', id_1: '2', level: 'collection', restrictions: true, finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'inclusive', label: 'creation', expression: 'circa 1960' }],
      extents: [{ portion: 'whole', number: '1.5', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }],
      deaccessions: [{ scope: 'part', description: 'Weeded', notification: false, date: { date_type: 'single', label: 'deaccession', begin: '2022-01-01' }, extents: [{ portion: 'part', number: '0.5', extent_type: 'linear_feet' }] }],
    });
    await p(`${base}/archival_objects`, {
      title: 'Folder', level: 'file', resource: { ref: restricted.uri },
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.uri }, type_2: 'folder', indicator_2: '1' } }],
    });
    const groups = await t.http.get(`${base}/groups`).query({ group_code: 'repository-viewers' }).set(H);
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [groups.body[0].uri] }).set(H).send({ username: 'report-viewer', name: 'Viewer', department: 'Reading room', title: 'Archivist' }).expect(200);
    viewer = { 'X-ArchivesSpace-Session': (await t.http.post('/users/report-viewer/login').query({ password: 'pw' })).body.session };
  });
  after(() => t?.close());

  const submit = (job: object, as = H) => t.http.post(`${base}/jobs`).set(as).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', ...job } });

  async function report(reportType: string, format: string, jobParams?: object): Promise<{ body: Buffer; text: string; contentType: string }> {
    const res = await t.http.post(`${base}/jobs`).set(H)
      .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: reportType, format }, job_params: jobParams ? JSON.stringify(JSON.stringify(jobParams)) : undefined });
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle();
    const job = (await t.http.get(res.body.uri).set(H)).body;
    assert.equal(job.status, 'completed', `${JSON.stringify(job)}\n${(await t.http.get(`${res.body.uri}/log`).set(H)).text}`);
    const ids = (await t.http.get(`${res.body.uri}/output_files`).set(H)).body;
    assert.equal(ids.length, 1);
    const file = await t.http.get(`${res.body.uri}/output_files/${ids[0]}`).set(H).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    return { body: file.body as Buffer, text: (file.body as Buffer).toString('utf8'), contentType: String(file.headers['content-type']) };
  }
  const json = async (code: string, params?: object) => JSON.parse((await report(code, 'json', params)).text);

  it('lists the reports and formats as ArchivesSpace does', async () => {
    const res = await t.http.get('/reports').expect(200);
    assert.deepEqual(res.body.formats, ['json', 'csv', 'html', 'pdf']);
    assert.deepEqual(res.body.reports.accession_report, {
      params: [['include_suppressed', 'IncludeSuppressed', 'Include suppressed records']], code: 'accession_report', model: 'AccessionReport',
    });
    assert.deepEqual(res.body.reports.location_report, { params: [], code: 'location_report', model: 'LocationReport' });
    const css = await t.http.get('/reports/static/report.css').expect(200);
    assert.match(String(css.headers['content-type']), /text\/css/);
    assert.equal((await t.http.get('/reports/static/nothing.css')).status, 404);
  });

  it('accession report: every column in order, with its sub-reports', async () => {
    const out = await json('accession_report');
    assert.deepEqual(out.info, { number_of_accessions: 2, repository: repoName });
    assert.equal(out.records.length, 2);
    const [a, b] = out.records;
    assert.deepEqual(Object.keys(a), [
      'accession_number', 'record_title', 'accession_date', 'provenance', 'general_note', 'container_summary', 'date_expression', 'begin_date',
      'end_date', 'bulk_begin_date', 'bulk_end_date', 'acquisition_type', 'retention_rule', 'description_note', 'condition_note', 'inventory',
      'disposition_note', 'restrictions_apply', 'access_restrictions', 'access_restrictions_note', 'use_restrictions', 'use_restrictions_note',
      'rights_transferred', 'rights_transferred_note', 'acknowledgement_sent', 'extent', 'deaccessions', 'locations', 'names', 'subjects',
    ]);
    assert.equal(a.accession_number, '2020.001');
    assert.equal(a.record_title, 'First, "quoted"');
    assert.equal(a.accession_date, '2020-01-02');
    assert.equal(a.container_summary, 'two boxes');
    assert.equal(a.date_expression, '1900-1950');
    assert.equal(a.begin_date, '1900');
    assert.equal(a.bulk_end_date, '1920');
    assert.equal(a.acquisition_type, 'Gift');
    assert.equal(a.restrictions_apply, 'Yes');
    assert.equal(a.access_restrictions, 'No');
    assert.equal(a.rights_transferred, 'Yes');
    assert.equal(a.rights_transferred_note, 'All rights');
    assert.equal(a.acknowledgement_sent, 'No');
    assert.equal(a.extent, '2.00 Linear Feet');
    assert.deepEqual(a.deaccessions, [{ description: 'Gone', notification_sent: 'Yes', date: '2021-05-01', extent: '1.00 Linear Feet' }]);
    assert.deepEqual(a.locations, [{ location: a.locations[0].location, container: 'box 7' }]);
    assert.match(a.locations[0].location, /Main/);
    assert.deepEqual(a.names, [{ name: 'Smith, Jane', function: 'Creator', role: 'Author' }]);
    assert.deepEqual(a.subjects, [{ term: 'Maps -- Ohio', type: 'Topical, Geographic', source: 'Library of Congress Subject Headings' }]);
    assert.equal(b.accession_number, '2020.002');
    assert.equal(b.extent, '0.00 ');
    assert.equal(b.rights_transferred, 'No');
    for (const k of ['deaccessions', 'locations', 'names', 'subjects', 'provenance']) assert.equal(b[k], null, k);
  });

  it('accession report in CSV, HTML and PDF', async () => {
    const csv = await report('accession_report', 'csv');
    assert.match(csv.contentType, /text\/csv/);
    const rows = parseCsv(csv.text);
    assert.deepEqual(rows.slice(0, 3), [['number_of_accessions', '2'], ['repository', repoName], ['']]);
    const header = rows[3];
    assert.deepEqual(header.slice(0, 2), ['accession_number', 'record_title']);
    assert.deepEqual(header.slice(-9), ['deaccessions_extent', 'locations_location', 'locations_container', 'names_name', 'names_function', 'names_role', 'subjects_term', 'subjects_type', 'subjects_source']);
    assert.equal(rows.length, 6);
    assert.equal(rows[4][1], 'First, "quoted"');
    assert.equal(rows[4][header.indexOf('names_name')], 'Smith, Jane');
    assert.equal(rows[5][0], '2020.002');
    const html = await report('accession_report', 'html');
    assert.match(html.contentType, /text\/html/);
    assert.match(html.text, /<h1>Accession Report<\/h1>/);
    assert.match(html.text, /<th>Record Title<\/th><td>First, &quot;quoted&quot;<\/td>/);
    assert.equal((html.text.match(/<section class="record">/g) ?? []).length, 2);
    const pdf = await report('accession_report', 'pdf');
    assert.match(pdf.contentType, /application\/pdf/);
    const text = pdfText(pdf.body);
    assert.match(text, /Accession Report/);
    assert.match(text, /Accession Number: 2020\.001/);
    assert.match(text, /Name: Smith, Jane/);
    assert.ok(text.indexOf('2020.001') < text.indexOf('2020.002'));
  });

  it('resources list, subject list, agent list, location list and user groups', async () => {
    const resources = await json('resources_list_report');
    assert.equal(resources.records.length, 2);
    assert.deepEqual(resources.records.slice(0, 1), [{
      record_title: 'Papers', identifier: 'MS.1', level: 'Collection', resource_type: 'Papers', publish: 'Yes', restrictions: 'No',
      date: [{ _date: 'Creation: 1900 - 1950' }],
      extent: [{ portion: 'whole', container_summary: '3 boxes', physical_details: null, dimensions: null, extent: '3.00 Cubic Feet' }],
    }]);
    const subjects = await json('subject_list_report');
    assert.deepEqual(subjects.records, [{ term: 'Maps -- Ohio', type: 'Topical, Geographic', source: 'Library of Congress Subject Headings' }]);
    const agents = await json('agent_list_report');
    assert.deepEqual(agents.records, [
      { sort_name: 'Smith, Jane', name_type: 'Person', name_source: 'Local sources' },
      { sort_name: 'Acme', name_type: 'Corporate', name_source: 'NACO Authority File' },
    ]);
    const locations = await json('location_report');
    assert.equal(locations.records.length, 1);
    const loc = locations.records[0];
    assert.deepEqual(Object.keys(loc), ['record_title', 'building', 'floor', 'room', 'area', 'barcode', 'classification_number', 'location_in_room', 'accessions', 'resources']);
    assert.equal(loc.building, 'Main');
    assert.equal(loc.location_in_room, 'Shelf 3, , ');
    assert.deepEqual(loc.accessions, [{ identifier: '2020.001', title: 'First, "quoted"' }]);
    assert.deepEqual(loc.resources, [{ identifier: 'MS.1', title: 'Papers' }, { identifier: 'MS.2', title: 'Restricted papers' }]);
    const users = await json('user_groups_report');
    assert.deepEqual(users.info, {});
    const row = users.records.find((u: { identifier: string }) => u.identifier === 'report-viewer');
    assert.deepEqual(Object.keys(row), ['id', 'identifier', 'name', 'department', 'email', 'telephone', 'source', 'is_system_user', 'is_hidden_user', 'title', 'groups']);
    assert.equal(row.department, 'Reading room');
    assert.equal(row.is_system_user, 0);
    assert.equal(row.groups.length, 1);
    for (const code of ['resources_list_report', 'subject_list_report', 'agent_list_report', 'location_report', 'user_groups_report']) {
      const html = await report(code, 'html');
      assert.match(html.text, /<section class="record">/, code);
      assert.match(pdfText((await report(code, 'pdf')).body), /\w/, code);
      assert.ok(parseCsv((await report(code, 'csv')).text).length > 2, code);
    }
    const htmlUsers = (await report('user_groups_report', 'html')).text;
    assert.match(htmlUsers, /<th>User Title<\/th><td>Archivist<\/td>/);
    assert.doesNotMatch(htmlUsers, /<th>Is System User<\/th>/);
  });

  it('accession deaccessions, unprocessed, rights transferred and subjects/names/classifications lists', async () => {
    const deaccessions = await json('accession_deaccessions_list_report');
    assert.deepEqual(deaccessions.info, { scoped_by_date_range: '2020-01-02 & 2020-01-02', total_extent: '2.00', total_deaccessions_extent: '1.00', total_count: 1, repository: repoName });
    assert.deepEqual(deaccessions.records, [{
      accession_number: '2020.001', record_title: 'First, "quoted"', accession_date: '2020-01-02', container_summary: 'two boxes', extent: '2.00 Linear Feet',
      deaccessions: [{ description: 'Gone', notification_sent: 'Yes', date: '2021-05-01', extent: '1.00 Linear Feet' }],
    }]);
    const unprocessed = await json('accession_unprocessed_report');
    assert.deepEqual(unprocessed.info, { total_count: 2, total_unprocessed: 1, scoped_by_date_range: '2020-02-03 & 2020-02-03', total_extent: null, repository: repoName });
    assert.deepEqual(unprocessed.records, [{
      accession_number: '2020.002', record_title: 'Second', accession_date: '2020-02-03', container_summary: null, cataloged: 'Yes', extent: '0.00 ', linked_resources: null,
    }]);
    const rights = await json('accession_rights_transferred_report');
    assert.deepEqual(rights.info, { total_transferred: 1, repository: repoName });
    assert.deepEqual(rights.records, [{
      accession_number: '2020.001', record_title: 'First, "quoted"', accession_date: '2020-01-02', restrictions_apply: 'Yes', access_restrictions: 'No',
      access_restrictions_note: null, use_restrictions: 'No', use_restrictions_note: null, container_summary: 'two boxes', accession_processed: 'Yes',
      accession_processed_date: '2020-06-01', cataloged: 'No', rights_transferred: 'Yes', rights_transferred_note: 'All rights', extent: '2.00 Linear Feet',
      linked_resources: [{ identifier: 'MS.1', title: 'Papers' }],
    }]);
    const snc = await json('accession_subjects_names_classifications_list_report');
    assert.equal(snc.records.length, 2);
    assert.deepEqual(Object.keys(snc.records[0]).slice(-6), ['rights_transferred', 'rights_transferred_note', 'extent', 'names', 'subjects', 'classifications']);
    assert.deepEqual(snc.records[0].classifications, [{ identifier: 'C1', title: 'Class one', term_identifier: null, term_title: null }]);
    assert.deepEqual(snc.records[0].names, [{ name: 'Smith, Jane', function: 'Creator', role: 'Author' }]);
    assert.equal(snc.records[1].rights_transferred, 'No');
    assert.equal(snc.records[1].classifications, null);
    for (const code of ['accession_deaccessions_list_report', 'accession_unprocessed_report', 'accession_rights_transferred_report', 'accession_subjects_names_classifications_list_report']) {
      const csv = parseCsv((await report(code, 'csv')).text);
      assert.ok(csv.length > 3, code);
      assert.match((await report(code, 'html')).text, /<section class="record">/, code);
      assert.match(pdfText((await report(code, 'pdf')).body), /Accession Number: 2020\.00/, code);
    }
  });

  it('resource deaccessions, locations and restrictions lists, and the digital object list table', async () => {
    const deaccessions = await json('resource_deaccessions_list_report');
    assert.deepEqual(deaccessions.info, { total_extent: '4.50', total_deaccessions_extent: '0.50', total_count: 2, repository: repoName });
    assert.deepEqual(deaccessions.records, [
      { record_title: 'Papers', identifier: 'MS.1', level: 'Collection', date_expression: '1900 - 1950', deaccessions: null },
      {
        record_title: 'Restricted papers', identifier: 'MS.2', level: 'Collection', date_expression: 'circa 1960',
        deaccessions: [{ description: 'Weeded', notification_sent: 'No', deaccession_date: '2022-01-01', extent: '0.50 Linear Feet' }],
      },
    ]);
    const locations = await json('resource_locations_list_report');
    assert.deepEqual(locations.info, { total_extent: '4.50', total_count: 2, repository: repoName });
    assert.deepEqual(locations.records.map((r: { identifier: string }) => r.identifier), ['MS.1', 'MS.2']);
    assert.deepEqual(Object.keys(locations.records[0]), ['record_title', 'identifier', 'level', 'dates', 'locations']);
    assert.equal(locations.records[1].locations.length, 1);
    assert.equal(locations.records[1].locations[0].containers, 'box 7');
    assert.match(locations.records[1].locations[0].location, /Main/);
    const restrictions = await json('resource_restrictions_list_report');
    assert.deepEqual(restrictions.info, { total_extent: '1.50', total_count: 1, repository: repoName });
    assert.deepEqual(restrictions.records, [{ record_title: 'Restricted papers', identifier: 'MS.2', level: 'Collection', dates: 'circa 1960', locations: locations.records[1].locations }]);
    const digital = await json('digital_object_list_table_report');
    assert.deepEqual(digital.records, [{ identifier: 'DO-1', record_title: 'Scan', object_type: 'Still Image', date_expression: '1930', resource_identifier: 'MS.1' }]);
    for (const code of ['resource_deaccessions_list_report', 'resource_locations_list_report', 'resource_restrictions_list_report', 'digital_object_list_table_report']) {
      assert.ok(parseCsv((await report(code, 'csv')).text).length > 3, code);
      assert.match((await report(code, 'html')).text, /<section class="record">/, code);
      assert.match(pdfText((await report(code, 'pdf')).body), /Record Title: /, code);
    }
  });

  it('accession inventory and receipt reports, the receipt scoped by dates', async () => {
    const inventory = await json('accession_inventory_report');
    assert.deepEqual(inventory.info, { total_count: 2, number_with_inventories: 1, repository: repoName });
    assert.deepEqual(inventory.records, [{
      accession_number: '2020.001', record_title: 'First, "quoted"', accession_date: '2020-01-02', inventory: 'Two boxes of maps', date_expression: '1900-1950',
      begin_date: '1900', end_date: '1950', bulk_begin_date: '1910', bulk_end_date: '1920', container_summary: 'two boxes', extent: '2.00 Linear Feet',
      linked_resources: [{ identifier: 'MS.1', title: 'Papers' }],
    }]);
    const receipt = await json('accession_receipt_report');
    assert.deepEqual(receipt.info, { repository: repoName });
    assert.equal(receipt.records.length, 2);
    assert.deepEqual(Object.keys(receipt.records[0]), ['accession_number', 'record_title', 'accession_date', 'container_summary', 'extent', 'names', 'rights_statements']);
    assert.deepEqual(receipt.records[0].rights_statements, [{
      rights_type: 'Copyright', statute_citation: null, jurisdiction: 'United States', status: 'Copyrighted', begin_date: '2020-01-01', end_date: null,
      determination_date: null, license_terms: null, other_rights_basis: null,
    }]);
    const scoped = await json('accession_receipt_report', { scope_by_date: true, from: '2020-01-15', to: '2020-12-31' });
    assert.deepEqual(scoped.info, { scoped_by_date_range: '2020-01-15 00:00:00 & 2020-12-31 00:00:00', repository: repoName });
    assert.deepEqual(scoped.records.map((r: { accession_number: string }) => r.accession_number), ['2020.002']);
    const unscoped = await t.http.post(`${base}/jobs`).set(H)
      .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'accession_receipt_report', format: 'csv' }, job_params: '{"scope_by_date": true, "from": "2020-01-01"}' });
    assert.equal(unscoped.status, 400);
    assert.match(JSON.stringify(unscoped.body), /Date range not specified/);
    const badDate = await t.http.post(`${base}/jobs`).set(H)
      .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'accession_receipt_report', format: 'csv' }, job_params: '{"scope_by_date": true, "from": "last year", "to": "2021-01-01"}' });
    assert.equal(badDate.status, 400);
    assert.match(JSON.stringify(badDate.body), /from/);
    for (const code of ['accession_inventory_report', 'accession_receipt_report']) {
      assert.ok(parseCsv((await report(code, 'csv')).text).length > 3, code);
      assert.match((await report(code, 'html')).text, /<section class="record">/, code);
      assert.match(pdfText((await report(code, 'pdf')).body), /Accession Number: 2020\.001/, code);
    }
  });

  it('refuses bad submissions with a 400 and a report job without create_job with a 403', async () => {
    const unknown = await submit({ report_type: 'no_such_report', format: 'csv' });
    assert.equal(unknown.status, 400);
    assert.match(JSON.stringify(unknown.body), /report_type/);
    const badFormat = await submit({ report_type: 'accession_report', format: 'docx' });
    assert.equal(badFormat.status, 400);
    assert.match(JSON.stringify(badFormat.body), /format/);
    const badParam = await t.http.post(`${base}/jobs`).set(H)
      .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'accession_report', format: 'csv' }, job_params: '{"include_suppressed": "perhaps"}' });
    assert.equal(badParam.status, 400);
    assert.match(JSON.stringify(badParam.body), /include_suppressed/);
    const notJson = await t.http.post(`${base}/jobs`).set(H)
      .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'accession_report', format: 'csv' }, job_params: '{oops' });
    assert.equal(notJson.status, 400);
    assert.equal((await submit({ report_type: 'accession_report', format: 'csv' }, viewer)).status, 403);
  });

  it('keeps suppressed accessions out unless asked for by one who may see them', async () => {
    const hidden = await post(t, await t.adminToken(), `${base}/accessions`, { id_0: '2020', id_1: '003', title: 'Hidden', accession_date: '2020-03-01' });
    await t.http.post(`${hidden.uri}/suppressed`).query({ suppressed: true }).set(H).expect(200);
    assert.deepEqual((await json('accession_report')).records.map((r: { accession_number: string }) => r.accession_number), ['2020.001', '2020.002']);
    const asked = await json('accession_report', { include_suppressed: true });
    assert.deepEqual(asked.records.map((r: { accession_number: string }) => r.accession_number), ['2020.001', '2020.002', '2020.003']);
    assert.equal(asked.info.number_of_accessions, 3);
    await t.http.post(`${hidden.uri}/suppressed`).query({ suppressed: false }).set(H).expect(200);
    await t.http.delete(hidden.uri).set(H).expect(200);
  });

  it('PDF: Latin, Greek and Cyrillic read back, text that needs shaping prints, a word wider than a line is broken', async () => {
    const token = await t.adminToken();
    const other = `/repositories/${(await post(t, token, '/repositories', { repo_code: 'SCRIPTS', name: 'Scripts' })).id}`;
    const long = 'x'.repeat(300);
    // Over 300 letters: glyph ids past 0x0128, whose bytes are a literal string's delimiters.
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i)).join('');
    const letters = [range(0xc0, 0xff), range(0x100, 0x17f), range(0x391, 0x3a1) + range(0x3a3, 0x3c9), range(0x410, 0x44f)].join(' ');
    await post(t, token, `${other}/accessions`, {
      id_0: 'S', id_1: '1', accession_date: '2020-01-01', title: 'Łódź, Dvořák – «Αρχείο» Архив (a\\b)', provenance: `Before ${long} after`,
      inventory: 'Mu\u0308ller, أرشيف, 档案, 𝄞', general_note: letters,
    });
    const text = pdfText((await reportFile(t, H, other, 'accession_report', 'pdf')).body);
    assert.match(text, /Record Title: Łódź, Dvořák – «Αρχείο» Архив \(a\\b\)/);
    assert.ok(text.replace(/\s+/g, '').includes(`GeneralNote:${letters.replace(/ /g, '')}`), text);
    assert.match(text, /Provenance: Before/);
    assert.equal(text.replace(/\s+/g, '').match(/x{300}after/)?.[0].length, 305, 'the long word is all there, broken over lines');
    assert.match(text, /Inventory: Mu.*ller/);
  });

  it('an empty repository gives an empty report, not an error', async () => {
    const other = (await post(t, await t.adminToken(), '/repositories', { repo_code: 'EMPTY', name: 'Empty' })).id;
    const res = await t.http.post(`/repositories/${other}/jobs`).set(H).send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'accession_report', format: 'csv' } });
    await t.services.jobs!.idle();
    const job = (await t.http.get(res.body.uri).set(H)).body;
    assert.equal(job.status, 'completed');
    const ids = (await t.http.get(`${res.body.uri}/output_files`).set(H)).body;
    const text = (await t.http.get(`${res.body.uri}/output_files/${ids[0]}`).set(H)).text;
    assert.equal(text, 'number_of_accessions,0\nrepository,Empty\n\nNo results found.\n');
  });
});
