import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { sampleRecord } from '../fixtures';
import { startTestApp, STORE, TestApp } from '../helpers';

/** ArchivesSpace's own templates (their header rows as the staff interface hands them out), filled by column code. */
const TEMPLATES = path.resolve(__dirname, '..', 'fixtures', 'spreadsheets');
const template = (name: string) => fs.readFileSync(path.join(TEMPLATES, name), 'utf8').replace(/\r\n/g, '\n').trimEnd();
const AO_TEMPLATE = template('bulk_import_template.csv');
const DO_TEMPLATE = template('bulk_import_DO_template.csv');
const codesOf = (t: string) => t.split('\n')[0].split(',');
const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
/** A sheet: the template's header rows, then one line per row (cells by field code). */
const sheet = (tpl: string, rows: Array<Record<string, string>>) => {
  const codes = codesOf(tpl);
  for (const r of rows) for (const k of Object.keys(r)) assert.ok(codes.includes(k), `${k} is not a template column`);
  return `${tpl}\n${rows.map((r) => codes.map((c) => csvCell(r[c] ?? '')).join(',')).join('\n')}\n`;
};
/** Data rows start below the template's rows (the field codes, their labels and, in the archival-object template, an empty row). */
const FIRST_ROW = AO_TEMPLATE.split('\n').length + 1;
const FIRST_DO_ROW = DO_TEMPLATE.split('\n').length + 1;

