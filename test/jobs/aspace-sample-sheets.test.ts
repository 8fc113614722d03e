import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { sampleRecord } from '../fixtures';
import { startTestApp, STORE, TestApp } from '../helpers';

/**
 * The sample sheets of ArchivesSpace's own test suite (backend/spec/fixtures/bulk_import, see
 * the folder's README), imported here unchanged, with what ArchivesSpace's specs expect of each:
 * row counts, the tree, dates, booleans, notes, value lists grown by the sheet.
 */
const SAMPLES = path.resolve(__dirname, '..', 'fixtures', 'spreadsheets', 'archivesspace');
const sample = (name: string) => fs.readFileSync(path.join(SAMPLES, name));

describe(`bulk_import_job: ArchivesSpace's sample sheets (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let H: Record<string, string>;

  const get = async (uri: string) => (await t.http.get(uri).set(H).expect(200)).body;
  /** A repository of its own (EAD IDs are unique in a repository) holding a resource with the sheet's EAD ID. */
  const newResource = async (eadId: string) => {
    const code = `S${Math.floor(Math.random() * 1e9)}`;
    const repo = (await t.http.post('/repositories').set(H).send({ repo_code: code, name: code }).expect(200)).body.id as number;
    const body = { ...sampleRecord('resource', repo), title: `Collection ${eadId}`, ead_id: eadId, id_0: eadId };
    return { repo, ...(await t.http.post(`/repositories/${repo}/resources`).set(H).send(body).expect(200)).body as { id: number; uri: string } };
  };
  const run = async (resource: { repo: number; id: number }, file: string, jobType = 'bulk_import_job', content: Buffer = sample(file)) => {
    const job = jobType === 'bulk_import_job' ? { resource_id: String(resource.id), load_type: 'ao' } : { resource_id: String(resource.id) };
    const res = await t.http.post(`/repositories/${resource.repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: jobType, job: { jsonmodel_type: jobType, ...job } }))
      .attach('files[]', content, file);
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle(600_000);
    const status = (await t.http.get(res.body.uri).set(H)).body.status as string;
    const log = (await t.http.get(`${res.body.uri}/log`).set(H)).text;
    return { uri: res.body.uri as string, status, log };
  };
  const topLevel = async (resourceUri: string, parent?: string) =>
    (await t.http.get(`${resourceUri}/tree/waypoint`).query({ offset: 0, ...(parent ? { parent_node: parent } : {}) }).set(H)).body as Array<{ title: string; uri: string }>;
  /** The archival objects a job created, in the order of the sheet's rows. */
  const created = async (jobUri: string) => {
    const page = (await t.http.get(`${jobUri}/records`).query({ page: 1, page_size: 250 }).set(H)).body;
    return (page.results as Array<{ record: { ref: string } }>).map((r) => r.record.ref).filter((u) => u.includes('/archival_objects/'));
  };
  const listValues = async (name: string) =>
    ((await t.http.get('/config/enumerations').set(H)).body as Array<{ name: string; values: string[] }>).find((e) => e.name === name)!.values;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(() => t?.close());

  for (const file of ['bulk_import_VFIRST01_test01.xlsx', 'bulk_import_VFIRST01_test01.csv']) {
    it(`${file}: two rows, the second under the first, with their dates, booleans and a digital object`, async () => {
      const resource = await newResource('VFIRST01');
      const job = await run(resource, file);
      assert.equal(job.status, 'completed', job.log);
      assert.match(job.log, /imported 2 row\(s\)/, job.log);
      assert.doesNotMatch(job.log, /error:/, job.log);
      const [first, second] = await created(job.uri);
      const series = await get(first);
      assert.equal(series.display_string, 'The first series, bulk: 2010 - 2020, 2020');
      assert.equal((await get(second)).display_string, 'A subseries, 2010 - 2011');
      assert.deepEqual((await topLevel(resource.uri)).map((c) => c.uri), [first]);
      assert.deepEqual((await topLevel(resource.uri, first)).map((c) => c.uri), [second]);
      assert.equal(series.publish, true);
      if (file.endsWith('.csv')) {
        assert.equal(series.restrictions_apply, true);
        assert.equal((await get(second)).restrictions_apply, false);
      }
      // The sheet names languages by the labels archivists see ("English"), as ArchivesSpace's importer reads them.
      assert.deepEqual(series.lang_materials.filter((l: any) => l.language_and_script).map((l: any) => l.language_and_script.language), ['eng', 'spa']);
      const digital = series.instances.find((i: any) => i.digital_object);
      assert.equal((await get(digital.digital_object.ref)).publish, false);
    });
  }

  it('bulk_import_VFIRST01_boolean_columns.csv: publish and restrictions per row, inherited by notes, languages and digital objects', async () => {
    const resource = await newResource('VFIRST01');
    const job = await run(resource, 'bulk_import_VFIRST01_boolean_columns.csv');
    assert.equal(job.status, 'completed', job.log);
    assert.match(job.log, /imported 4 row\(s\)/);
    const rows = await Promise.all((await created(job.uri)).map(get));
    assert.equal(rows.length, 4);
    assert.deepEqual(rows.map((r) => [r.publish, r.restrictions_apply]), [[true, true], [false, false], [false, false], [true, true]]);
    assert.deepEqual(rows.map((r) => r.notes.length), [17, 17, 17, 17]);
    assert.deepEqual(rows[0].notes.slice(0, 6).map((n: any) => n.publish), [true, false, true, true, false, true]);
    assert.ok(rows[0].notes.slice(5).every((n: any) => n.publish === true));
    assert.ok(rows[1].notes.slice(1).every((n: any) => n.publish === false) && rows[2].notes.slice(1).every((n: any) => n.publish === false));
    assert.ok(rows[3].notes.slice(1).every((n: any) => n.publish === true));
    assert.deepEqual(rows.map((r) => r.lang_materials.filter((l: any) => l.notes?.length).map((l: any) => l.notes[0].publish)),
      [[true, false], [false, false], [false, false], [true, true]]);
    for (const [i, r] of rows.entries()) {
      assert.equal(r.instances.length, 1);
      assert.equal(r.instances[0].instance_type, 'digital_object');
      const dobj = await get(r.instances[0].digital_object.ref);
      assert.equal(dobj.publish, i === 3);
      assert.deepEqual(dobj.file_versions.map((f: any) => f.publish), [true, i === 3]);
    }
  });

  it('bulk_import_date_era_calendar_test.csv and bulk_import_multi_date_test.csv: eras, calendars and a second date', async () => {
    const era = await run(await newResource('VFIRST01'), 'bulk_import_date_era_calendar_test.csv');
    assert.equal(era.status, 'completed', era.log);
    const [one] = await created(era.uri);
    assert.deepEqual((await get(one)).dates.map((d: any) => [d.era, d.calendar]), [['ce', 'gregorian']]);

    const multi = await run(await newResource('VFIRST01'), 'bulk_import_multi_date_test.csv');
    assert.equal(multi.status, 'completed', multi.log);
    const dates = (await get((await created(multi.uri))[0])).dates;
    assert.deepEqual(dates.map((d: any) => [d.date_type, d.begin, d.end, d.expression, d.era, d.calendar]), [
      ['inclusive', '1800', '1900', undefined, 'ce', 'gregorian'],
      ['single', undefined, undefined, 'circa 1950', 'ce', 'gregorian'],
    ]);
  });

  it('Box36UploadDIDNT_WORK_test.xlsx: 28 rows, twice; an unknown instance type is added to its list as written', async () => {
    for (let i = 0; i < 2; i++) {
      const job = await run(await newResource('tyler_001'), 'Box36UploadDIDNT_WORK_test.xlsx');
      assert.equal(job.status, 'completed', job.log);
      assert.match(job.log, /imported 28 row\(s\)/);
      assert.doesNotMatch(job.log, /error:|left out:/);
      const types = (await Promise.all((await created(job.uri)).map(get))).flatMap((r) => r.instances.map((x: any) => x.instance_type));
      assert.equal(types.filter((x) => x === 'mixed_materials').length, 26);
      assert.equal(types.filter((x) => x === 'FOO BARS').length, 1);
    }
    const values = await listValues('instance_instance_type');
    assert.ok(values.includes('FOO BARS'));
    assert.ok(!values.includes('Mixed Materials'));
  });

  it('checkingbugAug012023.xlsx: 9 rows; unknown container types are added to their list as written', async () => {
    const job = await run(await newResource('9916'), 'checkingbugAug012023.xlsx');
    assert.equal(job.status, 'completed', job.log);
    assert.match(job.log, /imported 9 row\(s\)/);
    const containers = new Set<string>();
    for (const uri of await created(job.uri)) {
      for (const instance of (await get(uri)).instances) {
        const tc = await get(instance.sub_container.top_container.ref);
        containers.add(`${tc.type} ${tc.indicator}`);
      }
    }
    for (const c of ['carton 100', 'Volume 36', 'Page 36', 'Distinc 1']) assert.ok(containers.has(c), `${c} in ${[...containers].join(', ')}`);
    const values = await listValues('container_type');
    for (const v of ['Volume', 'Page', 'Distinc']) assert.ok(values.includes(v), v);
  });

  it('testTopLinkerUpload.csv and .xlsx: refused, naming the record numbers of ArchivesSpace\'s database it cites; with them replaced, linked', async () => {
    const resource = await newResource('hua15019');
    const base = `/repositories/${resource.repo}`;
    const aos: string[] = [];
    for (let n = 7; n <= 11; n++) {
      const body = { title: `Component ${n}`, level: 'file', ref_id: `hua15019c000${String(n).padStart(2, '0')}`, resource: { ref: resource.uri } };
      aos.push((await t.http.post(`${base}/archival_objects`).set(H).send(body).expect(200)).body.uri);
    }
    const count = async () => Number((await t.services.db.knex('records').count({ n: '*' }).first())?.n);
    const before = await count();
    // As ArchivesSpace's test data has it, the sheet cites location 43587, container profile 53 and top container 2 of its database.
    for (const file of ['testTopLinkerUpload.csv', 'testTopLinkerUpload.xlsx']) {
      const job = await run(resource, file, 'top_container_linker_job');
      assert.equal(job.status, 'failed', job.log);
      assert.match(job.log, /row 6, column 'location_id': no location 43587/);
      assert.match(job.log, /row 6, column 'container_profile_id': no container profile 53/);
      assert.match(job.log, /row 9, column 'top_container_id': no top container \d+ in this repository/);
      assert.doesNotMatch(job.log, /column 'ref_id'|column 'ead_id'/, 'the ref_ids and the EAD ID are found');
    }
    assert.equal(await count(), before);

    const location = (await t.http.post('/locations').set(H).send(sampleRecord('location', resource.repo)).expect(200)).body;
    const profile = (await t.http.post('/container_profiles').set(H)
      .send({ name: 'Records center carton', extent_dimension: 'width', dimension_units: 'inches', width: '12', height: '10', depth: '15' }).expect(200)).body;
    const existing = (await t.http.post(`${base}/top_containers`).set(H).send({ type: 'box', indicator: 'Box 1', barcode: '121212' }).expect(200)).body;
    const ours = sample('testTopLinkerUpload.csv').toString('utf8')
      .replace(/,43587,53,/g, `,${location.id},${profile.id},`).replace(/,HUM 361,2,/g, `,HUM 361,${existing.id},`);
    const job = await run(resource, 'testTopLinkerUpload.csv', 'top_container_linker_job', Buffer.from(ours));
    assert.equal(job.status, 'completed', job.log);
    const linked = await Promise.all(aos.map(get));
    const tops = linked.map((ao) => ao.instances[0].sub_container.top_container.ref);
    assert.deepEqual(linked.map((ao) => ao.instances[0].instance_type), ['books', 'books', 'books', 'books', 'books']);
    assert.equal(new Set(tops.slice(0, 3)).size, 1, 'the three rows of box Oct12020 share one new container');
    assert.deepEqual(tops.slice(3), [existing.uri, existing.uri]);
    const made = await get(tops[0]);
    assert.deepEqual([made.type, made.indicator, made.barcode, made.container_locations[0].ref, made.container_profile.ref], ['box', 'Oct12020', 'oct1bc', location.uri, profile.uri]);
    assert.deepEqual([linked[0].instances[0].sub_container.type_2, linked[0].instances[0].sub_container.indicator_2, linked[0].instances[0].sub_container.barcode_2], ['folder', '2', 'oct12020child']);
  });

  it("the XLSX template as ArchivesSpace's staff interface hands it out, filled in below its header rows", async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path.resolve(SAMPLES, '..', 'bulk_import_template.xlsx'));
    const sheet = book.worksheets[0];
    const codes = (sheet.getRow(4).values as unknown[]).map((v) => String(v ?? ''));
    const fill = (rowNumber: number, cells: Record<string, string | number>) => {
      for (const [code, value] of Object.entries(cells)) sheet.getRow(rowNumber).getCell(codes.indexOf(code)).value = value;
    };
    fill(6, { ead: 'TPL01', hierarchy: 1, level: 'Series', title: 'Correspondence', begin_1: 1901, end_1: 1950, date_type_1: 'inclusive', publish: 'TRUE' });
    fill(7, { ead: 'TPL01', hierarchy: 2, level: 'File', title: 'Letters to Ada', cont_instance_type: 'Mixed Materials', type_1: 'Box', indicator_1: 3, l_lang: 'English' });
    const resource = await newResource('TPL01');
    const buf = Buffer.from(await book.xlsx.writeBuffer());
    const job = await run(resource, 'filled-template.xlsx', 'bulk_import_job', buf);
    assert.equal(job.status, 'completed', job.log);
    assert.match(job.log, /imported 2 row\(s\)/);
    const [series, file] = await Promise.all((await created(job.uri)).map(get));
    assert.deepEqual([series.title, series.level, series.publish, series.dates[0].begin, series.dates[0].end], ['Correspondence', 'series', true, '1901', '1950']);
    assert.equal(file.parent.ref, series.uri);
    assert.equal(file.lang_materials[0].language_and_script.language, 'eng');
    assert.equal((await get(file.instances[0].sub_container.top_container.ref)).indicator, '3');
  });

  it("the digital-object XLSX template, filled in: digital objects linked to the archival objects it names", async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path.resolve(SAMPLES, '..', 'bulk_import_DO_template.xlsx'));
    const sheet = book.worksheets[0];
    const codes = (sheet.getRow(4).values as unknown[]).map((v) => String(v ?? ''));
    const row = sheet.getRow(6);
    const cells = { ead: 'TPLDO', ao_ref_id: 'photo-1', digital_object_id: 'TPL-DO-1', digital_object_title: 'Scans', digital_object_type: 'Still Image', rep_file_uri: 'http://example.com/1.tif' };
    for (const [code, value] of Object.entries(cells)) row.getCell(codes.indexOf(code)).value = value;
    const resource = await newResource('TPLDO');
    const ao = (await t.http.post(`/repositories/${resource.repo}/archival_objects`).set(H)
      .send({ title: 'Photographs', level: 'file', ref_id: 'photo-1', resource: { ref: resource.uri } }).expect(200)).body;
    const res = await t.http.post(`/repositories/${resource.repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'bulk_import_job', job: { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'digital' } }))
      .attach('files[]', Buffer.from(await book.xlsx.writeBuffer()), 'do-template.xlsx');
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle(600_000);
    const status = (await t.http.get(res.body.uri).set(H)).body.status;
    assert.equal(status, 'completed', (await t.http.get(`${res.body.uri}/log`).set(H)).text);
    const dobj = await get((await get(ao.uri)).instances[0].digital_object.ref);
    assert.deepEqual([dobj.digital_object_id, dobj.title, dobj.digital_object_type, dobj.file_versions[0].file_uri], ['TPL-DO-1', 'Scans', 'still_image', 'http://example.com/1.tif']);
  });
});
