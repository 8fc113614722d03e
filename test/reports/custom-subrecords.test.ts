import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { post } from '../exchange/formats-fixture';
import { parseCsv, reportFile, runAfterTemplateEdit, runReport } from './report-helpers';

type Row = Record<string, any>;

/** Custom reports of subrecords (rights statements, deaccessions): each a row, over the records holding them. */
describe(`custom reports of rights statements and deaccessions (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let token: string;
  let base: string;
  let empty: string;

  const p = async (path: string, body: unknown) => post(t, token, path, body);
  async function template(data: object, extra: object = {}, at = base): Promise<number> {
    return (await p(`${at}/custom_report_templates`, { name: `T ${Math.random()}`, data: JSON.stringify(data), limit: 1000, ...extra })).id;
  }
  const report = async (data: object, format = 'json', extra: object = {}, at = base) => reportFile(t, H, at, 'custom_report', format, { template: await template(data, extra, at) });
  const json = async (data: object, extra: object = {}, at = base): Promise<{ info: Row; records: Row[] }> => JSON.parse((await report(data, 'json', extra, at)).text);
  const on = (...names: string[]) => Object.fromEntries(names.map((n) => [n, { include: '1' }]));
  const submit = (id: number) => t.http.post(`${base}/jobs`).set(H)
    .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'custom_report', format: 'json' }, job_params: JSON.stringify({ template: String(id) }) });
  const deaccessionOf = (scope: string, description: string, begin: string, extra: object = {}) => ({
    scope, description, date: { date_type: 'single', label: 'deaccession', begin }, ...extra,
  });

  before(async () => {
    t = await startTestApp();
    token = await t.adminToken();
    H = { 'X-ArchivesSpace-Session': token };
    base = `/repositories/${(await p('/repositories', { repo_code: 'CSR', name: 'Custom Subrecords' })).id}`;
    const other = `/repositories/${(await p('/repositories', { repo_code: 'CSR2', name: 'Elsewhere' })).id}`;
    empty = `/repositories/${(await p('/repositories', { repo_code: 'CSR3', name: 'Empty' })).id}`;
    const holder = (await p('/agents/people', { names: [{ primary_name: 'Holder', rest_of_name: 'Hal', name_order: 'inverted', sort_name: 'Holder, Hal', source: 'local' }] })).uri;
    await p(`${base}/accessions`, {
      id_0: 'S', id_1: '1', title: 'Rights one', accession_date: '2020-01-01',
      rights_statements: [
        {
          rights_type: 'copyright', status: 'copyrighted', jurisdiction: 'US', start_date: '2020-01-01', linked_agents: [{ ref: holder }],
          acts: [{ act_type: 'disseminate', restriction: 'disallow', start_date: '2020-02-01' }],
        },
        { rights_type: 'license', license_terms: 'CC-BY', start_date: '2019-01-01' },
      ],
      deaccessions: [deaccessionOf('part', 'Duplicates', '2021-03-01', { reason: 'Copies', notification: true, extents: [{ portion: 'part', number: '2', extent_type: 'linear_feet' }] })],
    });
    const resource = (await p(`${base}/resources`, {
      id_0: 'SR', id_1: '1', title: 'Rights papers', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'single', label: 'creation', begin: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }],
      rights_statements: [{ rights_type: 'statute', statute_citation: 'Title 17', jurisdiction: 'US', start_date: '2018-05-01' }],
      deaccessions: [deaccessionOf('whole', 'Returned to donor', '2022-06-01')],
    })).uri;
    await p(`${base}/archival_objects`, {
      title: 'Rights folder', component_id: 'RF-1', level: 'file', resource: { ref: resource },
      rights_statements: [{ rights_type: 'other', other_rights_basis: 'donor', start_date: '2022-01-01' }],
    });
    await p(`${base}/digital_objects`, {
      digital_object_id: 'DO-R', title: 'Rights scans', rights_statements: [{ rights_type: 'copyright', status: 'public_domain', jurisdiction: 'US', start_date: '2023-01-01' }],
    });
    const hidden = (await p(`${base}/accessions`, {
      id_0: 'S', id_1: '9', title: 'Hidden', accession_date: '2020-01-01',
      rights_statements: [{ rights_type: 'copyright', status: 'unknown', jurisdiction: 'US', start_date: '2021-01-01' }],
      deaccessions: [deaccessionOf('part', 'Hidden deaccession', '2021-01-01')],
    })).uri;
    await t.http.post(`${hidden}/suppressed`).query({ suppressed: true }).set(H).expect(200);
    // Another repository's subrecords are not this repository's report's.
    await p(`${other}/accessions`, {
      id_0: 'X', title: 'Elsewhere', accession_date: '2020-01-01',
      rights_statements: [{ rights_type: 'copyright', status: 'copyrighted', jurisdiction: 'US', start_date: '2020-06-01' }],
      deaccessions: [deaccessionOf('part', 'Elsewhere', '2020-06-01')],
    });
  });
  after(() => t?.close());

  it('GET /reports/custom_data lists rights_statement and deaccession with their fields and sub-reports', async () => {
    const data = (await t.http.get('/reports/custom_data').expect(200)).body;
    assert.deepEqual(data.rights_statement.fields.map((f: Row) => f.name), ['rights_type', 'statute_citation', 'jurisdiction', 'status', 'start_date', 'end_date',
      'determination_date', 'license_terms', 'other_rights_basis']);
    assert.deepEqual(data.rights_statement.fields[3], { sortable: true, enum_name: 'rights_statement_ip_status', name: 'status', data_type: 'Enum' });
    const names = (type: string) => data[type].subreports.map((s: Row) => s.name).sort();
    assert.deepEqual(names('rights_statement'), ['accession', 'archival_object', 'digital_object', 'digital_object_component', 'external_document', 'linked_agent',
      'resource', 'rights_statement_act']);
    assert.deepEqual(names('deaccession'), ['accession', 'date', 'extent', 'resource']);
    assert.deepEqual(data.deaccession.fields.map((f: Row) => f.name), ['scope', 'description', 'reason', 'disposition', 'notification']);
  });

  it('rights statements filtered by type and sorted by start date: one row each, with the record holding it, in JSON and CSV', async () => {
    const data = {
      custom_record_type: 'rights_statement', fields: { rights_type: { include: '1', values: ['copyright', 'statute'] }, start_date: { include: '1' }, status: { include: '1' } },
      subreports: on('accession', 'resource', 'digital_object', 'rights_statement_act', 'linked_agent'), sort_by: 'start_date',
    };
    const out = await json(data);
    assert.equal(out.info.total_count, 3);
    assert.equal(out.info.sorted_by, 'start_date');
    assert.equal(out.info.rights_type, 'Copyright, Statute');
    assert.deepEqual(out.records.map((r) => [r.rights_type, r.start_date, r.status]), [['Statute', '2018-05-01', null], ['Copyright', '2020-01-01', 'Copyrighted'], ['Copyright', '2023-01-01', 'Public Domain']]);
    const [statute, copyright, scans] = out.records;
    assert.deepEqual([statute.resource, statute.accession, statute.digital_object], [[{ identifier: 'SR.1', title: 'Rights papers' }], null, null]);
    assert.deepEqual(copyright.accession, [{ identifier: 'S.1', title: 'Rights one' }]);
    assert.deepEqual(copyright.rights_statement_act, [{ act_type: 'Disseminate', restriction: 'Disallow', start_date: '2020-02-01', end_date: null }]);
    assert.deepEqual([copyright.linked_agent[0].role, copyright.linked_agent[0].ref], [null, 'Holder, Hal']);
    assert.deepEqual(scans.digital_object, [{ digital_object_id: 'DO-R', title: 'Rights scans' }]);
    const csv = parseCsv((await report(data, 'csv')).text);
    const header = csv.findIndex((r) => r[0] === 'rights_type' && r[1] === 'status');
    assert.deepEqual(csv[header].slice(0, 5), ['rights_type', 'status', 'start_date', 'linked_agent_role', 'linked_agent_relator']);
    assert.ok(csv[header].includes('accession_identifier') && csv[header].includes('rights_statement_act_act_type'), csv[header].join(' '));
    const html = (await report(data, 'html')).text;
    assert.equal(html.match(/<section class="record">/g)?.length, 3);
    assert.match(html, /Rights papers/);
    assert.deepEqual(csv.slice(header + 1).filter((r) => r.length > 1 && r[0]).map((r) => [r[0], r[2]]), [['Statute', '2018-05-01'], ['Copyright', '2020-01-01'], ['Copyright', '2023-01-01']]);
  });

  it('a date range, the sort over every holder, the limit after the sort, the holder\'s time and suppressed holders', async () => {
    const between = await json({ custom_record_type: 'rights_statement', fields: { rights_type: { include: '1' }, start_date: { include: '1', range_start: '2019-06-01', range_end: '2022-06-01' } }, sort_by: 'start_date', subreports: on('archival_object') });
    assert.deepEqual(between.records.map((r) => [r.rights_type, r.start_date]), [['Copyright', '2020-01-01'], ['Other', '2022-01-01']]);
    assert.deepEqual(between.records[1].archival_object.map((a: Row) => [a.component_id, a.root_record]), [['RF-1', 'SR.1']]);
    const first = await json({ custom_record_type: 'rights_statement', fields: { start_date: { include: '1' } }, sort_by: 'start_date' }, { limit: 2 });
    assert.deepEqual(first.records, [{ start_date: '2018-05-01' }, { start_date: '2019-01-01' }]);
    assert.equal(first.info.total_count, 2);
    const timed = await json({ custom_record_type: 'rights_statement', fields: { create_time: { include: '1' }, created_by: { include: '1' } } });
    assert.equal(timed.records.length, 5);
    for (const r of timed.records) assert.match(String(r.create_time), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.ok(timed.records.every((r) => r.created_by === 'admin'), JSON.stringify(timed.records));
    const withSuppressed = JSON.parse((await reportFile(t, H, base, 'custom_report', 'json', {
      template: await template({ custom_record_type: 'rights_statement', fields: { start_date: { include: '1' } } }), include_suppressed: true,
    })).text);
    assert.equal(withSuppressed.records.length, 6);
  });

  it('deaccessions filtered and sorted, with their dates, extents and records', async () => {
    const out = await json({
      custom_record_type: 'deaccession', fields: { scope: { include: '1', values: ['part', 'whole'] }, description: { include: '1' }, notification: { include: '1' } },
      subreports: on('date', 'extent', 'accession', 'resource'), sort_by: 'description',
    });
    assert.deepEqual(out.records.map((r) => [r.scope, r.description, r.notification]), [['Part', 'Duplicates', 'Yes'], ['Whole', 'Returned to donor', 'No']]);
    const [dup, returned] = out.records;
    assert.deepEqual([dup.accession, dup.resource], [[{ identifier: 'S.1', title: 'Rights one' }], null]);
    assert.deepEqual(returned.resource, [{ identifier: 'SR.1', title: 'Rights papers' }]);
    assert.deepEqual(dup.date.map((d: Row) => [d.label, d.begin]), [['Deaccession', '2021-03-01']]);
    assert.equal(dup.extent[0].extent, '2.00 Linear Feet');
    const whole = await json({ custom_record_type: 'deaccession', fields: { description: { include: '1' }, notification: { value: 'true' } } });
    assert.deepEqual(whole.records, [{ description: 'Duplicates' }]);
    const csv = parseCsv((await report({ custom_record_type: 'deaccession', fields: { description: { include: '1' }, scope: { values: ['whole'] } } }, 'csv')).text);
    const header = csv.findIndex((r) => r[0] === 'description');
    assert.deepEqual(csv.slice(header + 1).filter((r) => r[0]), [['Returned to donor']]);
  });

  it('a field or sort the type has not: a 400 naming it at submission, a failed job naming it when the template changed after', async () => {
    for (const [data, pattern] of [
      [{ custom_record_type: 'rights_statement', fields: { title: { include: '1' } } }, /fields\/title.*rights_statement has no field title/],
      [{ custom_record_type: 'deaccession', fields: { scope: { include: '1' } }, sort_by: 'reason' }, /sort_by.*reason is not a field/],
      [{ custom_record_type: 'deaccession', fields: { description: { include: '1' } }, subreports: on('rights_statement_act') }, /subreports\/rights_statement_act/],
      [{ custom_record_type: 'rights_statement', fields: { start_date: { include: '1', values: ['2020'] } } }, /fields\/start_date\/values/],
    ] as Array<[object, RegExp]>) {
      const res = await submit(await template(data));
      assert.equal(res.status, 400, JSON.stringify(data));
      assert.match(JSON.stringify(res.body), pattern);
    }
    const id = await template({ custom_record_type: 'rights_statement', fields: { rights_type: { include: '1' } } });
    const out = await runAfterTemplateEdit(t, H, base, id, submit, { custom_record_type: 'rights_statement', fields: { accession_date: { include: '1' } } });
    assert.equal(out.job.status, 'failed');
    assert.match(out.log, /fields\/accession_date/);
  });

  it('an empty repository: empty reports of both types', async () => {
    for (const type of ['rights_statement', 'deaccession']) {
      const field = type === 'deaccession' ? 'description' : 'rights_type';
      const out = await json({ custom_record_type: type, fields: { [field]: { include: '1' } }, sort_by: field }, {}, empty);
      assert.deepEqual([out.records, out.info.total_count, out.info.repository], [[], 0, 'Empty'], type);
      const ran = await runReport(t, H, empty, 'custom_report', 'csv', { template: await template({ custom_record_type: type, fields: { [field]: { include: '1' } } }, {}, empty) });
      assert.equal(ran.job.status, 'completed');
      const csv = parseCsv(ran.file!.text);
      assert.deepEqual(csv.slice(-3), [['repository', 'Empty'], [''], ['No results found.']], type);
    }
  });
});
