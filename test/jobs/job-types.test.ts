import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sampleRecord } from '../fixtures';
import { startTestApp, STORE, TestApp } from '../helpers';
import { findAndReplaceJob } from '../../src/jobs/cleanups/find-and-replace';
import { trimWhitespaceJob } from '../../src/jobs/cleanups/trim-whitespace';
import { generateSlugsJob } from '../../src/jobs/identifiers/generate-slugs';
import { resourceDuplicateJob } from '../../src/jobs/resources/resource-duplicate';
import type { JobContext, JobType } from '../../src/jobs/job-type';

const MORSE = ['/work/shared/corpus/marcxml/nyu_samuel-morse.xml', path.resolve(__dirname, '..', '..', '..', 'shared', 'corpus', 'marcxml', 'nyu_samuel-morse.xml')]
  .find((f) => fs.existsSync(f))!;

/** The job types beyond imports: find and replace, PDF and labels, the clean-ups, container conversion. */
describe(`job types (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let archivist: Record<string, string>;
  let repo: number;
  let base: string;
  let resourceUri: string;
  const componentUris: string[] = [];

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'JT', name: 'Job types' })).body.id;
    base = `/repositories/${repo}`;
    const groups = await t.http.get(`${base}/groups`).query({ group_code: 'repository-archivists' }).set(H);
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [groups.body[0].uri] }).set(H).send({ username: 'jt-archivist', name: 'A' }).expect(200);
    archivist = { 'X-ArchivesSpace-Session': (await t.http.post('/users/jt-archivist/login').query({ password: 'pw' })).body.session };
    const resource = await t.http.post(`${base}/resources`).set(H).send({ ...sampleRecord('resource', repo), title: '  Papers of the Smith family ', publish: true });
    assert.equal(resource.status, 200, resource.text);
    resourceUri = resource.body.uri;
    for (const title of ['Smith letters', 'Diaries of Jane Smith', 'Photographs']) {
      const ao = await t.http.post(`${base}/archival_objects`).set(H).send({
        title, level: 'file', resource: { ref: resourceUri }, dates: [{ date_type: 'single', label: 'creation', expression: 'circa 1900 Smith' }],
      });
      assert.equal(ao.status, 200, ao.text);
      componentUris.push(ao.body.uri);
    }
  });
  after(() => t?.close());

  const submit = (job: Record<string, unknown>, as = H) => t.http.post(`${base}/jobs`).set(as).send({ job_type: job.jsonmodel_type, job });
  const finished = async (uri: string) => {
    await t.services.jobs!.idle();
    const job = (await t.http.get(uri).set(H)).body;
    const log = (await t.http.get(`${uri}/log`).set(H)).text;
    const records = (await t.http.get(`${uri}/records`).query({ page: 1 }).set(H)).body.results.map((r: { record: { ref?: string } | string }) => (typeof r.record === 'string' ? r.record : r.record.ref));
    return { job, log, records };
  };
  const read = async (uri: string) => (await t.http.get(uri).set(H)).body;

  /** A context for calling a type's run directly, already canceled. */
  const canceledContext = (job: Record<string, unknown>): JobContext & { lines: string[] } => {
    const lines: string[] = [];
    return {
      s: t.services, jobId: 0, repoId: repo, actor: { username: 'admin' }, job, inputFiles: [], signal: AbortSignal.abort(), lines,
      log: async (line) => void lines.push(line), addRecords: async () => undefined, progress: async () => undefined, addOutputFile: async () => undefined,
    };
  };

  it('lists the types with ArchivesSpace\'s permissions, hidden ones left out', async () => {
    const types = (await t.http.get('/job_types').set(H)).body;
    assert.deepEqual(types.find_and_replace_job, { create_permissions: ['manage_repository'], cancel_permissions: ['manage_repository'] });
    assert.deepEqual(types.ns2_remover_job, { create_permissions: ['administer_system'], cancel_permissions: ['administer_system'] });
    assert.deepEqual(types.print_to_pdf_job, { create_permissions: [], cancel_permissions: [] });
    assert.ok(types.container_labels_job && types.trim_whitespace_job);
    assert.equal(types.container_conversion_job, undefined);
  });

  describe('find_and_replace_job', () => {
    const job = (over: Record<string, unknown> = {}) => ({
      jsonmodel_type: 'find_and_replace_job', find: 'Smith', replace: 'Smyth', record_type: 'archival_object', property: 'title', base_record_uri: resourceUri, ...over,
    });

    it('replaces a literal in one property of one record type within the tree, saving each through the engine', async () => {
      const before = await read(componentUris[0]);
      const res = await submit(job());
      assert.equal(res.status, 200, res.text);
      const { job: done, log, records } = await finished(res.body.uri);
      assert.equal(done.status, 'completed', log);
      assert.deepEqual(records.sort(), [componentUris[0], componentUris[1]].sort());
      assert.match(log, /Updating archival_object\[\d+\]\.title/);
      assert.match(log, /2 record\(s\) modified/);
      const after = await read(componentUris[0]);
      assert.equal(after.title, 'Smyth letters');
      assert.equal(after.lock_version, before.lock_version + 1);
      assert.equal((await read(componentUris[1])).title, 'Diaries of Jane Smyth');
      assert.equal((await read(resourceUri)).title.trim(), 'Papers of the Smith family', 'the resource is another record type');
      assert.equal((await read(componentUris[0])).dates[0].expression, 'circa 1900 Smith', 'another property is untouched');
      // A client still holding the version before the job cannot save over its change.
      const stale = await t.http.post(componentUris[0]).set(H).send({ ...before, title: 'Overwritten' });
      assert.equal(stale.status, 409, stale.text);
    });

    it('changes the resource itself when asked for its record type', async () => {
      const res = await submit(job({ find: 'family', replace: 'Family', record_type: 'resource' }));
      const { job: done, log, records } = await finished(res.body.uri);
      assert.equal(done.status, 'completed', log);
      assert.deepEqual(records, [resourceUri]);
      assert.equal((await read(resourceUri)).title, '  Papers of the Smith Family ');
      const back = await finished((await submit(job({ find: 'Family', replace: 'family', record_type: 'resource' }))).body.uri);
      assert.equal(back.job.status, 'completed', back.log);
    });

    it('takes a regular expression between slashes, with Ruby\'s group references, and reaches subrecords', async () => {
      const res = await submit(job({ find: '/circa (\\d+)/', replace: 'ca. \\1', record_type: 'date', property: 'expression' }));
      const { job: done, log, records } = await finished(res.body.uri);
      assert.equal(done.status, 'completed', log);
      assert.equal(records.length, 3);
      assert.equal((await read(componentUris[2])).dates[0].expression, 'ca. 1900 Smith');
    });

    it('reports when nothing matched', async () => {
      const res = await submit(job({ find: 'no such text anywhere' }));
      const { job: done, log, records } = await finished(res.body.uri);
      assert.equal(done.status, 'completed');
      assert.match(log, /All done, no records modified/);
      assert.deepEqual(records, []);
    });

    it('fails whole, writing nothing, when a change would leave a record invalid', async () => {
      const before = await read(componentUris[2]);
      const res = await submit(job({ find: 'file', replace: 'not_a_level', record_type: 'archival_object', property: 'level' }));
      const { job: done, log } = await finished(res.body.uri);
      assert.equal(done.status, 'failed', log);
      assert.match(log, /nothing was changed/);
      assert.equal((await read(componentUris[2])).lock_version, before.lock_version);
    });

    it('refuses a bad submission with a 400 before queueing it, and a user without manage_repository with a 403', async () => {
      const missing = await submit({ jsonmodel_type: 'find_and_replace_job', replace: 'x', record_type: 'archival_object', property: 'title', base_record_uri: resourceUri });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body, { error: { find: ['Property is required but was missing'] } });
      assert.equal((await submit(job({ record_type: 'no_such_type' }))).status, 400);
      assert.equal((await submit(job({ property: 'no_such_property' }))).status, 400);
      assert.equal((await submit(job({ find: '/(unclosed/' }))).status, 400);
      assert.equal((await submit(job({ base_record_uri: `${base}/resources/99999` }))).status, 400);
      assert.equal((await submit(job({ base_record_uri: componentUris[0] }))).status, 400);
      assert.equal((await submit(job(), archivist)).status, 403);
    });

    it('stops when canceled, its transaction rolled back', async () => {
      const ctx = canceledContext(job({ find: 'Photographs', replace: 'Pictures' }));
      assert.equal(await findAndReplaceJob.run(ctx), 'canceled');
      assert.equal((await read(componentUris[2])).title, 'Photographs');
      assert.match(ctx.lines.join('\n'), /canceled: nothing was changed/);
    });
  });

  describe('print_to_pdf_job and container_labels_job', () => {
    it('makes the finding aid PDF of the resource as the job\'s output file', async () => {
      const res = await submit({ jsonmodel_type: 'print_to_pdf_job', source: resourceUri, include_unpublished: true }, archivist);
      assert.equal(res.status, 200, res.text);
      const { job, log } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.match(log, /Generating PDF for/);
      const files = (await t.http.get(`${res.body.uri}/output_files`).set(H)).body;
      assert.equal(files.length, 1);
      const pdf = await t.http.get(`${res.body.uri}/output_files/${files[0]}`).set(H).buffer(true).parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
      assert.equal(pdf.status, 200);
      assert.equal((pdf.body as Buffer).subarray(0, 5).toString(), '%PDF-');
    });

    it('makes the container labels as a TSV output file', async () => {
      const res = await submit({ jsonmodel_type: 'container_labels_job', source: resourceUri });
      const { job, log } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.match(log, /Generating Container Labels/);
      const files = (await t.http.get(`${res.body.uri}/output_files`).set(H)).body;
      const tsv = await t.http.get(`${res.body.uri}/output_files/${files[0]}`).set(H);
      assert.match(tsv.text, /^Repository Name\tResource Title/);
    });

    it('refuses a job without a resource as its source', async () => {
      const missing = await submit({ jsonmodel_type: 'print_to_pdf_job' });
      assert.deepEqual(missing.body, { error: { source: ['Property is required but was missing'] } });
      assert.equal((await submit({ jsonmodel_type: 'print_to_pdf_job', source: componentUris[0] })).status, 400);
      assert.equal((await submit({ jsonmodel_type: 'print_to_pdf_job', source: resourceUri, include_uris: 'yes' })).status, 400);
      assert.equal((await submit({ jsonmodel_type: 'container_labels_job', source: resourceUri, format: 'pdf' })).status, 400);
    });
  });

  describe('trim_whitespace_job', () => {
    it('trims the titles of the repository\'s records, each saved through the engine', async () => {
      const accession = await t.http.post(`${base}/accessions`).set(H).send({ ...sampleRecord('accession', repo), title: '\tAccession with tabs  ' });
      const res = await submit({ jsonmodel_type: 'trim_whitespace_job' });
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.match(log, /Trimming whitespace from Resource titles\n?.*1 records modified/s);
      assert.deepEqual(records.sort(), [resourceUri, accession.body.uri].sort());
      assert.equal((await read(resourceUri)).title, 'Papers of the Smith family');
      assert.equal((await read(accession.body.uri)).title, 'Accession with tabs');
      const again = await finished((await submit({ jsonmodel_type: 'trim_whitespace_job' })).body.uri);
      assert.match(again.log, /All done, no records modified/);
    });

    it('stops between records when canceled', async () => {
      const ctx = canceledContext({ jsonmodel_type: 'trim_whitespace_job' });
      assert.equal(await (trimWhitespaceJob as JobType).run(ctx), 'canceled');
    });
  });

  describe('ns2_remover_job', () => {
    let noted: string;
    before(async () => {
      const res = await t.http.post(`${base}/archival_objects`).set(H).send({
        title: 'Linked', level: 'file', resource: { ref: resourceUri },
        notes: [{ jsonmodel_type: 'note_multipart', type: 'scopecontent', subnotes: [{ jsonmodel_type: 'note_text', content: 'See <extref ns2:href="http://example.org" ns2:actuate="onRequest">this</extref>' }] }],
      });
      assert.equal(res.status, 200, res.text);
      noted = res.body.uri;
    });

    it('in a dry run shows what would change and changes nothing', async () => {
      const res = await submit({ jsonmodel_type: 'ns2_remover_job', dry_run: true });
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.match(log, /would become:/);
      assert.match(log, /1 note\(s\) would be modified\./);
      assert.match(log, /Dry run complete, no records modified\./);
      assert.deepEqual(records, []);
      assert.match(JSON.stringify((await read(noted)).notes), /ns2:href/);
    });

    it('removes the ns2: prefixes from notes', async () => {
      const res = await submit({ jsonmodel_type: 'ns2_remover_job' });
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.match(log, /1 note\(s\) modified\./);
      assert.deepEqual(records, [noted]);
      assert.equal((await read(noted)).notes[0].subnotes[0].content, 'See <extref href="http://example.org" actuate="onRequest">this</extref>');
    });

    it('needs administer_system, and a boolean dry_run', async () => {
      assert.equal((await submit({ jsonmodel_type: 'ns2_remover_job' }, archivist)).status, 403);
      assert.equal((await submit({ jsonmodel_type: 'ns2_remover_job', dry_run: 'no' })).status, 400);
    });
  });

  describe('generate_slugs_job', () => {
    it('gives every record without a slug of its own one made from its title, unique, findable by GET /slug', async () => {
      const manual = await t.http.post(`${base}/accessions`).set(H).send({ ...sampleRecord('accession', repo), title: 'Hand made', slug: 'photographs', is_slug_auto: false });
      assert.equal(manual.status, 200, manual.text);
      const res = await submit({ jsonmodel_type: 'generate_slugs_job' });
      assert.equal(res.status, 200, res.text);
      const { job, log } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.match(log, /Generating slugs for Resources\n?.*=+/s);
      assert.match(log, /-> Slug for resource id: \d+ => papers_of_the_smith_family/);
      assert.equal((await read(manual.body.uri)).slug, 'photographs', 'a slug set by hand is kept');
      const photographs = await read(componentUris[2]);
      assert.equal(photographs.slug, 'photographs_1');
      assert.equal(photographs.is_slug_auto, true);
      assert.equal((await read(`/repositories/${repo}`)).slug, 'jt');
      const found = await t.http.get('/slug').query({ slug: 'papers_of_the_smith_family', controller: 'resources', action: 'show' }).set(H);
      assert.equal(found.body.id, Number(resourceUri.split('/').pop()));
      // Run again: the same slugs, not new suffixes.
      const again = await finished((await submit({ jsonmodel_type: 'generate_slugs_job' })).body.uri);
      assert.equal(again.job.status, 'completed', again.log);
      assert.equal((await read(componentUris[2])).slug, 'photographs_1');
    });

    it('needs administer_system, and writes nothing when canceled', async () => {
      assert.equal((await submit({ jsonmodel_type: 'generate_slugs_job' }, archivist)).status, 403);
      const ctx = canceledContext({ jsonmodel_type: 'generate_slugs_job' });
      assert.equal(await generateSlugsJob.run(ctx), 'canceled');
    });
  });

  describe('generate_arks_job', () => {
    it('completes without minting (this server mints no ARKs) and says so; needs administer_system', async () => {
      const res = await submit({ jsonmodel_type: 'generate_arks_job' });
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed');
      assert.match(log, /ARK minting is not enabled/);
      assert.deepEqual(records, []);
      assert.equal((await submit({ jsonmodel_type: 'generate_arks_job' }, archivist)).status, 403);
    });
  });

  describe('resource_duplicate_job', () => {
    it('copies the resource with its whole tree, instances and links, under a new identifier, unpublished', async () => {
      const box = await t.http.post(`${base}/top_containers`).set(H).send({ indicator: 'Box 7' });
      assert.equal(box.status, 200, box.text);
      const nested = await t.http.post(`${base}/archival_objects`).set(H).send({
        title: 'A letter', level: 'item', resource: { ref: resourceUri }, parent: { ref: componentUris[0] },
        instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.body.uri } } }],
      });
      assert.equal(nested.status, 200, nested.text);
      const original = await read(resourceUri);
      const res = await submit({ jsonmodel_type: 'resource_duplicate_job', source: resourceUri });
      assert.equal(res.status, 200, res.text);
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.match(log, /Going to duplicate resource with id \d+\./);
      assert.match(log, /Successfully duplicated resource \d+ to resource \d+ \(5 component\(s\)\)/);
      assert.equal(records.length, 1);
      const copy = await read(records[0]);
      assert.equal(copy.id_0, `[Duplicated] ${original.id_0}`);
      assert.equal(copy.title, `[Duplicated] ${original.title}`);
      assert.equal(copy.publish, false);
      const tree = (await t.http.get(`${records[0]}/tree/root`).set(H)).body;
      assert.equal(tree.child_count, 4);
      const titles = (root: any) => root.precomputed_waypoints[''][0].map((node: any) => node.title);
      assert.deepEqual(titles(tree), titles((await t.http.get(`${resourceUri}/tree/root`).set(H)).body), 'the components in their order');
      const copies = (await t.http.get(`${base}/archival_objects`).query({ all_ids: true }).set(H)).body as number[];
      const copied: any[] = [];
      for (const id of copies) {
        const ao = await read(`${base}/archival_objects/${id}`);
        if (ao.resource.ref === records[0]) copied.push(ao);
      }
      assert.equal(copied.length, 5);
      const letter = copied.find((ao) => ao.title === 'A letter');
      assert.equal(letter.instances[0].sub_container.top_container.ref, box.body.uri);
      assert.ok(letter.parent.ref !== componentUris[0] && copied.some((ao) => ao.uri === letter.parent.ref), 'its parent is the copy of its parent');
      assert.notEqual(letter.ref_id, (await read(nested.body.uri)).ref_id);
      assert.equal((await read(resourceUri)).lock_version, original.lock_version, 'the original is untouched');
    });

    it('fails whole when the copy cannot be saved (its identifier is taken), and refuses bad submissions', async () => {
      const before = (await t.http.get(`${base}/resources`).query({ page: 1 }).set(H)).body.total;
      const res = await submit({ jsonmodel_type: 'resource_duplicate_job', source: resourceUri });
      const { job, log } = await finished(res.body.uri);
      assert.equal(job.status, 'failed', log);
      assert.match(log, /Job Failed\./);
      assert.equal((await t.http.get(`${base}/resources`).query({ page: 1 }).set(H)).body.total, before);
      assert.equal((await submit({ jsonmodel_type: 'resource_duplicate_job' })).status, 400);
      assert.equal((await submit({ jsonmodel_type: 'resource_duplicate_job', source: componentUris[0] })).status, 400);
      assert.equal((await t.http.get('/job_types').set(H)).body.resource_duplicate_job, undefined, 'hidden, as in ArchivesSpace');
    });

    it('copies nothing when canceled', async () => {
      const before = (await t.http.get(`${base}/resources`).query({ page: 1 }).set(H)).body.total;
      const ctx = canceledContext({ jsonmodel_type: 'resource_duplicate_job', source: resourceUri });
      assert.equal(await resourceDuplicateJob.run(ctx), 'canceled');
      assert.equal((await t.http.get(`${base}/resources`).query({ page: 1 }).set(H)).body.total, before);
    });
  });

  describe('container_conversion_job', () => {
    it('completes without changing anything, and says why', async () => {
      const res = await submit({ jsonmodel_type: 'container_conversion_job', format: 'csv' });
      assert.equal(res.status, 200, res.text);
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed');
      assert.match(log, /Nothing to convert/);
      assert.deepEqual(records, []);
      assert.equal((await submit({ jsonmodel_type: 'container_conversion_job' })).status, 400);
      assert.equal((await submit({ jsonmodel_type: 'container_conversion_job', format: 'csv' }, archivist)).status, 403);
    });
  });

  describe('import_job: location_csv', () => {
    const importLocations = (csv: string) => t.http.post(`${base}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'location_csv', filenames: ['locations.csv'] } }))
      .attach('files[]', Buffer.from(csv), 'locations.csv');

    it('creates a location per row, adding a temporary value missing from its list', async () => {
      const res = await importLocations('location_building,location_floor,location_room,location_barcode,location_coordinate_1_label,location_coordinate_1_indicator,location_temporary\n'
        + 'Main Library,2,201,LOC-0001,Shelf,12,\n"Annex, North",B,,LOC-0002,Range,3,conservation_lab\n');
      assert.equal(res.status, 200, res.text);
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.equal(records.length, 2);
      const annex = await read(records[1]);
      assert.equal(annex.building, 'Annex, North');
      assert.equal(annex.barcode, 'LOC-0002');
      assert.equal(annex.temporary, 'conservation_lab');
      assert.match(log, /added the value location_temporary: conservation_lab/);
    });

    it('fails the file, writing nothing, when a row is not a valid location, naming its line', async () => {
      const res = await importLocations('location_building,location_barcode\nMain,LOC-0003\n,LOC-0004\n');
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'failed', log);
      assert.match(log, /line 3/);
      assert.deepEqual(records, []);
      const bad = await importLocations('title,identifier\nx,y\n');
      const failed = await finished(bad.body.uri);
      assert.match(failed.log, /is this a location CSV\?/);
    });
  });

  describe('import_job: subject_csv', () => {
    it('creates a subject per row with its terms in order, an external document and a rights declaration', async () => {
      const csv = 'subject_source,subject_authority_id,term_1,term_type_1,term_2,term_type_2,external_document_title,external_document_location,external_document_publish,md_rights_dec_license\n'
        + 'lcsh,sh85000001,Quilting,topical,Ohio,geographic,LC record,http://id.loc.gov/x,yes,public_domain\n'
        + 'local,,Glass beads,topical,,,,,,\n';
      const res = await t.http.post(`${base}/jobs_with_files`).set(H)
        .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'subject_csv', filenames: ['subjects.csv'] } }))
        .attach('files[]', Buffer.from(csv), 'subjects.csv');
      assert.equal(res.status, 200, res.text);
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.equal(records.length, 2);
      const quilting = await read(records[0]);
      assert.equal(quilting.title, 'Quilting -- Ohio');
      assert.deepEqual(quilting.terms.map((term: any) => term.term_type), ['topical', 'geographic']);
      assert.equal(quilting.authority_id, 'sh85000001');
      assert.equal(quilting.external_documents[0].publish, true);
      assert.equal(quilting.metadata_rights_declarations[0].license, 'public_domain');
      assert.deepEqual((await t.http.get(`${base}/jobs/import_types`).set(H)).body.map((i: any) => i.name).slice(6, 8), ['location_csv', 'subject_csv']);
    });
  });

  describe('import_job: marcxml_subjects_and_agents', () => {
    it('writes the subjects and agents of the MARC records, not the records themselves', async () => {
      const before = (await t.http.get(`${base}/resources`).query({ page: 1 }).set(H)).body.total;
      const res = await t.http.post(`${base}/jobs_with_files`).set(H)
        .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'marcxml_subjects_and_agents', filenames: ['morse.xml'] } }))
        .attach('files[]', fs.readFileSync(MORSE), 'morse.xml');
      assert.equal(res.status, 200, res.text);
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      assert.ok(records.length > 0, log);
      assert.ok(records.every((uri: string) => /^\/(subjects|agents)\//.test(uri)), JSON.stringify(records));
      assert.equal((await t.http.get(`${base}/resources`).query({ page: 1 }).set(H)).body.total, before);
    });
  });

  describe('import_job: marcxml_accession', () => {
    it('makes an accession of each MARC record, its 506 and 520 in the accession\'s own fields, no notes', async () => {
      const res = await t.http.post(`${base}/jobs_with_files`).set(H)
        .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'marcxml_accession', filenames: ['morse.xml'] } }))
        .attach('files[]', fs.readFileSync(MORSE), 'morse.xml');
      assert.equal(res.status, 200, res.text);
      const { job, log, records } = await finished(res.body.uri);
      assert.equal(job.status, 'completed', log);
      const accessionUri = records.find((uri: string) => /\/accessions\/\d+$/.test(uri));
      assert.ok(accessionUri, JSON.stringify(records));
      assert.ok(!records.some((uri: string) => /\/resources\//.test(uri)));
      const accession = await read(accessionUri);
      assert.match(accession.title, /Morse/);
      assert.equal(accession.accession_date, new Date().toISOString().slice(0, 10));
      assert.ok(accession.access_restrictions_note && accession.content_description, JSON.stringify(accession));
      assert.ok(accession.subjects.length > 0 && accession.linked_agents.length > 0);
    });
  });

  describe('cancel permissions', () => {
    it('a queued job is canceled only by a user with its type\'s cancel permissions', async () => {
      await t.services.jobs!.stop();
      const queued = await submit({ jsonmodel_type: 'find_and_replace_job', find: 'a', replace: 'b', record_type: 'archival_object', property: 'title', base_record_uri: resourceUri });
      assert.equal((await t.http.post(`${queued.body.uri}/cancel`).set(archivist)).status, 403);
      assert.equal((await read(queued.body.uri)).status, 'queued');
      assert.equal((await t.http.post(`${queued.body.uri}/cancel`).set(H)).status, 200);
      assert.equal((await read(queued.body.uri)).status, 'canceled');
      const pdf = await submit({ jsonmodel_type: 'print_to_pdf_job', source: resourceUri }, archivist);
      assert.equal((await t.http.post(`${pdf.body.uri}/cancel`).set(archivist)).status, 200);
    });
  });
});