describe(`bulk_import_job: spreadsheets (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;
  let repo: number;
  let viewer: Record<string, string>;

  const count = async (type?: string) => Number((await t.services.db.knex('records').where(type ? { type } : {}).count({ n: '*' }).first())?.n);
  const newResource = async (eadId: string) => (await t.http.post(`${base}/resources`).set(H)
    .send({ ...sampleRecord('resource', repo), title: `Collection ${eadId}`, ead_id: eadId, id_0: eadId }).expect(200)).body as { id: number; uri: string };
  const submit = (resourceId: number | string, csv: string | Buffer, job: Record<string, unknown> = {}, as = H, name = 'sheet.csv') =>
    t.http.post(`${base}/jobs_with_files`).set(as)
      .field('job', JSON.stringify({ job_type: 'bulk_import_job', job: { jsonmodel_type: 'bulk_import_job', resource_id: String(resourceId), load_type: 'ao', ...job } }))
      .attach('files[]', Buffer.from(csv), name);
  const run = async (resourceId: number | string, csv: string | Buffer, job: Record<string, unknown> = {}, name = 'sheet.csv') => {
    const res = await submit(resourceId, csv, job, H, name);
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle(600_000);
    const status = (await t.http.get(res.body.uri).set(H)).body.status as string;
    const logText = (await t.http.get(`${res.body.uri}/log`).set(H)).text;
    return { uri: res.body.uri as string, status, log: logText };
  };
  const children = async (resource: string, parent?: string) =>
    (await t.http.get(`${resource}/tree/waypoint`).query({ offset: 0, ...(parent ? { parent_node: parent } : {}) }).set(H)).body as Array<{ title: string; uri: string }>;
  const get = async (uri: string) => (await t.http.get(uri).set(H).expect(200)).body;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'SHEETS', name: 'Spreadsheets' })).body.id;
    base = `/repositories/${repo}`;
    const groups = await t.http.get(`${base}/groups`).query({ group_code: 'repository-viewers' }).set(H);
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [groups.body[0].uri] }).set(H).send({ username: 'sheet-viewer', name: 'V' }).expect(200);
    viewer = { 'X-ArchivesSpace-Session': (await t.http.post('/users/sheet-viewer/login').query({ password: 'pw' })).body.session };
  });
  after(() => t?.close());

  const FIRST_SERIES = {
    ead: 'VFIRST01', title: 'The first series', hierarchy: '1', level: 'Series', publish: 'True', restrictions_flag: 'FALSE', unit_id: 'S1',
    l_lang: 'eng', dates_label_1: 'creation', begin_1: '2010', end_1: '2020', date_type_1: 'bulk', portion: 'whole', number: '2', extent_type: 'Linear Feet',
    cont_instance_type: 'Mixed Materials', type_1: 'Box', indicator_1: '1', people_agent_header_1: 'Doe, Jane', people_agent_role_1: 'creator',
    subject_1_term: 'Railroads', subject_1_type: 'topical', subject_1_source: 'local', n_abstract: 'A publishable abstract', p_abstract: 'TRUE',
    n_scopecontent: 'Reels of <emph render="italic">audio</emph> discussions', p_scopecontent: 'TRUE', n_accessrestrict: 'Closed until 2030',
    b_accessrestrict: '2020-01-01', e_accessrestrict: '2030-01-01', digital_object_id: 'DO-SERIES-1', digital_object_title: 'Series scans',
    digital_object_publish: 'TRUE', rep_file_uri: 'http://example.com/1.jpg', nonrep_file_uri: 'http://example.com/thumb.jpg', nonrep_publish: 'FALSE',
  };
  const TREE_ROWS = [
    FIRST_SERIES,
    { ead: 'VFIRST01', title: 'A subseries', hierarchy: '2', level: 'Sub-Series', begin_1: '2010', end_1: '2011', cont_instance_type: 'Mixed Materials', type_1: 'Box', indicator_1: '1' },
    { ead: 'VFIRST01', title: 'File one', hierarchy: '3', level: 'File', ref_id: 'file-one', cont_instance_type: 'text', type_1: 'Box', indicator_1: '2', type_2: 'Folder', indicator_2: '3' },
    { ead: 'VFIRST01', title: 'Second subseries', hierarchy: '2', level: 'subseries', begin_1: '19O5', date_type_1: 'single' },
    { ead: 'VFIRST01', title: 'The second series', hierarchy: '1', level: 'series', people_agent_header_1: 'Doe, Jane', expression_1: 'undated', date_type_1: 'inclusive' },
  ];

  it('imports an archival-object sheet as a tree under the resource, with its dates, extents, notes, containers, agents, subjects and digital objects', async () => {
    const resource = await newResource('VFIRST01');
    const agentsBefore = await count('agent_person');
    const job = await run(resource.id, sheet(AO_TEMPLATE, TREE_ROWS));
    assert.equal(job.status, 'completed', job.log);
    assert.match(job.log, new RegExp(`row ${FIRST_ROW + 3}, column 'begin_1': the date '19O5' is not valid`), job.log);
    assert.match(job.log, /imported 5 row\(s\)/);

    const top = await children(resource.uri);
    assert.deepEqual(top.map((c) => c.title), ['The first series', 'The second series']);
    const subs = await children(resource.uri, top[0].uri);
    assert.deepEqual(subs.map((c) => c.title), ['A subseries', 'Second subseries']);
    const files = await children(resource.uri, subs[0].uri);
    assert.deepEqual(files.map((c) => c.title), ['File one']);

    const series = await get(top[0].uri);
    assert.equal(series.level, 'series');
    assert.equal(series.component_id, 'S1');
    assert.equal(series.publish, true);
    assert.deepEqual(series.dates.map((d: any) => [d.label, d.date_type, d.begin, d.end]), [['creation', 'bulk', '2010', '2020']]);
    assert.deepEqual(series.extents.map((e: any) => [e.portion, e.number, e.extent_type]), [['whole', '2', 'linear_feet']]);
    assert.equal(series.lang_materials[0].language_and_script.language, 'eng');
    const notes = Object.fromEntries(series.notes.map((n: any) => [n.type, n]));
    assert.equal(notes.abstract.content[0], 'A publishable abstract');
    assert.equal(notes.scopecontent.subnotes[0].content, 'Reels of <emph render="italic">audio</emph> discussions');
    assert.deepEqual([notes.accessrestrict.rights_restriction.begin, notes.accessrestrict.rights_restriction.end], ['2020-01-01', '2030-01-01']);
    const containerInstance = series.instances.find((i: any) => i.sub_container);
    assert.equal(containerInstance.instance_type, 'mixed_materials');
    const digital = series.instances.find((i: any) => i.digital_object);
    const dobj = await get(digital.digital_object.ref);
    assert.equal(dobj.digital_object_id, 'DO-SERIES-1');
    assert.deepEqual(dobj.file_versions.map((f: any) => [f.file_uri, f.publish]), [['http://example.com/1.jpg', true], ['http://example.com/thumb.jpg', false]]);
    const subject = await get(series.subjects[0].ref);
    assert.equal(subject.title, 'Railroads');
    const agent = await get(series.linked_agents[0].ref);
    assert.equal(series.linked_agents[0].role, 'creator');
    assert.equal(agent.names[0].primary_name, 'Doe, Jane');

    // Box 1 is found again for the subseries; Box 2 is new, with Folder 3 inside it.
    const sub = await get(subs[0].uri);
    assert.equal(sub.instances[0].sub_container.top_container.ref, containerInstance.sub_container.top_container.ref);
    const file = await get(files[0].uri);
    assert.equal(file.ref_id, 'file-one');
    assert.deepEqual([file.instances[0].sub_container.type_2, file.instances[0].sub_container.indicator_2], ['folder', '3']);
    assert.notEqual(file.instances[0].sub_container.top_container.ref, containerInstance.sub_container.top_container.ref);
    assert.equal((await get(subs[1].uri)).dates.length, 0, 'the invalid date is left out, the row kept');
    const second = await get(top[1].uri);
    assert.equal(second.linked_agents[0].ref, series.linked_agents[0].ref, 'the agent is found, not created twice');
    assert.equal(await count('agent_person') - agentsBefore, 1);
    assert.equal(await count('top_container'), 2);

    const records = (await t.http.get(`${job.uri}/records`).query({ page: 1 }).set(H)).body;
    assert.ok(records.total >= 5, JSON.stringify(records));
    const outputs = (await t.http.get(`${job.uri}/output_files`).set(H)).body;
    assert.equal(outputs.length, 1);

    // Run twice: the sheet's digital object (and ref_id) are already there, so the second run refuses rather than duplicating rows.
    const again = await run(resource.id, sheet(AO_TEMPLATE, TREE_ROWS));
    assert.equal(again.status, 'failed');
    assert.match(again.log, new RegExp(`row ${FIRST_ROW}, column 'digital_object_id': a digital object with the identifier 'DO-SERIES-1' already exists`));
    assert.equal((await children(resource.uri)).length, 2);
  });

  it('only_validate reports every problem and writes nothing', async () => {
    const resource = await newResource('VALID01');
    const before = await count();
    const rows = TREE_ROWS.map((r) => ({ ...r, ead: 'VALID01', ref_id: '', digital_object_id: r.digital_object_id ? 'DO-VALIDATE' : '' }));
    const ok = await run(resource.id, sheet(AO_TEMPLATE, rows), { only_validate: 'true' });
    assert.equal(ok.status, 'completed', ok.log);
    assert.match(ok.log, /valid: 5 row\(s\) would write .*5 archival_object/);
    assert.match(ok.log, /column 'begin_1'/);
    const bad = await run(resource.id, sheet(AO_TEMPLATE, [...rows, { ead: 'VALID01', title: 'Wrong', hierarchy: '1', level: 'Seriez' }]), { only_validate: 'true' });
    assert.equal(bad.status, 'failed');
    assert.match(bad.log, new RegExp(`row ${FIRST_ROW + 5}, column 'level': 'Seriez' is not a value of the list archival_record_level`));
    assert.equal(await count(), before);
    assert.deepEqual(await children(resource.uri), []);
  });

  it('fails the whole sheet on a bad cell, naming every bad row and column, and writes nothing', async () => {
    const resource = await newResource('BAD01');
    const before = await count();
    const rows = [
      { ead: 'BAD01', title: 'Fine series', hierarchy: '1', level: 'series', cont_instance_type: 'text', type_1: 'Box', indicator_1: '9', people_agent_header_1: 'Unwritten, Agent' },
      { ead: 'BAD01', title: 'Bad level', hierarchy: '2', level: 'Seriez' },
      { ead: 'BAD01', title: 'Child of the bad row', hierarchy: '3', level: 'file' },
      { ead: 'BAD01', title: 'Jumps', hierarchy: '1', level: 'series' },
      { ead: 'BAD01', title: 'Too deep', hierarchy: '3', level: 'file' },
      { ead: 'OTHER', title: 'Wrong resource', hierarchy: '1', level: 'series' },
      { ead: 'BAD01', hierarchy: '1', level: 'series' },
    ];
    const job = await run(resource.id, sheet(AO_TEMPLATE, rows));
    assert.equal(job.status, 'failed', job.log);
    assert.match(job.log, new RegExp(`row ${FIRST_ROW + 1}, column 'level': 'Seriez'`));
    assert.match(job.log, new RegExp(`row ${FIRST_ROW + 2}, column 'hierarchy': the row above it at level 2 \\(row ${FIRST_ROW + 1}\\) was not written`));
    assert.match(job.log, new RegExp(`row ${FIRST_ROW + 4}, column 'hierarchy': the row goes from level 1 to level 3`));
    assert.match(job.log, new RegExp(`row ${FIRST_ROW + 5}, column 'ead': 'OTHER' is not the EAD ID`));
    assert.match(job.log, new RegExp(`row ${FIRST_ROW + 6}, column 'title': a row needs a title or a valid date`));
    assert.match(job.log, /nothing of this sheet was written/);
    assert.equal(await count(), before);
  });

  it('fails a sheet that is not the template, or empty, as a failed job', async () => {
    const resource = await newResource('EMPTY01');
    const notTemplate = await run(resource.id, 'title,hierarchy\nA,1\n');
    assert.equal(notTemplate.status, 'failed');
    assert.match(notTemplate.log, /no row starts with the template's field-code marker/);
    const empty = await run(resource.id, `${AO_TEMPLATE}\n`);
    assert.equal(empty.status, 'failed');
    assert.match(empty.log, /no data rows/);
    const dup = await run(resource.id, 'ArchivesSpace field code,title,title\n,A,B\n');
    assert.match(dup.log, /field codes title appear more than once/);
  });

  it('reads the same template as an XLSX workbook (numbers and dates typed as such), and fails a damaged workbook or a Latin-1 CSV', async () => {
    const resource = await newResource('XLSX01');
    const workbook = new ExcelJS.Workbook();
    const ws = workbook.addWorksheet('Sheet1');
    const [codes, labels] = AO_TEMPLATE.split('\n');
    ws.addRow(codes.split(','));
    ws.addRow(labels.split(',').slice(0, 3));
    const codeList = codes.split(',');
    const row = (cells: Record<string, unknown>) => codeList.map((c) => cells[c] ?? null);
    ws.addRow(row({ ead: 'XLSX01', title: 'Workbook series', hierarchy: 1, level: 'Series', publish: true, begin_1: new Date(Date.UTC(1999, 11, 31)), date_type_1: 'single', number: 2.5, extent_type: 'cubic_feet' }));
    ws.addRow(row({ ead: 'XLSX01', title: { richText: [{ text: 'Rich ' }, { text: 'title' }] }, hierarchy: { formula: '1+1', result: 2 }, level: 'file' }));
    const data = Buffer.from(await workbook.xlsx.writeBuffer());
    const job = await run(resource.id, data, {}, 'sheet.xlsx');
    assert.equal(job.status, 'completed', job.log);
    const top = await children(resource.uri);
    assert.deepEqual(top.map((c) => c.title), ['Workbook series']);
    const series = await get(top[0].uri);
    assert.deepEqual([series.publish, series.dates[0].begin, series.extents[0].number], [true, '1999-12-31', '2.5']);
    assert.deepEqual((await children(resource.uri, top[0].uri)).map((c) => c.title), ['Rich title']);

    const before = await count();
    const damaged = await run(resource.id, data.subarray(0, data.length / 2), {}, 'sheet.xlsx');
    assert.equal(damaged.status, 'failed');
    assert.match(damaged.log, /not a readable XLSX workbook/);
    const latin1 = Buffer.from(sheet(AO_TEMPLATE, [{ ead: 'XLSX01', title: 'Café', hierarchy: '1', level: 'series' }]), 'latin1');
    const wrongEncoding = await run(resource.id, latin1);
    assert.equal(wrongEncoding.status, 'failed');
    assert.match(wrongEncoding.log, new RegExp(`row ${FIRST_ROW}: the file is not UTF-8`));
    assert.equal(await count(), before);
  });

  it('load_type digital: creates digital objects and links them to existing archival objects', async () => {
    const resource = await newResource('DIG01');
    const ao = (await t.http.post(`${base}/archival_objects`).set(H)
      .send({ title: 'Photographs', level: 'file', ref_id: 'dig-ref-1', resource: { ref: resource.uri } }).expect(200)).body;
    const job = await run(resource.id, sheet(DO_TEMPLATE, [
      { ead: 'DIG01', ao_ref_id: 'dig-ref-1', digital_object_id: 'DIG-1', digital_object_title: 'Scans', digital_object_publish: 't',
        digital_object_type: 'still_image', begin: '1950', date_type: 'single', rep_file_uri: 'http://example.com/a.tif', nonrep_file_uri: 'http://example.com/a.jpg',
        nonrep_publish: 't', note_type: 'note', note_content: 'Scanned in 2020', note_publish: 't', subject_1_term: 'Photography', subject_1_type: 'genre_form' },
      { ead: 'DIG01', ao_uri: ao.uri, digital_object_id: 'DIG-2', digital_object_publish: 'f', rep_file_uri: 'http://example.com/b.tif' },
    ]), { load_type: 'digital' });
    assert.equal(job.status, 'completed', job.log);
    const linked = await get(ao.uri);
    assert.equal(linked.instances.length, 2);
    const [first, second] = await Promise.all(linked.instances.map((i: any) => get(i.digital_object.ref)));
    assert.deepEqual([first.title, first.digital_object_id, first.publish, first.digital_object_type], ['Scans', 'DIG-1', true, 'still_image']);
    assert.deepEqual(first.file_versions.map((f: any) => f.publish), [true, true]);
    assert.equal(first.dates[0].begin, '1950');
    assert.equal(first.notes[0].content[0], 'Scanned in 2020');
    assert.deepEqual([second.title, second.publish], ['Photographs', false]);

    const before = await count();
    const bad = await run(resource.id, sheet(DO_TEMPLATE, [
      { ead: 'DIG01', ao_ref_id: 'dig-ref-1', digital_object_id: 'DIG-3' },
      { ead: 'DIG01', ao_ref_id: 'no-such-ref', digital_object_id: 'DIG-4' },
      { ead: 'DIG01', digital_object_id: 'DIG-5' },
    ]), { load_type: 'digital' });
    assert.equal(bad.status, 'failed');
    assert.match(bad.log, new RegExp(`row ${FIRST_DO_ROW + 1}, column 'ao_ref_id': no archival object 'no-such-ref'`));
    assert.match(bad.log, new RegExp(`row ${FIRST_DO_ROW + 2}, column 'ao_ref_id': the row names no archival object`));
    assert.equal(await count(), before);
    assert.equal((await get(ao.uri)).instances.length, 2);
  });

  it('top_container_linker_job: links archival objects to new and existing top containers, all or nothing', async () => {
    const resource = await newResource('LINK01');
    const aos: string[] = [];
    for (const ref of ['link-1', 'link-2', 'link-3']) {
      aos.push((await t.http.post(`${base}/archival_objects`).set(H).send({ title: ref, level: 'file', ref_id: ref, resource: { ref: resource.uri } }).expect(200)).body.uri);
    }
    const existing = (await t.http.post(`${base}/top_containers`).set(H).send({ type: 'box', indicator: '77' }).expect(200)).body;
    const location = (await t.http.post('/locations').set(H).send(sampleRecord('location', repo)).expect(200)).body;
    const codes = ['ArchivesSpace field code', 'archival_object_id', 'root_id', 'ref_id', 'component ID', 'title', 'resource_title', 'ead_id', 'resource_id',
      'top_container_id', 'top_container_type', 'top_container_indicator', 'top_container_barcode', 'location_id', 'container_profile_id', 'instance_type',
      'child_type', 'child_indicator', 'child_barcode'];
    const linkerSheet = (rows: Array<Record<string, string>>) => [codes.join(','), 'Field name ,ID,Root ID,Ref ID', ...rows.map((r) => codes.map((c) => csvCell(r[c] ?? '')).join(','))].join('\n');
    const submitLinker = async (csv: string) => {
      const res = await t.http.post(`${base}/jobs_with_files`).set(H)
        .field('job', JSON.stringify({ job_type: 'top_container_linker_job', job: { jsonmodel_type: 'top_container_linker_job', resource_id: String(resource.id), load_type: 'top_container_linker_job' } }))
        .attach('files[]', Buffer.from(csv), 'linker.csv');
      assert.equal(res.status, 200, res.text);
      await t.services.jobs!.idle();
      return { status: (await t.http.get(res.body.uri).set(H)).body.status, log: (await t.http.get(`${res.body.uri}/log`).set(H)).text };
    };
    const ok = await submitLinker(linkerSheet([
      { ead_id: 'LINK01', ref_id: 'link-1', top_container_type: 'Box', top_container_indicator: '5', top_container_barcode: 'bc5', location_id: String(location.id), instance_type: 'books', child_type: 'Folder', child_indicator: '2', child_barcode: 'cb2' },
      { ead_id: 'LINK01', ref_id: 'link-2', top_container_type: 'box', top_container_indicator: '5', instance_type: 'text' },
      { ead_id: 'LINK01', ref_id: 'link-3', top_container_id: String(existing.id), instance_type: 'Mixed Materials' },
    ]));
    assert.equal(ok.status, 'completed', ok.log);
    const [a, b, c] = await Promise.all(aos.map(get));
    assert.deepEqual([a.instances[0].instance_type, a.instances[0].sub_container.type_2, a.instances[0].sub_container.indicator_2, a.instances[0].sub_container.barcode_2], ['books', 'folder', '2', 'cb2']);
    assert.equal(b.instances[0].sub_container.top_container.ref, a.instances[0].sub_container.top_container.ref);
    assert.equal(c.instances[0].sub_container.top_container.ref, existing.uri);
    const made = await get(a.instances[0].sub_container.top_container.ref);
    assert.deepEqual([made.indicator, made.barcode, made.container_locations[0].ref], ['5', 'bc5', location.uri]);

    const before = await count();
    const bad = await submitLinker(linkerSheet([
      { ead_id: 'LINK01', ref_id: 'link-3', top_container_type: 'box', top_container_indicator: '6', instance_type: 'text' },
      { ead_id: 'LINK01', ref_id: 'no-such-ref', top_container_id: String(existing.id), instance_type: 'text' },
      { ead_id: 'LINK01', ref_id: 'link-1', top_container_id: String(existing.id), top_container_indicator: '8', instance_type: 'text' },
      { ead_id: 'LINK01', ref_id: 'link-2', top_container_type: 'box', top_container_indicator: '5', instance_type: 'text' },
      { ead_id: 'OTHER', ref_id: 'link-2', top_container_id: '99999', instance_type: 'text' },
      // A child barcode stored before the sheet; then one child type and indicator given two barcodes.
      { ead_id: 'LINK01', ref_id: 'link-3', top_container_id: String(existing.id), instance_type: 'text', child_type: 'Folder', child_indicator: '3', child_barcode: 'cb2' },
      { ead_id: 'LINK01', ref_id: 'link-1', top_container_id: String(existing.id), instance_type: 'text', child_type: 'Folder', child_indicator: '9', child_barcode: 'cb9' },
      { ead_id: 'LINK01', ref_id: 'link-2', top_container_id: String(existing.id), instance_type: 'text', child_type: 'Folder', child_indicator: '9', child_barcode: 'cb10' },
    ]));
    assert.equal(bad.status, 'failed');
    assert.match(bad.log, /row 4, column 'ref_id': no archival object of this job's resource has the ref_id 'no-such-ref'/);
    assert.match(bad.log, /row 5, column 'top_container_id': fill either top_container_indicator .* not both/);
    assert.match(bad.log, /row 6, column 'top_container_indicator': the resource already has a top container box 5/);
    assert.match(bad.log, /row 7, column 'ead_id': 'OTHER' is not the EAD ID/);
    assert.match(bad.log, /row 7, column 'top_container_id': no top container 99999/);
    assert.match(bad.log, /row 8, column 'child_barcode': a child container with the barcode 'cb2' already exists/);
    assert.doesNotMatch(bad.log, /row 9, column 'child_barcode'/);
    assert.match(bad.log, /row 10, column 'child_barcode': an earlier row gave the child container Folder 9 the barcode 'cb9'/);
    assert.equal(await count(), before);
    assert.equal((await get(aos[2])).instances.length, 1);
  });

  it('refuses a bad submission with a 400 and a user without import_records with a 403', async () => {
    const resource = await newResource('PERM01');
    const csv = sheet(AO_TEMPLATE, [{ ead: 'PERM01', title: 'A', hierarchy: '1', level: 'series' }]);
    assert.equal((await submit(resource.id, csv, {}, viewer)).status, 403);
    const wrongType = await submit(resource.id, csv, { load_type: 'everything' });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.text, /load_type/);
    assert.equal((await submit(99999, csv)).status, 400);
    assert.equal((await submit('', csv)).status, 400);
    assert.equal((await submit(resource.id, csv, {}, H, 'sheet.pdf')).status, 400);
    const noFile = await t.http.post(`${base}/jobs`).set(H).send({ job_type: 'bulk_import_job', job: { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'ao' } });
    assert.equal(noFile.status, 400);
    const types = (await t.http.get('/job_types').set(H)).body;
    assert.deepEqual(types.bulk_import_job, { create_permissions: ['import_records'], cancel_permissions: ['cancel_importer_job'] });
  });

  it('cancel mid-sheet rolls the whole sheet back', async function () {
    // On SQLite the one connection is the sheet's until it commits, so a cancel cannot reach a running sheet.
    if (STORE === 'sqlite') this.skip();
    const resource = await newResource('CANCEL01');
    const before = await count();
    const rows = Array.from({ length: 1500 }, (_, i) => ({ ead: 'CANCEL01', title: `Row ${i}`, hierarchy: '1', level: 'file', begin_1: '1950', date_type_1: 'single' }));
    // The sheet is held mid-way by a lock on its resource (as another client's save holds it)
    // until it has been canceled: a sheet that runs in a blink is still canceled.
    const lock = await t.services.db.knex.transaction();
    let uri: string;
    try {
      await lock.raw('SELECT `rid` FROM `records` WHERE `uri` = ? FOR UPDATE', [resource.uri]);
      const res = await submit(resource.id, sheet(AO_TEMPLATE, rows));
      assert.equal(res.status, 200, res.text);
      uri = res.body.uri;
      for (let i = 0; i < 200 && (await t.http.get(uri).set(H)).body.status !== 'running'; i++) await new Promise((r) => setTimeout(r, 50));
      // The process running the sheet stops it when the cancel is answered (jobs/queue.ts cancelJob).
      await t.http.post(`${uri}/cancel`).set(H).expect(200);
      assert.equal((await t.http.get(uri).set(H)).body.status, 'running', 'the sheet is held by the lock when the cancel reaches it');
    } finally {
      await lock.commit();
    }
    await t.services.jobs!.idle();
    const job = (await t.http.get(uri).set(H)).body;
    assert.equal(job.status, 'canceled');
    assert.match((await t.http.get(`${uri}/log`).set(H)).text, /canceled; nothing of this sheet was written/);
    assert.equal(await count(), before);
  });

  it("places the rows from a chosen archival object (ArchivesSpace's aoid): level 1 beside it, level 2 before any level 1 under it", async () => {
    const resource = await newResource('AOID01');
    const first = await run(resource.id, sheet(AO_TEMPLATE, [
      { ead: 'AOID01', title: 'Series 1', hierarchy: '1', level: 'series' }, { ead: 'AOID01', title: 'File a', hierarchy: '2', level: 'file' },
      { ead: 'AOID01', title: 'Series 2', hierarchy: '1', level: 'series' },
    ]));
    assert.equal(first.status, 'completed', first.log);
    const [series1] = await children(resource.uri);
    const rows = [
      { ead: 'AOID01', title: 'Under series 1', hierarchy: '2', level: 'file' }, { ead: 'AOID01', title: 'Beside', hierarchy: '1', level: 'series' },
      { ead: 'AOID01', title: 'Under beside', hierarchy: '2', level: 'file' },
    ];
    // As ArchivesSpace's form sends it: in job_params, a JSON object encoded as a string.
    const res = await t.http.post(`${base}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({
        job_type: 'bulk_import_job', job_params: JSON.stringify(JSON.stringify({ aoid: series1.uri.split('/').pop() })),
        job: { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'ao' },
      }))
      .attach('files[]', Buffer.from(sheet(AO_TEMPLATE, rows)), 'sheet.csv');
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle(600_000);
    assert.equal((await t.http.get(res.body.uri).set(H)).body.status, 'completed', (await t.http.get(`${res.body.uri}/log`).set(H)).text);
    const top = await children(resource.uri);
    assert.deepEqual(top.map((c) => c.title), ['Series 1', 'Series 2', 'Beside']);
    assert.deepEqual((await children(resource.uri, series1.uri)).map((c) => c.title), ['File a', 'Under series 1']);
    assert.deepEqual((await children(resource.uri, top[2].uri)).map((c) => c.title), ['Under beside']);

    const elsewhere = await newResource('AOID02');
    const bad = await submit(elsewhere.id, sheet(AO_TEMPLATE, rows), { aoid: series1.uri.split('/').pop() });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /is not an archival object of the resource/);
    assert.equal((await submit(resource.id, sheet(AO_TEMPLATE, rows), { aoid: 'x' })).status, 400);
  });

  /**
   * Levels of a sheet nesting several deep: each row at most one level below the row above it,
   * children right after their parent, siblings interleaved with their grandchildren (a fixed
   * pseudo-random walk), more than a hundred rows, so rows and their parents fall in different
   * hundreds of the batched insert as well as the same one.
   */
  const nestedLevels = (n: number) => {
    const levels: number[] = [];
    let seed = 47;
    for (let i = 0; i < n; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const above = levels[i - 1] ?? 0;
      // Four in ten go one deeper (to six levels), three stay, three go up one or two.
      const r = (seed >>> 16) % 10;
      const next = r < 4 ? above + 1 : r < 7 ? above : Math.max(1, above - 1 - (r % 2));
      levels.push(i === 0 ? 1 : Math.min(next, 6));
    }
    return levels;
  };

  it('places rows nested several levels deep as ArchivesSpace does: each under the nearest row above it one level up, after its earlier siblings', async () => {
    const resource = await newResource('NEST01');
    const levels = nestedLevels(260);
    assert.ok(Math.max(...levels) >= 5, 'the sheet goes five levels deep');
    const rows = levels.map((level, i) => ({ ead: 'NEST01', title: `Row ${i}`, hierarchy: String(level), level: 'file', ref_id: `nest-${i}` }));
    const job = await run(resource.id, sheet(AO_TEMPLATE, rows));
    assert.equal(job.status, 'completed', job.log.slice(-2000));
    // The tree the hierarchy column describes: each row's parent row (-1: the resource) and its index among its siblings.
    const parentOf: number[] = [];
    const siblingsSoFar = new Map<number, number>();
    const expectedPosition: number[] = [];
    const lastAt = new Map<number, number>();
    levels.forEach((level, i) => {
      parentOf.push(level === 1 ? -1 : lastAt.get(level - 1)!);
      expectedPosition.push(siblingsSoFar.get(parentOf[i]) ?? 0);
      siblingsSoFar.set(parentOf[i], expectedPosition[i] + 1);
      lastAt.set(level, i);
    });
    const uriOf = new Map<string, string>();
    const got = [];
    for (const r of rows) {
      const found = await t.http.get(`${base}/find_by_id/archival_objects`).query({ 'ref_id[]': r.ref_id }).set(H).expect(200);
      assert.equal(found.body.archival_objects.length, 1, r.ref_id);
      uriOf.set(r.ref_id, found.body.archival_objects[0].ref);
      got.push(await get(found.body.archival_objects[0].ref));
    }
    const actual = got.map((ao) => ({ title: ao.title, parent: ao.parent?.ref ?? null, position: ao.position }));
    const expected = rows.map((r, i) => ({ title: r.title, parent: parentOf[i] === -1 ? null : uriOf.get(rows[parentOf[i]].ref_id)!, position: expectedPosition[i] }));
    assert.deepEqual(actual, expected);
    // The tree views agree: the resource's top level, and one deep node's children, in order.
    assert.deepEqual((await children(resource.uri)).map((c) => c.title), rows.filter((_, i) => parentOf[i] === -1).map((r) => r.title));
    const deep = levels.findIndex((level, i) => level === 4 && levels[i + 1] === 5);
    assert.deepEqual((await children(resource.uri, uriOf.get(rows[deep].ref_id))).map((c) => c.title), rows.filter((_, i) => parentOf[i] === deep).map((r) => r.title));
    assert.equal((await t.http.get(`${resource.uri}/tree/root`).set(H)).body.child_count, levels.filter((l) => l === 1).length);
  });

  it('fails a nested sheet whose row repeats the ref_id of a row a few lines above it, or goes two levels down past the first hundred rows', async () => {
    const resource = await newResource('NEST02');
    const before = await count();
    const levels = nestedLevels(150);
    const rows = levels.map((level, i) => ({ ead: 'NEST02', title: `Row ${i}`, hierarchy: String(level), level: 'file', ref_id: `nest2-${i}` }));
    rows[12].ref_id = rows[10].ref_id;
    const deepAt = levels.findIndex((level, i) => i > 110 && level >= 2 && level <= 4);
    assert.ok(deepAt > 0 && deepAt < 148);
    rows[deepAt + 1].hierarchy = String(levels[deepAt] + 2);
    const job = await run(resource.id, sheet(AO_TEMPLATE, rows));
    assert.equal(job.status, 'failed', job.log.slice(-2000));
    assert.match(job.log, new RegExp(`row ${FIRST_ROW + 12}, column 'ref_id': an archival object with the ref_id 'nest2-10' already exists`));
    assert.match(job.log, new RegExp(`row ${FIRST_ROW + deepAt + 1}, column 'hierarchy': the row goes from level ${levels[deepAt]} to level ${levels[deepAt] + 2}`));
    assert.match(job.log, /nothing of this sheet was written/);
    assert.equal(await count(), before);
  });

  it('imports a sheet of a few thousand rows in one job', async () => {
    const resource = await newResource('BIG01');
    const rows: Array<Record<string, string>> = [];
    const n = Number(process.env.SHEET_ROWS ?? 3000);
    for (let i = 0; i < n; i++) {
      const level = i % 10 === 0 ? 1 : i % 10 < 4 ? 2 : 3;
      rows.push({
        ead: 'BIG01', title: `Component ${i}`, hierarchy: String(level), level: ['series', 'subseries', 'file'][level - 1], begin_1: String(1900 + (i % 100)), date_type_1: 'single',
        number: '1', extent_type: 'cubic_feet', n_scopecontent: `Scope of ${i}`, cont_instance_type: 'text', type_1: 'Box', indicator_1: String(Math.floor(i / 20)),
        people_agent_header_1: `Agent ${i % 50}`,
      });
    }
    const started = Date.now();
    const job = await run(resource.id, sheet(AO_TEMPLATE, rows));
    const seconds = (Date.now() - started) / 1000;
    assert.equal(job.status, 'completed', job.log.slice(-2000));
    assert.equal(await count('archival_object') >= n, true);
    assert.equal((await t.http.get(`${resource.uri}/tree/root`).set(H)).body.child_count, n / 10);
    console.log(`      ${n} rows in ${seconds.toFixed(1)} s: ${Math.round(n / seconds)} rows/s (${STORE}); ${/\(\d+ rows\/s\)/.exec(job.log)?.[0] ?? ''} inside the job`);
  });
});
