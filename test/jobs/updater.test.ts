import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { sampleRecord } from '../fixtures';
import { startTestApp, STORE, TestApp } from '../helpers';
import { parseCsv } from '../reports/report-helpers';

/** The field codes of ArchivesSpace's digital-object template, as its staff interface hands it out. */
const DO_CODES = fs.readFileSync(path.resolve(__dirname, '..', 'fixtures', 'spreadsheets', 'bulk_import_DO_template.csv'), 'utf8').split(/\r?\n/)[0].split(',').slice(1);

const ALL_COLUMNS = ['level', 'ref_id', 'component_id', 'repository_processing_note', 'publish', 'langmaterial', 'date', 'extent', 'instance', 'digital_object',
  'note_scopecontent', 'note_accessrestrict', 'note_abstract'];


const binary = (res: NodeJS.ReadableStream & { setEncoding(e: string): void }, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

describe(`bulk_archival_object_updater_job and the resource templates (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;
  let repo: number;
  let viewer: Record<string, string>;
  let nobody: Record<string, string>;
  let resource: { id: number; uri: string };
  let other: { id: number; uri: string };
  let box1: string;
  let box2: string;
  const ao: Record<string, string> = {};

  const get = async (uri: string) => (await t.http.get(uri).set(H).expect(200)).body;
  const create = async (type: string, body: Record<string, unknown>) => {
    const res = await t.http.post(`${base}/${type}`).set(H).send(body);
    assert.equal(res.status, 200, res.text);
    return res.body.uri as string;
  };
  const generate = async (params: Record<string, unknown>, as = H) => t.http.post(`/bulk_archival_object_updater/repositories/${repo}/generate_spreadsheet`)
    .set(as).type('form').send(params).buffer(true).parse(binary as never);
  const workbook = async (buffer: Buffer) => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(buffer as never);
    return book;
  };
  /** The sheet's cells: row 2's paths, then each data row by path. */
  const rowsOf = (book: ExcelJS.Workbook) => {
    const sheet = book.getWorksheet('Updates')!;
    const paths = (sheet.getRow(2).values as string[]).slice(1);
    const rows: Array<Record<string, string>> = [];
    for (let r = 3; r <= sheet.rowCount; r++) {
      const values = sheet.getRow(r).values as unknown[];
      rows.push(Object.fromEntries(paths.map((p, i) => [p, values[i + 1] === undefined || values[i + 1] === null ? '' : String(values[i + 1])])));
    }
    return { sheet, paths, rows };
  };
  /** Sets cells of the data row of an archival object (by id) and answers the edited workbook. */
  const edit = async (book: ExcelJS.Workbook, edits: Record<string, Record<string, string>>) => {
    const { sheet, paths } = rowsOf(book);
    for (let r = 3; r <= sheet.rowCount; r++) {
      const id = String(sheet.getRow(r).getCell(1).value);
      for (const [p, v] of Object.entries(edits[id] ?? {})) {
        const col = paths.indexOf(p);
        assert.ok(col >= 0, `${p} is a column of the sheet`);
        sheet.getRow(r).getCell(col + 1).value = v;
      }
    }
    return Buffer.from(await book.xlsx.writeBuffer());
  };
  const apply = async (file: Buffer, job: Record<string, unknown> = {}, as = H, name = 'bulk_update.xlsx') => {
    const res = await t.http.post(`${base}/jobs_with_files`).set(as)
      .field('job', JSON.stringify({ job_type: 'bulk_archival_object_updater_job', job: { jsonmodel_type: 'bulk_archival_object_updater_job', ...job } }))
      .attach('files[]', file, name);
    if (res.status !== 200) return { res, status: '', log: '' };
    await t.services.jobs!.idle(600_000);
    const status = (await t.http.get(res.body.uri).set(H)).body.status as string;
    const log = (await t.http.get(`${res.body.uri}/log`).set(H)).text;
    return { res, status, log, uri: res.body.uri as string };
  };
  const idOf = (uri: string) => uri.split('/').pop()!;
  const sheetFor = async (extra: Record<string, unknown> = {}) => {
    const res = await generate({ resource_uri: resource.uri, 'selected_columns[]': ALL_COLUMNS, ...extra });
    assert.equal(res.status, 200, String(res.body));
    return workbook(res.body as Buffer);
  };

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'UPDATER', name: 'Updater' })).body.id;
    base = `/repositories/${repo}`;
    const groups = await t.http.get(`${base}/groups`).query({ group_code: 'repository-viewers' }).set(H);
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [groups.body[0].uri] }).set(H).send({ username: 'upd-viewer', name: 'V' }).expect(200);
    await t.http.post('/users').query({ password: 'pw' }).set(H).send({ username: 'upd-nobody', name: 'N' }).expect(200);
    viewer = { 'X-ArchivesSpace-Session': (await t.http.post('/users/upd-viewer/login').query({ password: 'pw' })).body.session };
    nobody = { 'X-ArchivesSpace-Session': (await t.http.post('/users/upd-nobody/login').query({ password: 'pw' })).body.session };
    const r = await t.http.post(`${base}/resources`).set(H).send({ ...sampleRecord('resource', repo), title: 'Papers', id_0: 'UPD', id_1: '1', ead_id: 'upd-ead' }).expect(200);
    resource = { id: r.body.id, uri: r.body.uri };
    const o = await t.http.post(`${base}/resources`).set(H).send({ ...sampleRecord('resource', repo), title: 'Other' }).expect(200);
    other = { id: o.body.id, uri: o.body.uri };
    box1 = await create('top_containers', { type: 'box', indicator: '1' });
    box2 = await create('top_containers', { type: 'box', indicator: '2', barcode: 'B2' });
    const instance = (ref: string, extra: Record<string, unknown> = {}) => ({ jsonmodel_type: 'instance', instance_type: 'mixed_materials', sub_container: { jsonmodel_type: 'sub_container', top_container: { ref }, ...extra } });
    ao.series = await create('archival_objects', {
      title: 'Series A', level: 'series', component_id: 'S-A', resource: { ref: resource.uri },
      dates: [{ jsonmodel_type: 'date', label: 'creation', date_type: 'inclusive', begin: '1900', end: '1950' }],
      extents: [{ jsonmodel_type: 'extent', portion: 'whole', number: '2', extent_type: 'linear_feet' }],
      notes: [{ jsonmodel_type: 'note_multipart', type: 'scopecontent', subnotes: [{ jsonmodel_type: 'note_text', content: 'Letters.' }] }],
      instances: [instance(box1, { type_2: 'folder', indicator_2: '3' })],
    });
    ao.file = await create('archival_objects', { title: 'File B', level: 'file', resource: { ref: resource.uri }, parent: { ref: ao.series } });
    ao.second = await create('archival_objects', { title: 'Series C', level: 'series', resource: { ref: resource.uri }, instances: [instance(box2)] });
    ao.elsewhere = await create('archival_objects', { title: 'Elsewhere D', level: 'file', resource: { ref: other.uri } });
  });
  after(() => t?.close());

  it("generates ArchivesSpace's updater sheet: the Updates and Enums sheets, labels and paths, one row per archival object in tree order", async () => {
    const res = await generate({ resource_uri: resource.uri, 'selected_columns[]': ALL_COLUMNS });
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /spreadsheetml\.sheet/);
    assert.match(res.headers['content-disposition'], new RegExp(`attachment; filename="bulk_update\\.resource_${resource.id}\\.\\d{4}-\\d\\d-\\d\\d\\.xlsx"`));
    const book = await workbook(res.body);
    assert.deepEqual(book.worksheets.map((w) => w.name), ['Updates', 'Enums']);
    const { sheet, paths, rows } = rowsOf(book);
    assert.deepEqual(paths.slice(0, 8), ['id', 'lock_version', 'title', 'level', 'ref_id', 'component_id', 'repository_processing_note', 'publish']);
    assert.deepEqual(paths.slice(8, 12), ['language_and_script/0/language', 'language_and_script/0/script', 'note_langmaterial/0/content', 'dates/0/label']);
    // The most dates a record has (1) plus three extra; at least two of each note type.
    assert.ok(paths.includes('dates/3/certainty') && !paths.includes('dates/4/label'));
    assert.ok(paths.includes('instances/3/sub_container_indicator_3'));
    assert.ok(paths.includes('note/scopecontent/1/content') && !paths.includes('note/scopecontent/2/content'));
    assert.ok(paths.includes('note/accessrestrict/0/local_access_restriction_type'));
    assert.deepEqual((sheet.getRow(1).values as string[]).slice(1, 4), ['Id', 'Version', 'Title']);
    assert.equal((sheet.getRow(1).values as string[])[paths.indexOf('dates/0/begin') + 1], 'Date 1 - Begin');
    assert.equal((sheet.getRow(1).values as string[])[paths.indexOf('note/scopecontent/0/content') + 1], 'Note Scope and Contents - 1 - Content');
    assert.deepEqual(rows.map((r) => r.title), ['Series A', 'File B', 'Series C']);
    const a = rows[0];
    assert.deepEqual([a.id, a.lock_version, a.level, a.component_id, a.publish], [idOf(ao.series), '0', 'Series [series]', 'S-A', 'false']);
    assert.deepEqual([a['dates/0/label'], a['dates/0/begin'], a['dates/0/end'], a['extents/0/extent_type']], ['Creation [creation]', '1900', '1950', 'Linear Feet [linear_feet]']);
    assert.deepEqual([a['instances/0/top_container_type'], a['instances/0/top_container_indicator'], a['instances/0/sub_container_type_2'], a['instances/0/sub_container_indicator_2']], ['Box [box]', '1', 'Folder [folder]', '3']);
    assert.equal(a['note/scopecontent/0/content'], 'Letters.');
    assert.equal(rows[2]['instances/0/top_container_barcode'], 'B2');
    // Identity cells are locked; the others open; value lists offered from the Enums sheet.
    assert.notEqual(sheet.getRow(3).getCell(1).protection?.locked, false);
    assert.equal(sheet.getRow(3).getCell(3).protection?.locked, false);
    assert.equal(sheet.getRow(3).getCell(paths.indexOf('dates/3/begin') + 1).protection?.locked, false, 'an empty cell of a data row is open too');
    const enums = book.getWorksheet('Enums')!;
    const levelColumn = enums.getColumn(paths.indexOf('level') + 1).values as string[];
    assert.equal(levelColumn[1], 'archival_record_level');
    assert.ok(levelColumn.includes('Series [series]'));

    // Chosen archival objects, in the order given; only id, version and title without selected_columns.
    const chosen = rowsOf(await workbook((await generate({ resource_uri: resource.uri, uri: JSON.stringify([ao.second, ao.series, resource.uri]) })).body));
    assert.deepEqual(chosen.paths, ['id', 'lock_version', 'title']);
    assert.deepEqual(chosen.rows.map((r) => r.title), ['Series C', 'Series A']);
  });

  it('applies an edited sheet: the changed cells only, the records changed and nothing else', async () => {
    const before = Object.fromEntries(await Promise.all(Object.entries(ao).map(async ([k, u]) => [k, await get(u)])));
    const book = await sheetFor();
    const file = await edit(book, {
      [idOf(ao.series)]: { title: 'Series A, revised', 'instances/0/top_container_indicator': '2', 'instances/0/top_container_barcode': 'B2', 'extents/0/number': '3' },
      [idOf(ao.file)]: { 'dates/0/begin': '1920', 'dates/0/expression': '1920' },
      [idOf(ao.second)]: { 'note/scopecontent/0/content': 'Photographs.', level: 'Sub-Series [subseries]' },
    });
    const job = await apply(file);
    assert.equal(job.status, 'completed', job.log);
    assert.match(job.log, /3 record\(s\) of 3 row\(s\) were updated/);
    const series = await get(ao.series);
    assert.equal(series.title, 'Series A, revised');
    assert.equal(series.extents[0].number, '3');
    assert.equal(series.instances[0].sub_container.top_container.ref, box2);
    assert.equal(series.instances[0].sub_container.indicator_2, '3', 'the child container is kept');
    assert.deepEqual(series.dates, before.series.dates, 'an untouched date is not rewritten');
    assert.deepEqual(series.notes, before.series.notes);
    assert.equal(series.lock_version, before.series.lock_version + 1);
    const file2 = await get(ao.file);
    assert.deepEqual(file2.dates.map((d: any) => [d.label, d.date_type, d.begin, d.expression]), [['creation', 'single', '1920', '1920']]);
    const second = await get(ao.second);
    assert.equal(second.level, 'subseries');
    assert.equal(second.notes[0].type, 'scopecontent');
    assert.equal(second.notes[0].subnotes[0].content, 'Photographs.');
    assert.equal((await get(ao.elsewhere)).lock_version, before.elsewhere.lock_version);
    const records = (await t.http.get(`${job.uri}/records`).query({ page: 1 }).set(H)).body.results.map((r: any) => r.record.ref);
    assert.deepEqual(records.sort(), [ao.series, ao.file, ao.second].sort());

    // The same sheet again, unedited, changes nothing; a stale one is refused (below).
    const again = await apply(Buffer.from(await (await sheetFor()).xlsx.writeBuffer()));
    assert.equal(again.status, 'completed', again.log);
    assert.match(again.log, /0 record\(s\) of 3 row\(s\) were updated/);
    assert.equal((await get(ao.series)).lock_version, series.lock_version);
  });

  it('reports a record changed by someone else since the sheet was made, overwrites nothing, and writes no row of the sheet', async () => {
    const book = await sheetFor();
    const current = await get(ao.series);
    await t.http.post(ao.series).set(H).send({ ...current, title: 'Changed by a colleague' }).expect(200);
    const fileBefore = await get(ao.file);
    const job = await apply(await edit(book, { [idOf(ao.series)]: { title: 'From the sheet' }, [idOf(ao.file)]: { title: 'File B from the sheet' } }));
    assert.equal(job.status, 'failed', job.log);
    assert.match(job.log, /sheet 'Updates', row 3, column 'lock_version': archival object \d+ \(.*\) was changed by someone else since the sheet was made \(the sheet has version \d+, the record is now at version \d+\); it is not overwritten/);
    assert.match(job.log, /all changes have been reverted/);
    assert.equal((await get(ao.series)).title, 'Changed by a colleague');
    assert.deepEqual(await get(ao.file), fileBefore);
  });

  it('fails a sheet with a bad cell, naming its row and column, and writes nothing', async () => {
    const book = await sheetFor();
    const seriesBefore = await get(ao.series);
    const job = await apply(await edit(book, {
      [idOf(ao.series)]: { title: 'Should not be written', 'dates/1/label': 'Nonsense' },
      [idOf(ao.file)]: { level: 'Nonsense' },
      [idOf(ao.second)]: { 'instances/0/top_container_indicator': '99' },
    }));
    assert.equal(job.status, 'failed', job.log);
    assert.match(job.log, /row 4, column 'level': 'Nonsense' is not a value of the list archival_record_level/);
    assert.match(job.log, /row 3, column 'dates\/1\/label': 'Nonsense' is not a value of the list date_label/, 'a bad value in a new subrecord is reported too');
    assert.match(job.log, /row 5, column 'instances\/0\/top_container_indicator': the resource has no top container box 99/);
    assert.deepEqual(await get(ao.series), seriesBefore);
    const badDate = await apply(await edit(await sheetFor(), { [idOf(ao.file)]: { 'dates/0/begin': '19O5' } }));
    assert.equal(badDate.status, 'failed');
    assert.match(badDate.log, /row 4, column 'dates\/0\/begin': /);

    // create_missing_top_containers makes the container the sheet names.
    const created = await apply(await edit(await sheetFor(), { [idOf(ao.second)]: { 'instances/0/top_container_indicator': '77', 'instances/0/top_container_barcode': '' } }), { create_missing_top_containers: true });
    assert.equal(created.status, 'completed', created.log);
    const tc = await get((await get(ao.second)).instances[0].sub_container.top_container.ref);
    assert.deepEqual([tc.type, tc.indicator], ['box', '77']);
  });

  it('links, creates and changes digital objects from the digital_object columns', async () => {
    const dobj = await create('digital_objects', { digital_object_id: 'DO-1', title: 'Scan', file_versions: [{ jsonmodel_type: 'file_version', file_uri: 'http://example.com/1.jpg' }] });
    const second = await get(ao.second);
    await t.http.post(ao.second).set(H).send({ ...second, instances: [...second.instances, { jsonmodel_type: 'instance', instance_type: 'digital_object', digital_object: { ref: dobj } }] }).expect(200);
    const book = await sheetFor();
    const row = rowsOf(book).rows.find((r) => r.id === idOf(ao.second))!;
    assert.deepEqual([row['digital_object/0/digital_object_id'], row['digital_object/0/digital_object_title'], row['digital_object/0/file_version_file_uri']], ['DO-1', 'Scan', 'http://example.com/1.jpg']);
    const job = await apply(await edit(book, {
      [idOf(ao.second)]: { 'digital_object/0/digital_object_title': 'Scan, revised' },
      [idOf(ao.file)]: { 'digital_object/0/digital_object_id': 'DO-NEW', 'digital_object/0/digital_object_title': 'New scan', 'digital_object/0/file_version_file_uri': 'http://example.com/new.jpg' },
    }));
    assert.equal(job.status, 'completed', job.log);
    assert.equal((await get(dobj)).title, 'Scan, revised');
    const link = (await get(ao.file)).instances.find((i: any) => i.instance_type === 'digital_object');
    const created = await get(link.digital_object.ref);
    assert.deepEqual([created.digital_object_id, created.title, created.file_versions[0].file_uri], ['DO-NEW', 'New scan', 'http://example.com/new.jpg']);

    const missing = await apply(await edit(await sheetFor(), { [idOf(ao.series)]: { 'digital_object/0/digital_object_id': 'NOPE' } }));
    assert.equal(missing.status, 'failed');
    assert.match(missing.log, /row 3, column 'digital_object\/0\/digital_object_id': there is no digital object 'NOPE' in this repository/);
  });

  it('refuses sheets that are not updater sheets, and bad submissions, before anything is written', async () => {
    const bad = await apply(Buffer.from('id,title\n1,x\n'), {}, H, 'sheet.csv');
    assert.equal(bad.res.status, 400);
    const foreign = new ExcelJS.Workbook();
    foreign.addWorksheet('Updates').addRows([['Id'], ['nonsense_path'], ['1']]);
    const job = await apply(Buffer.from(await foreign.xlsx.writeBuffer()));
    assert.equal(job.status, 'failed');
    assert.match(job.log, /row 2, column A: 'nonsense_path' is not a column of the updater's sheet/);
    const noSuch = new ExcelJS.Workbook();
    noSuch.addWorksheet('Updates').addRows([['Id', 'Version', 'Title'], ['id', 'lock_version', 'title'], ['999999', '0', 'x'], [idOf(ao.elsewhere), '0', 'x']]);
    const missing = await apply(Buffer.from(await noSuch.xlsx.writeBuffer()));
    assert.equal(missing.status, 'failed');
    assert.match(missing.log, /row 3, column 'id': no archival object 999999 in this repository/);
    const damaged = await apply(Buffer.from('not a zip at all'));
    assert.equal(damaged.status, 'failed');
    assert.match(damaged.log, /not a readable XLSX workbook/);
  });

  it("answers the small tree as ArchivesSpace does: titles, URIs, ref_ids, component ids and containers, nested", async () => {
    const res = await t.http.get(`/bulk_archival_object_updater/repositories/${repo}/resources/${resource.id}/small_tree`).set(H).expect(200);
    assert.deepEqual([res.body.title, res.body.identifier, res.body.uri], ['Papers', 'UPD--1', resource.uri]);
    const [series, second] = res.body.children;
    assert.equal(series.uri, ao.series);
    assert.equal(series.has_children, true);
    assert.equal(series.children[0].uri, ao.file);
    assert.deepEqual(series.children[0].children, []);
    assert.equal(series.children[0].has_children, false);
    assert.equal(typeof series.ref_id, 'string');
    assert.equal(series.component_id, 'S-A');
    assert.equal(series.container, 'box: 2: [B2], folder: 3');
    assert.equal(second.uri, ao.second);
    assert.equal('component_id' in second, false, 'absent properties are left out');
  });

  it('answers the top container and digital object CSV templates with the resource\'s archival objects', async () => {
    const tc = await t.http.get(`${base}/resources/${resource.id}/templates/top_container_creation.csv`).set(H).expect(200);
    assert.match(tc.headers['content-type'], /text\/csv/);
    assert.match(tc.headers['content-disposition'], new RegExp(`resource_${resource.id}_top_containers\\.csv`));
    const rows = parseCsv(tc.text);
    assert.equal(rows[0][0], 'Archival Object Top Container Generation Template');
    assert.equal(rows[1][0], 'Maps to ASpace Type');
    assert.equal(rows[2][0], "ArchivesSpace field code (please don't edit this row)");
    assert.deepEqual(rows[2].slice(1, 8), ['archival_object_id', 'ref_id', 'component_id', 'archival_object_title', 'resource_title', 'ead_id', 'identifier']);
    const data = rows.slice(4);
    const ids = [ao.series, ao.file, ao.second].map((u) => Number(idOf(u))).sort((a, b) => a - b).map(String);
    assert.deepEqual(data.map((r) => r[1]), ids);
    const seriesRow = data.find((r) => r[1] === idOf(ao.series))!;
    assert.deepEqual(seriesRow.slice(3, 8), ['S-A', (await get(ao.series)).title, 'Papers', 'upd-ead', 'UPD 1']);
    assert.ok(seriesRow.slice(8).every((c) => c === ''), 'the columns to fill are empty');
    // Filled in, the template goes back as a top_container_linker_job sheet.
    const codes = rows[2];
    const fileRow = data.find((r) => r[1] === idOf(ao.file))!;
    for (const [code, value] of Object.entries({ instance_type: 'Text', top_container_type: 'Box', top_container_indicator: 'T-1' })) fileRow[codes.indexOf(code)] = value;
    const filled = [...rows.slice(0, 4), fileRow].map((r) => r.map((c) => (/[",]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\n');
    const linker = await t.http.post(`${base}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'top_container_linker_job', job: { jsonmodel_type: 'top_container_linker_job', resource_id: String(resource.id) } }))
      .attach('files[]', Buffer.from(`${filled}\n`), 'containers.csv').expect(200);
    await t.services.jobs!.idle(600_000);
    assert.equal((await t.http.get(linker.body.uri).set(H)).body.status, 'completed', (await t.http.get(`${linker.body.uri}/log`).set(H)).text);
    const linked = await get((await get(ao.file)).instances.at(-1).sub_container.top_container.ref);
    assert.deepEqual([linked.type, linked.indicator], ['box', 'T-1']);

    const dobj = await t.http.get(`${base}/resources/${resource.id}/templates/digital_object_creation.csv`).set(H).expect(200);
    const drows = parseCsv(dobj.text);
    assert.equal(drows[0][0], 'Archival Object Digital Object Generation Template Prefilled');
    assert.deepEqual(drows[1].slice(1), DO_CODES, "the field codes of ArchivesSpace's template, in its order");
    const res = drows[1].indexOf('res_uri');
    const aoUri = drows[1].indexOf('ao_uri');
    assert.deepEqual(drows.slice(3).map((r) => [r[res], r[aoUri]]), ids.map((i) => [resource.uri, `${base}/archival_objects/${i}`]));
  });

  it('checks permissions (view_repository to read, update_resource_record to apply) and answers bad ids with 404 or 400', async () => {
    const paths = [
      `/bulk_archival_object_updater/repositories/${repo}/resources/${resource.id}/small_tree`,
      `${base}/resources/${resource.id}/templates/top_container_creation.csv`,
      `${base}/resources/${resource.id}/templates/digital_object_creation.csv`,
    ];
    for (const p of paths) {
      assert.equal((await t.http.get(p).set(nobody)).status, 403, p);
      assert.equal((await t.http.get(p).set(viewer)).status, 200, p);
      assert.equal((await t.http.get(p.replace(`/${resource.id}/`, '/999999/')).set(H)).status, 404, p);
      assert.equal((await t.http.get(p.replace(`/${resource.id}/`, '/abc/')).set(H)).status, 400, p);
    }
    assert.equal((await generate({ resource_uri: resource.uri }, nobody)).status, 403);
    assert.equal((await generate({ resource_uri: resource.uri }, viewer)).status, 200);
    const sheet = Buffer.from(await (await sheetFor()).xlsx.writeBuffer());
    assert.equal((await apply(sheet, {}, viewer)).res.status, 403, 'a viewer cannot apply a sheet');
    assert.equal((await generate({ resource_uri: `${base}/resources/999999` })).status, 404);
    assert.equal((await generate({ resource_uri: 'nonsense' })).status, 400);
    assert.equal((await generate({ resource_uri: resource.uri, uri: 'not json' })).status, 400);
    const elsewhere = await generate({ resource_uri: resource.uri, uri: JSON.stringify([ao.elsewhere]) });
    assert.equal(elsewhere.status, 400);
    assert.match(JSON.parse(elsewhere.body.toString()).error.uri[0], /is not an archival object of the resource/);
    assert.equal((await generate({})).status, 400);
  });

  it('applies its own sheet as made, with no tool between: every cell reads back as the record holds it, so nothing changes', async () => {
    const tricky = await create('archival_objects', {
      title: 'Letters <to> & "from" R\u00e9mi\nsecond line 😀', level: 'file', component_id: '007', resource: { ref: resource.uri },
      dates: [{ jsonmodel_type: 'date', label: 'creation', date_type: 'single', begin: '1905-03' }],
      notes: [{ jsonmodel_type: 'note_multipart', type: 'scopecontent', subnotes: [{ jsonmodel_type: 'note_text', content: '  spaced  & <b>bold</b>  ' }] }],
    });
    try {
      const made = await generate({ resource_uri: resource.uri, 'selected_columns[]': ALL_COLUMNS, uri: JSON.stringify([tricky, ao.series]) });
      assert.equal(made.status, 200);
      const job = await apply(made.body as Buffer);
      assert.equal(job.status, 'completed', job.log);
      assert.match(job.log, /0 record\(s\) of 2 row\(s\) were updated/);
      assert.equal((await get(tricky)).lock_version, 0);
      // The same sheet with the title edited (by exceljs) changes that title only.
      const edited = await apply(await edit(await workbook(made.body as Buffer), { [idOf(tricky)]: { title: 'Letters, renamed' } }));
      assert.equal(edited.status, 'completed', edited.log);
      assert.match(edited.log, /1 record\(s\) of 2 row\(s\) were updated/);
      assert.equal((await get(tricky)).title, 'Letters, renamed');
    } finally {
      await t.http.delete(tricky).set(H).expect(200);
    }
  });
});
