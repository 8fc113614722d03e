import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { post } from '../exchange/formats-fixture';
import { parseCsv, pdfText, reportFile, runAfterTemplateEdit, runReport } from './report-helpers';

/** Custom reports: templates' fields, filters per field kind, sub-reports and order, over records the test made. */
describe(`custom reports (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let token: string;
  let base: string;
  const repoName = 'Custom Reports';

  /** A template in the repository; answers its id. */
  async function template(data: object, extra: object = {}, at = base): Promise<number> {
    return (await post(t, token, `${at}/custom_report_templates`, { name: `T ${Math.random()}`, data: JSON.stringify(data), ...extra })).id;
  }
  const custom = async (id: number, format = 'json') => reportFile(t, H, base, 'custom_report', format, { template: id });
  const rows = async (data: object, extra: object = {}) => JSON.parse((await custom(await template(data, extra))).text);
  const submit = (id: number, at = base) => t.http.post(`${at}/jobs`).set(H)
    .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'custom_report', format: 'json' }, job_params: JSON.stringify({ template: String(id) }) });

  before(async () => {
    t = await startTestApp();
    token = await t.adminToken();
    H = { 'X-ArchivesSpace-Session': token };
    const p = (path: string, body: unknown) => post(t, token, path, body);
    base = `/repositories/${(await p('/repositories', { repo_code: 'CUST', name: repoName })).id}`;
    const maps = await p('/subjects', { source: 'lcsh', vocabulary: '/vocabularies/1', terms: [{ term: 'Maps', term_type: 'topical', vocabulary: '/vocabularies/1' }] });
    const person = await p('/agents/people', { names: [{ primary_name: 'Donor', rest_of_name: 'Dana', name_order: 'inverted', sort_name: 'Donor, Dana', source: 'local' }] });
    await p(`${base}/accessions`, {
      id_0: 'B', title: 'Bravo', accession_date: '2020-05-01', acquisition_type: 'gift', publish: true, restrictions_apply: true,
      subjects: [{ ref: maps.uri }], linked_agents: [{ ref: person.uri, role: 'source' }],
      dates: [{ date_type: 'single', label: 'creation', begin: '1950' }],
      collection_management: { processing_hours_total: '3', processing_status: 'completed', processing_total_extent: '2', processing_total_extent_type: 'linear_feet' },
      rights_statements: [{ rights_type: 'copyright', status: 'copyrighted', jurisdiction: 'US', start_date: '2020-01-01' }],
      user_defined: { boolean_1: true, string_1: 'Shelved', real_1: '2.5' },
    });
    await p(`${base}/accessions`, { id_0: 'A', title: 'Alpha', accession_date: '2019-01-10', acquisition_type: 'purchase', publish: false });
    await p(`${base}/accessions`, { id_0: 'C', title: 'Charlie', accession_date: '2021-07-04', acquisition_type: 'gift' });
  });
  after(() => t?.close());

  it('GET /reports/custom_data: the fields and sub-reports per record type, as ArchivesSpace registers them', async () => {
    const data = (await t.http.get('/reports/custom_data').expect(200)).body;
    assert.deepEqual(data.global.fields[0], { sortable: true, translation_scope: 'advanced_search.text', name: 'created_by', data_type: 'User' });
    assert.deepEqual(data.accession.fields[0], { name: 'access_restrictions', data_type: 'Boolean' });
    assert.deepEqual(data.accession.fields.find((f: { name: string }) => f.name === 'accession_date'), { sortable: true, name: 'accession_date', data_type: 'Date' });
    assert.deepEqual(data.resource.fields.find((f: { name: string }) => f.name === 'level'), { sortable: true, enum_name: 'archival_record_level', name: 'level', data_type: 'Enum' });
    assert.deepEqual(data.subject.fields[0], { sortable: true, alias: 'terms', name: 'title', data_type: 'String' });
    assert.ok(data.accession.subreports.some((s: { name: string; code: string }) => s.name === 'subject' && s.code === 'subject_subreport'));
    assert.deepEqual(Object.keys(data).slice(0, 3), ['global', 'accession', 'agent']);
    assert.deepEqual((await t.http.get('/reports').expect(200)).body.reports.custom_report.params[0], ['template', 'CustomReportTemplate', 'Template to use for the custom report.']);
  });

  it('text fields, sorted: the columns chosen, in the registered order, by the sort field', async () => {
    const out = await rows({ custom_record_type: 'accession', fields: { title: { include: '1' }, identifier: { include: '1' } }, sort_by: 'title' }, { description: 'Titles' });
    assert.deepEqual(out.info, { template_name: out.info.template_name, template_description: 'Titles', custom_record_type: 'accession', sorted_by: 'title', total_count: 3, repository: repoName });
    assert.deepEqual(out.records, [
      { identifier: 'A', record_title: 'Alpha' }, { identifier: 'B', record_title: 'Bravo' }, { identifier: 'C', record_title: 'Charlie' },
    ]);
    const exact = await rows({ custom_record_type: 'accession', fields: { title: { include: '1', values: ['Charlie'] } } });
    assert.deepEqual(exact.records, [{ record_title: 'Charlie' }]);
    const limited = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' } }, sort_by: 'identifier' }, { limit: 2 });
    assert.deepEqual(limited.records, [{ identifier: 'A' }, { identifier: 'B' }]);
    assert.equal(limited.info.total_count, 2);
  });

  it('date fields: a range, strictly between its dates', async () => {
    const out = await rows({ custom_record_type: 'accession', fields: { title: { include: '1' }, accession_date: { include: '1', range_start: '2019-06-01', range_end: '2021-07-04' } }, sort_by: 'accession_date' });
    assert.deepEqual(out.records, [{ record_title: 'Bravo', accession_date: '2020-05-01' }]);
    assert.equal(out.info.accession_date, '2019-06-01 - 2021-07-04');
    const created = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' }, create_time: { include: '1', range_start: '2000-01-01', range_end: '2999-01-01' } }, sort_by: 'identifier' });
    assert.equal(created.records.length, 3);
    assert.match(created.records[0].create_time, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('enumeration fields: the values chosen, by id as the staff interface sends them or by value', async () => {
    const list = (await t.http.get('/config/enumerations').set(H).expect(200)).body.find((e: { name: string }) => e.name === 'accession_acquisition_type');
    const gift = list.enumeration_values.find((v: { value: string }) => v.value === 'gift');
    const byId = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' }, acquisition_type: { include: '1', values: [gift.uri.split('/').pop()] } }, sort_by: 'acquisition_type' });
    assert.deepEqual(byId.records, [{ identifier: 'B', acquisition_type: 'Gift' }, { identifier: 'C', acquisition_type: 'Gift' }]);
    assert.equal(byId.info.acquisition_type, 'Gift');
    const byValue = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' }, acquisition_type: { values: ['purchase'] } } });
    assert.deepEqual(byValue.records, [{ identifier: 'A' }]);
  });

  it('boolean fields: Yes/No, narrowed by a value', async () => {
    const out = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' }, publish: { include: '1', value: 'true' }, restrictions_apply: { include: '1' } } });
    assert.deepEqual(out.records, [{ identifier: 'B', publish: 'Yes', restrictions_apply: 'Yes' }]);
    assert.equal(out.info.publish, 'Yes');
    const unpublished = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' }, publish: { value: 'false' } }, sort_by: 'identifier' });
    assert.deepEqual(unpublished.records, [{ identifier: 'A' }, { identifier: 'C' }]);
  });

  it('linked records: users who made them, and linked subjects, agents and dates as sub-reports', async () => {
    const out = await rows({
      custom_record_type: 'accession', sort_by: 'identifier',
      fields: { identifier: { include: '1' }, created_by: { include: '1', values: ['admin'] } },
      subreports: { subject: { include: '1' }, linked_agent: { include: '1' }, date: { include: '1' }, extent: {} },
    });
    assert.equal(out.records.length, 3);
    assert.deepEqual(Object.keys(out.records[0]), ['identifier', 'created_by', 'linked_agent', 'date', 'subject']);
    const bravo = out.records[1];
    assert.equal(bravo.created_by, 'admin');
    assert.deepEqual(bravo.subject, [{ term: 'Maps', type: 'Topical', source: 'Library of Congress Subject Headings', authority: null, scope_note: null }]);
    assert.deepEqual(bravo.linked_agent, [{ role: 'Source', relator: null, record_title: null, term: null, ref: 'Donor, Dana' }]);
    assert.equal(bravo.date[0].begin, '1950');
    assert.equal(out.records[0].subject, null);
    const more = await rows({
      custom_record_type: 'accession', fields: { identifier: { include: '1', values: ['B'] } },
      subreports: { collection_management: { include: '1' }, rights_statement: { include: '1' }, user_defined: { include: '1' } },
    });
    const [b] = more.records;
    assert.deepEqual(b.collection_management, [{
      processing_hours_per_foot_estimate: null, processing_hours_total: '3.00', processing_plan: null, processing_priority: null, processing_status: 'Completed',
      processing_funding_source: null, processors: null, rights_determined: 'No', extent: '2.00 Linear Feet',
    }]);
    assert.deepEqual(b.rights_statement.map((r: Record<string, unknown>) => [r.rights_type, r.jurisdiction, r.start_date]), [['Copyright', 'United States', '2020-01-01']]);
    assert.equal(b.user_defined[0].boolean_1, 'Yes');
    assert.equal(b.user_defined[0].string_1, 'Shelved');
    assert.equal(b.user_defined[0].real_1, '2.50');
    const nobody = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' }, created_by: { values: ['someone-else'] } } });
    assert.deepEqual(nobody.records, []);
    const id = await template({ custom_record_type: 'accession', fields: { identifier: { include: '1' } }, subreports: { subject: { include: '1' } } });
    const csv = parseCsv((await custom(id, 'csv')).text);
    const header = csv.find((r) => r[0] === 'identifier')!;
    assert.deepEqual(header, ['identifier', 'subject_term', 'subject_type', 'subject_source', 'subject_authority', 'subject_scope_note']);
    assert.match((await custom(id, 'html')).text, /<section class="record">/);
    const pdf = pdfText((await custom(id, 'pdf')).body);
    assert.match(pdf, /Custom Report/);
    assert.match(pdf, /Term: Maps/);
  });

  it('other record types: agents by type and name, locations, and assessments by their reviewer', async () => {
    const p = (path: string, body: unknown) => post(t, token, path, body);
    await p('/agents/corporate_entities', { names: [{ primary_name: 'Zeta Corp', sort_name: 'Zeta Corp', source: 'local' }] });
    await p('/agents/families', { names: [{ family_name: 'Abbot family', sort_name: 'Abbot family' }] });
    const agents = await rows({ custom_record_type: 'agent', fields: { type: { include: '1', values: ['agent_person', 'agent_corporate_entity'] }, name: { include: '1' } }, sort_by: 'type' }, { limit: 1000 });
    const names = agents.records.map((r: { name: string }) => r.name);
    assert.ok(names.includes('Donor, Dana') && names.includes('Zeta Corp') && !names.includes('Abbot family'), names.join('; '));
    assert.equal(agents.records[0].type, 'Corporate Entity');
    assert.deepEqual(Object.keys(agents.records[0]), ['type', 'name']);
    assert.equal(agents.info.type, 'agent_person, agent_corporate_entity');
    await p('/agents/people', { names: [{ primary_name: 'Able', rest_of_name: 'Ann', name_order: 'inverted', sort_name: 'Able, Ann', source: 'local' }] });
    const people = await rows({ custom_record_type: 'agent', fields: { publish: { include: '1' }, name: { include: '1' }, type: { values: ['agent_person'] } }, sort_by: 'name' }, { limit: 1000 });
    assert.deepEqual(Object.keys(people.records[0]), ['name', 'publish']);
    const sorted = people.records.map((r: { name: string }) => r.name);
    assert.deepEqual(sorted, [...sorted].sort());
    assert.ok(sorted.indexOf('Able, Ann') < sorted.indexOf('Donor, Dana'), sorted.join('; '));
    await p('/locations', { building: 'Annex', room: '1', coordinate_1_label: 'Shelf', coordinate_1_indicator: '1' });
    const locations = await rows({ custom_record_type: 'location', fields: { building: { include: '1', values: ['Annex'] }, room: { include: '1' } } });
    assert.deepEqual(locations.records, [{ building: 'Annex', room: '1' }]);
    // Users here have no agent of their own (agent_record is read-only): the filter names the reviewer's agent.
    const reviewer = (await p('/agents/people', { names: [{ primary_name: 'Reviewing', rest_of_name: 'Rita', name_order: 'inverted', sort_name: 'Reviewing, Rita', source: 'local' }] })).uri;
    const other = (await p('/agents/people', { names: [{ primary_name: 'Other', name_order: 'direct', sort_name: 'Other', source: 'local' }] })).uri;
    const accession = (await t.http.get(`${base}/accessions`).query({ all_ids: true }).set(H).expect(200)).body[0];
    const assessed = [{ ref: `${base}/accessions/${accession}` }];
    await p(`${base}/assessments`, { records: assessed, surveyed_by: [{ ref: other }], reviewer: [{ ref: reviewer }], survey_begin: '2021-01-01', purpose: 'Reviewed' });
    await p(`${base}/assessments`, { records: assessed, surveyed_by: [{ ref: other }], reviewer: [{ ref: other }], survey_begin: '2021-01-02', purpose: 'Reviewed by another' });
    const reviewed = await rows({ custom_record_type: 'assessment', fields: { purpose: { include: '1' }, reviewer: { include: '1', values: [reviewer] } } });
    assert.deepEqual(reviewed.records, [{ purpose: 'Reviewed', reviewer: 'Reviewing, Rita' }]);
    assert.equal(reviewed.info.reviewer, reviewer);
    const byUser = await rows({ custom_record_type: 'assessment', fields: { purpose: { include: '1' }, reviewer: { values: ['nobody-here'] } } });
    assert.deepEqual(byUser.records, []);
  });

  it('a bad template: a 400 naming the field at submission, a failed job naming it when it went bad after', async () => {
    const cases: Array<[object, RegExp]> = [
      [{ custom_record_type: 'accession', fields: { nonsense: { include: '1' } } }, /fields\/nonsense/],
      [{ custom_record_type: 'accession', fields: { accession_date: { include: '1', range_start: '2020-01-01' } } }, /fields\/accession_date\/range_end.*missing end filter date/],
      [{ custom_record_type: 'accession', fields: { publish: { value: 'maybe' } , title: { include: '1' } } }, /fields\/publish\/value/],
      [{ custom_record_type: 'accession', fields: { acquisition_type: { values: ['999999'] }, title: { include: '1' } } }, /fields\/acquisition_type\/values/],
      [{ custom_record_type: 'accession', fields: { title: { include: '1' } }, sort_by: 'general_note' }, /sort_by/],
      [{ custom_record_type: 'widget', fields: {} }, /custom_record_type/],
      [{ custom_record_type: 'accession', fields: { title: {} } }, /custom report must include field or subreport/],
    ];
    for (const [data, pattern] of cases) {
      const res = await submit(await template(data));
      assert.equal(res.status, 400, JSON.stringify(data));
      assert.match(JSON.stringify(res.body), pattern);
    }
    assert.equal((await submit(987654)).status, 400);
    const id = await template({ custom_record_type: 'accession', fields: { title: { include: '1' } } });
    const out = await runAfterTemplateEdit(t, H, base, id, submit, { custom_record_type: 'accession', fields: { title: { include: '1' }, accession_date: { range_start: 'yesterday', range_end: '2020-01-01' } } });
    assert.equal(out.job.status, 'failed');
    assert.match(out.log, /fields\/accession_date\/range_start/);
    assert.equal(out.file, undefined);
    assert.deepEqual((await t.http.get(`${String(out.job.uri)}/output_files`).set(H).expect(200)).body, []);
  });

  it('an empty repository gives an empty custom report', async () => {
    const other = `/repositories/${(await post(t, token, '/repositories', { repo_code: 'CUST0', name: 'Nothing here' })).id}`;
    const id = await template({ custom_record_type: 'accession', fields: { title: { include: '1' } } }, {}, other);
    const out = await runReport(t, H, other, 'custom_report', 'csv', { template: id });
    assert.equal(out.job.status, 'completed');
    assert.match(out.file!.text, /total_count,0\nrepository,Nothing here\n\nNo results found\.\n$/);
  });

  it("nested records as sub-reports: an agent's names and contacts, a subject's terms, a component's file versions", async () => {
    const p = (path: string, body: unknown) => post(t, token, path, body);
    await p('/agents/people', {
      names: [{ primary_name: 'Contact', rest_of_name: 'Carla', name_order: 'inverted', sort_name: 'Contact, Carla', source: 'naf', authority_id: 'n123' }],
      agent_contacts: [{ name: 'Carla Contact', salutation: 'mrs', city: 'Ann Arbor', email: 'c@example.com', telephones: [{ number: '555-0100', number_type: 'business' }] }],
    });
    const agents = await rows({ custom_record_type: 'agent', fields: { name: { include: '1' } }, subreports: { agent_name: { include: '1' }, agent_contact: { include: '1' } } }, { limit: 1000 });
    const carla = agents.records.find((r: { name: string }) => r.name === 'Contact, Carla');
    assert.deepEqual(carla.agent_name, [{ sort_name: 'Contact, Carla', source: 'NACO Authority File', rules: null, authority_id: 'n123' }]);
    assert.deepEqual([carla.agent_contact[0].name, carla.agent_contact[0].salutation, carla.agent_contact[0].city], ['Carla Contact', 'Mrs.', 'Ann Arbor']);
    assert.deepEqual(carla.agent_contact[0].telephone, [{ number: '555-0100', ext: null, number_type: 'business' }]);

    const subjects = await rows({ custom_record_type: 'subject', fields: { title: { include: '1' } }, subreports: { term: { include: '1' } } });
    assert.deepEqual(subjects.records.find((r: { terms: string }) => r.terms === 'Maps').term, [{ term: 'Maps', term_type: 'Topical' }]);

    const object = await p(`${base}/digital_objects`, { digital_object_id: 'CUST-DO', title: 'Scans' });
    await p(`${base}/digital_object_components`, {
      title: 'Page 1', digital_object: { ref: object.uri }, file_versions: [{ file_uri: 'http://example.com/p1.tif', use_statement: 'image-master' }],
    });
    const components = await rows({ custom_record_type: 'digital_object_component', fields: { title: { include: '1' } }, subreports: { file_version: { include: '1' } } });
    assert.deepEqual(components.records, [{ record_title: 'Page 1', file_version: [{ uri: 'http://example.com/p1.tif', use_statement: 'Image-Master' }] }]);
    const data = (await t.http.get('/reports/custom_data').set(H).expect(200)).body;
    assert.ok(data.agent.subreports.some((r: { name: string }) => r.name === 'agent_contact'));
    assert.ok(data.subject.subreports.some((r: { name: string }) => r.name === 'term'));
  });
});
