import assert from 'node:assert/strict';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

describe(`generic record API (${STORE})`, () => {
  let t: TestApp;
  let token: string;
  let repo: number;
  const auth = () => ({ 'X-ArchivesSpace-Session': token });

  before(async () => {
    t = await startTestApp();
    token = await t.adminToken();
    repo = await createRepository(t, 'MSS');
  });
  after(async () => t.close());

  async function createAccession(body: Record<string, unknown>) {
    return t.http.post(`/repositories/${repo}/accessions`).set(auth()).send(body);
  }

  describe('create, read, update, delete', () => {
    it('creates an accession and answers the write response shape', async () => {
      const res = await createAccession({ id_0: 'A1', title: 'Papers of A' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.ok(res.text.endsWith('\n'));
      assert.deepEqual(Object.keys(res.body), ['status', 'id', 'lock_version', 'stale', 'uri', 'warnings']);
      assert.equal(res.body.status, 'Created');
      assert.equal(res.body.lock_version, 0);
      assert.equal(res.body.stale, null);
      assert.deepEqual(res.body.warnings, []);
      assert.equal(res.body.uri, `/repositories/${repo}/accessions/${res.body.id}`);
    });

    it('serves text beyond ASCII byte for byte in a record, a page, an id_set and an unpaged listing', async () => {
      const title = 'Café – Ōsaka 東京 🗺 "quoted" \\ end';
      const made = await createAccession({ id_0: 'UTF', title });
      assert.equal(made.status, 200, made.text);
      const one = await t.http.get(made.body.uri).set(auth());
      assert.equal(one.body.title, title);
      // Written as the stored text and then its newline: the length counts the UTF-8 bytes of both.
      assert.ok(one.text.endsWith('}\n'));
      assert.equal(Buffer.byteLength(one.text), Number(one.headers['content-length']));
      const page = await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1, page_size: 250 }).set(auth());
      assert.equal(page.headers['content-type'], 'application/json; charset=utf-8');
      assert.ok(page.text.endsWith('}\n'));
      assert.equal(page.body.results.find((r: any) => r.uri === made.body.uri).title, title);
      const set = await t.http.get(`/repositories/${repo}/accessions`).query({ 'id_set[]': [made.body.id] }).set(auth());
      assert.deepEqual(set.body.map((r: any) => r.title), [title]);
      assert.equal(Buffer.byteLength(set.text), Number(set.headers['content-length']));
    });

    it('sets the system fields itself and ignores values sent for them', async () => {
      const res = await createAccession({
        id_0: 'A2', title: 'T', uri: '/repositories/99/accessions/5', lock_version: 7,
        create_time: '1999-01-01T00:00:00Z', created_by: 'mallory', display_string: 'x', jsonmodel_type: 'subject',
      });
      assert.equal(res.status, 200);
      const got = await t.http.get(res.body.uri).set(auth());
      assert.equal(got.status, 200);
      assert.equal(got.body.uri, res.body.uri);
      assert.equal(got.body.lock_version, 0);
      assert.equal(got.body.jsonmodel_type, 'accession');
      assert.equal(got.body.created_by, 'admin');
      assert.equal(got.body.last_modified_by, 'admin');
      assert.notEqual(got.body.create_time, '1999-01-01T00:00:00Z');
      assert.match(got.body.create_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.match(got.body.system_mtime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(got.body.repository, { ref: `/repositories/${repo}` });
      assert.equal(got.body.display_string, 'T'); // generated from the title, not the 'x' sent
    });

    it('drops null, empty strings, empty objects and unknown properties; fills defaults', async () => {
      const res = await createAccession({ id_0: 'A3', id_1: '', title: null, content_description: 'c', bogus: 1, user_defined: {}, dates: [] });
      assert.equal(res.status, 200);
      const got = await t.http.get(res.body.uri).set(auth());
      assert.equal('id_1' in got.body, false);
      assert.equal('title' in got.body, false);
      assert.equal('bogus' in got.body, false);
      assert.equal('user_defined' in got.body, false);
      assert.deepEqual(got.body.dates, []);
      assert.deepEqual(got.body.extents, []);
      assert.equal(got.body.is_slug_auto, true);
      assert.equal(got.body.accession_date, '9999-12-31');
      const values = JSON.stringify(got.body);
      assert.equal(values.includes('null'), false);
      assert.equal(values.includes('""'), false);
    });

    it('updates with the latest lock_version and bumps it; the update replaces the whole record', async () => {
      const created = await createAccession({ id_0: 'U1', title: 'Before', content_description: 'gone after update' });
      const got = await t.http.get(created.body.uri).set(auth());
      const { content_description: _dropped, ...rest } = got.body;
      const updated = await t.http.post(created.body.uri).set(auth()).send({ ...rest, title: 'After' });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.status, 'Updated');
      assert.equal(updated.body.lock_version, 1);
      assert.equal(updated.body.id, created.body.id);
      const after = await t.http.get(created.body.uri).set(auth());
      assert.equal(after.body.title, 'After');
      assert.equal(after.body.lock_version, 1);
      assert.equal(after.body.content_description, undefined);
      assert.equal(after.body.create_time, got.body.create_time);
    });

    it('refuses a stale lock_version with 409 and changes nothing', async () => {
      const created = await createAccession({ id_0: 'S1', title: 'One' });
      const first = await t.http.post(created.body.uri).set(auth()).send({ id_0: 'S1', title: 'Two', lock_version: 0 });
      assert.equal(first.status, 200);
      const stale = await t.http.post(created.body.uri).set(auth()).send({ id_0: 'S1', title: 'Three', lock_version: 0 });
      assert.equal(stale.status, 409);
      assert.deepEqual(stale.body, { error: 'The record you tried to update has been modified since you fetched it.' });
      const got = await t.http.get(created.body.uri).set(auth());
      assert.equal(got.body.title, 'Two');
      assert.equal(got.body.lock_version, 1);
    });

    it('refuses an update without lock_version (absent, null or "") with 409', async () => {
      const created = await createAccession({ id_0: 'L1' });
      for (const body of [{ id_0: 'L1' }, { id_0: 'L1', lock_version: null }, { id_0: 'L1', lock_version: '' }]) {
        const res = await t.http.post(created.body.uri).set(auth()).send(body);
        assert.equal(res.status, 409);
        assert.deepEqual(res.body, { error: 'You must provide a lock_version in your request' });
      }
    });

    it('deletes a record: {status: Deleted, id}; then it is 404', async () => {
      const created = await createAccession({ id_0: 'D1' });
      const res = await t.http.delete(created.body.uri).set(auth());
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { status: 'Deleted', id: created.body.id });
      const gone = await t.http.get(created.body.uri).set(auth());
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { error: 'Accession not found' });
      const again = await t.http.delete(created.body.uri).set(auth());
      assert.equal(again.status, 404);
    });

    it('gives each type its own id sequence', async () => {
      const subject = await t.http.post('/subjects').set(auth()).send({
        source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Seq', term_type: 'topical', vocabulary: '/vocabularies/1' }],
      });
      assert.equal(subject.status, 200, subject.text);
      assert.equal(subject.body.id, 1);
      assert.ok((await createAccession({ id_0: 'SEQ' })).body.id > 1);
    });
  });

  describe('errors', () => {
    it('answers a schema validation failure with 400 {error, warning, invalid_object}', async () => {
      const res = await createAccession({ title: 'x'.repeat(8193), dates: [{ date_type: 'single' }], extents: 'many' });
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.body), ['error', 'warning', 'invalid_object']);
      assert.deepEqual(res.body.error.id_0, ['Property is required but was missing']);
      assert.deepEqual(res.body.error.title, ['Must be 8192 characters or fewer']);
      assert.deepEqual(res.body.error.extents, ['Must be a array (you provided a String)']);
      assert.deepEqual(res.body.error['dates/0/label'], ['Property is required but was missing']);
      assert.deepEqual(res.body.warning, {});
      assert.match(res.body.invalid_object, /^#<JSONModel\(:accession\) /);
    });

    it('reports bad values of value lists, dates and reference URIs with the reference messages', async () => {
      const res = await createAccession({
        id_0: 'V1',
        acquisition_type: 'stolen',
        accession_date: '2024-13-45',
        subjects: [{ ref: '/nonsense/1' }],
        related_accessions: [{ jsonmodel_type: 'date' }],
      });
      assert.equal(res.status, 400);
      assert.match(res.body.error.acquisition_type[0], /^Invalid value 'stolen'\. {2}Must be one of: deposit, gift, purchase, transfer$/);
      assert.deepEqual(res.body.error.accession_date, ['Not a valid date']);
      assert.deepEqual(res.body.error['subjects/0/ref'], [
        'Must be a JSONModel(:subject) uri (you provided a String) (malformed or invalid uri? check if referenced object exists.)',
      ]);
      assert.match(res.body.error['related_accessions/0'][0], /^Must be one of: JSONModel\(:accession_parts_relationship\) object/);
    });

    it('runs the custom rules (identifier gaps)', async () => {
      const res = await createAccession({ id_0: 'G', id_2: 'gap' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.error, { identifier: ['must not contain blank entries'] });
    });

    it('answers a unique key clash with 400 and the reference message, and keeps the first record', async () => {
      const first = await createAccession({ id_0: 'DUP', id_1: '1' });
      assert.equal(first.status, 200);
      const clash = await createAccession({ id_0: 'DUP', id_1: '1', title: 'second' });
      assert.equal(clash.status, 400);
      assert.deepEqual(clash.body, { error: { id_0: ['That ID is already in use'] } });
      const list = await t.http.get(`/repositories/${repo}/accessions`).query({ all_ids: true }).set(auth());
      assert.equal(list.body.filter((id: number) => id === first.body.id + 1).length, 0);
      // An update may keep its own identifier, but not take another record's.
      const other = await createAccession({ id_0: 'DUP', id_1: '2' });
      const steal = await t.http.post(other.body.uri).set(auth()).send({ id_0: 'DUP', id_1: '1', lock_version: 0 });
      assert.equal(steal.status, 400);
      assert.deepEqual(steal.body, { error: { id_0: ['That ID is already in use'] } });
      const keep = await t.http.post(other.body.uri).set(auth()).send({ id_0: 'DUP', id_1: '2', title: 'ok', lock_version: 0 });
      assert.equal(keep.status, 200);
    });

    it('names the conflicting record for subjects', async () => {
      const body = { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Maps', term_type: 'topical', vocabulary: '/vocabularies/1' }] };
      const first = await t.http.post('/subjects').set(auth()).send(body);
      assert.equal(first.status, 200);
      const clash = await t.http.post('/subjects').set(auth()).send(body);
      assert.equal(clash.status, 400);
      assert.deepEqual(clash.body, { error: { terms: ['Subject must be unique'], conflicting_record: [first.body.uri] } });
    });

    it('answers 404 "<Model> not found" for an unknown id and for a record of another repository', async () => {
      const other = await createRepository(t, 'OTHER');
      const created = await createAccession({ id_0: 'X1' });
      const wrongRepo = await t.http.get(`/repositories/${other}/accessions/${created.body.id}`).set(auth());
      assert.equal(wrongRepo.status, 404);
      assert.deepEqual(wrongRepo.body, { error: 'Accession not found' });
      const missing = await t.http.get('/subjects/99999');
      assert.deepEqual([missing.status, missing.body], [404, { error: 'Subject not found' }]);
      const profile = await t.http.get('/location_profiles/424242');
      assert.deepEqual([profile.status, profile.body], [404, { error: 'LocationProfile not found' }]);
    });

    it('answers 400 for a repository in the path that does not exist (not 404)', async () => {
      for (const path of ['/repositories/9999/accessions/1', '/repositories/abc/accessions?page=1']) {
        const res = await t.http.get(path).set(auth());
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { error: { repo_id: ['Failed validation -- The Repository must exist'] } });
      }
    });

    it('refuses archival records in the global repository', async () => {
      const res = await t.http.post('/repositories/1/accessions').set(auth()).send({ id_0: 'G1' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: 'The global repository cannot contain archival records' });
    });

    it('answers malformed JSON with 400 "Had some trouble parsing your request"', async () => {
      for (const text of ['{"id_0": ', '', '[1,2]']) {
        const res = await t.http.post(`/repositories/${repo}/accessions`).set(auth()).set('Content-Type', 'application/json').send(text);
        assert.equal(res.status, 400, text);
        assert.match(res.body.error, /^Had some trouble parsing your request: /);
      }
    });

    it('accepts a JSON body whatever its content type (the staff UI sends text/json)', async () => {
      const res = await t.http.post(`/repositories/${repo}/accessions`).set(auth()).set('Content-Type', 'text/json').send('{"id_0":"TJ"}');
      assert.equal(res.status, 200);
    });

    it('answers an id that is not an integer with 400 "Wanted type Integer"', async () => {
      const res = await t.http.get(`/repositories/${repo}/accessions/abc`).set(auth());
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: { id: ["Wanted type Integer but got 'abc'"] } });
    });

    it('answers unknown routes, unsupported methods and trailing slashes with 404 Sinatra::NotFound', async () => {
      for (const [method, path] of [['get', '/nowhere'], ['put', `/repositories/${repo}/accessions/1`], ['get', '/repositories/']] as const) {
        const res = await t.http[method](path).set(auth());
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.deepEqual(res.body, { error: 'Sinatra::NotFound' });
      }
    });
  });

  describe('references between records', () => {
    async function subject(term: string) {
      const res = await t.http.post('/subjects').set(auth()).send({
        source: 'local', vocabulary: '/vocabularies/1', terms: [{ term, term_type: 'topical', vocabulary: '/vocabularies/1' }],
      });
      assert.equal(res.status, 200, res.text);
      return res.body.uri as string;
    }

    it('refuses a link to a record that does not exist', async () => {
      const res = await createAccession({ id_0: 'REF1', subjects: [{ ref: '/subjects/987654' }] });
      assert.deepEqual([res.status, res.body], [400, { error: "Can't relate to non-existent record: /subjects/987654" }]);
    });

    it('refuses a link to a record of another repository', async () => {
      const other = await createRepository(t, 'ELSEWHERE');
      const foreign = await t.http.post(`/repositories/${other}/accessions`).set(auth()).send({ id_0: 'F1' });
      const res = await createAccession({ id_0: 'REF2', related_accessions: [{ jsonmodel_type: 'accession_sibling_relationship', relator: 'sibling_of', relator_type: 'bound_with', ref: foreign.body.uri }] });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, { error: `Invalid URI reference for this (${repo}) repo: '${foreign.body.uri}'` });
    });

    it('removes the links to a deleted subject from the records that held them', async () => {
      const keep = await subject('Kept');
      const gone = await subject('Gone');
      const acc = await createAccession({ id_0: 'REF3', subjects: [{ ref: keep }, { ref: gone }] });
      assert.equal(acc.status, 200, acc.text);
      await t.http.delete(gone).set(auth()).expect(200);
      const got = await t.http.get(acc.body.uri).set(auth());
      assert.deepEqual(got.body.subjects, [{ ref: keep }]);
      assert.equal(got.body.lock_version, 1);
    });

    it('refuses to delete a location that a top container uses (409), and deletes it once unlinked', async () => {
      const loc = await t.http.post('/locations').set(auth()).send({ building: 'Stack', barcode: `LOC-${Date.now()}` });
      const box = await t.http.post(`/repositories/${repo}/top_containers`).set(auth()).send({
        indicator: '1', container_locations: [{ jsonmodel_type: 'container_location', status: 'current', start_date: '2024-01-01', ref: loc.body.uri }],
      });
      assert.equal(box.status, 200, box.text);
      const refused = await t.http.delete(loc.body.uri).set(auth());
      assert.deepEqual([refused.status, refused.body], [409, { error: 'Location cannot be deleted if linked' }]);
      await t.http.delete(box.body.uri).set(auth()).expect(200);
      await t.http.delete(loc.body.uri).set(auth()).expect(200);
    });

    it('removes the instances that point at a deleted top container', async () => {
      const box = await t.http.post(`/repositories/${repo}/top_containers`).set(auth()).send({ indicator: '2' });
      const acc = await createAccession({
        id_0: 'REF4',
        instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.body.uri } } }],
      });
      assert.equal(acc.status, 200, acc.text);
      await t.http.delete(box.body.uri).set(auth()).expect(200);
      const got = await t.http.get(acc.body.uri).set(auth());
      assert.deepEqual(got.body.instances, []);
    });
  });

  describe('global types and the system routes', () => {
    it('serves vocabularies, locations and both profiles through the same mechanism', async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ['/vocabularies', { ref_id: 'lcsh', name: 'LCSH' }],
        ['/location_profiles', { name: 'Shelf', dimension_units: 'inches', depth: '10', height: '12', width: '30' }],
        ['/container_profiles', { name: 'Box', dimension_units: 'inches', extent_dimension: 'width', depth: '15', height: '10', width: '5' }],
        ['/locations', { building: 'Main', barcode: 'L-1' }],
      ];
      for (const [path, body] of cases) {
        const created = await t.http.post(path).set(auth()).send(body);
        assert.equal(created.status, 200, `${path}: ${created.text}`);
        assert.equal(created.body.uri, `${path}/${created.body.id}`);
        const got = await t.http.get(created.body.uri);
        assert.equal(got.status, 200);
        const updated = await t.http.post(created.body.uri).set(auth()).send({ ...got.body });
        assert.equal(updated.status, 200, updated.text);
        assert.equal(updated.body.lock_version, 1);
      }
    });

    it('applies the type-specific custom checks (a location needs a barcode, classification or coordinate)', async () => {
      const res = await t.http.post('/locations').set(auth()).send({ building: 'Annex' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.error, { coded_errors: ['location_fields_error'] });
    });

    it('lists repositories as a plain array without the hidden global repository; GET /repositories/1 still works', async () => {
      const res = await t.http.get('/repositories');
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(res.body));
      assert.ok(res.body.every((r: { uri: string }) => r.uri !== '/repositories/1'));
      assert.ok(res.body.some((r: { repo_code: string }) => r.repo_code === 'MSS'));
      const global = await t.http.get('/repositories/1');
      assert.equal(global.body.repo_code, '_archivesspace');
    });

    it('gives the first user-created repository id 2', async () => {
      const res = await t.http.get('/repositories/2');
      assert.equal(res.body.repo_code, 'MSS');
    });

    it('refuses a duplicate repo_code', async () => {
      const res = await t.http.post('/repositories').set(auth()).send({ repo_code: 'MSS', name: 'again' });
      assert.deepEqual([res.status, res.body], [400, { error: { repo_code: ['short name already in use'] } }]);
    });

    it('deletes a repository together with its records', async () => {
      const doomed = await createRepository(t, 'DOOMED');
      const acc = await t.http.post(`/repositories/${doomed}/accessions`).set(auth()).send({ id_0: 'Z' });
      assert.equal(acc.status, 200);
      const del = await t.http.delete(`/repositories/${doomed}`).set(auth());
      assert.deepEqual(del.body, { status: 'Deleted', id: doomed });
      const gone = await t.http.get(`/repositories/${doomed}/accessions/${acc.body.id}`).set(auth());
      assert.equal(gone.status, 400);
      const rows = await t.services.db.knex('records').where({ repo_id: doomed });
      assert.equal(rows.length, 0);
    });

    it('answers GET / with system information and GET /version in plain text', async () => {
      const root = await t.http.get('/');
      assert.equal(root.status, 200);
      assert.equal(JSON.parse(root.text).databaseProductName, STORE === 'sqlite' ? 'SQLite' : 'MySQL');
      const version = await t.http.get('/version');
      assert.equal(version.status, 200);
      assert.match(version.text, /^ArchivesSpace \(.+\)$/);
    });

    it('resolves references with resolve[]', async () => {
      const subject = await t.http.post('/subjects').set(auth()).send({
        source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Resolved', term_type: 'topical', vocabulary: '/vocabularies/1' }],
      });
      const acc = await createAccession({ id_0: 'RES', subjects: [{ ref: subject.body.uri }] });
      const plain = await t.http.get(acc.body.uri).set(auth());
      assert.equal(plain.body.subjects[0]._resolved, undefined);
      // HEAD: the GET's status and length, no body.
      const head = await t.http.head(acc.body.uri).set(auth());
      assert.equal(head.status, 200);
      assert.equal(Number(head.headers['content-length']), Buffer.byteLength(plain.text));
      assert.equal(head.text, undefined);
      const resolved = await t.http.get(acc.body.uri).query({ 'resolve[]': 'subjects' }).set(auth());
      assert.equal(resolved.body.subjects[0]._resolved.uri, subject.body.uri);
      assert.equal(resolved.body.subjects[0]._resolved.terms[0].term, 'Resolved');
      // A linked record read once is read again after a write: an edited subject resolves as edited.
      const stored = (await t.http.get(subject.body.uri).set(auth())).body;
      const edited = await t.http.post(subject.body.uri).set(auth()).send({ ...stored, terms: [{ ...stored.terms[0], term: 'Edited' }] });
      assert.equal(edited.status, 200, edited.text);
      const again = await t.http.get(acc.body.uri).query({ 'resolve[]': 'subjects' }).set(auth());
      assert.equal(again.body.subjects[0]._resolved.terms[0].term, 'Edited');
      assert.equal(again.body.subjects[0]._resolved.lock_version, 1);
      // Each path resolves the record's own links: a resolved record comes as its own GET returns
      // it, whatever other paths the request names and in whichever order (and a kept linked record is never written into).
      const resource = await t.http.post(`/repositories/${repo}/resources`).set(auth()).send({
        id_0: 'RESRES', title: 'Resolved papers', level: 'collection', subjects: [{ ref: subject.body.uri }],
        dates: [{ date_type: 'single', label: 'creation', begin: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
        lang_materials: [{ language_and_script: { language: 'eng' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn',
      });
      assert.equal(resource.status, 200, resource.text);
      const ao = await t.http.post(`/repositories/${repo}/archival_objects`).set(auth()).send({
        title: 'A file', level: 'file', resource: { ref: resource.body.uri }, subjects: [{ ref: subject.body.uri }],
      });
      assert.equal(ao.status, 200, ao.text);
      for (const order of [['resource', 'subjects'], ['subjects', 'resource']]) {
        const both = await t.http.get(ao.body.uri).query({ 'resolve[]': order }).set(auth());
        assert.equal(both.status, 200, both.text);
        assert.equal(both.body.subjects[0]._resolved.uri, subject.body.uri, order.join());
        assert.equal(both.body.resource._resolved.uri, resource.body.uri, order.join());
        assert.equal(both.body.resource._resolved.subjects[0]._resolved, undefined, order.join());
      }
      const own = await t.http.get(ao.body.uri).query({ 'resolve[]': 'resource' }).set(auth());
      assert.deepEqual(own.body.resource._resolved.subjects, [{ ref: subject.body.uri }]);
      const deeper = await t.http.get(ao.body.uri).query({ 'resolve[]': 'resource::subjects' }).set(auth());
      assert.equal(deeper.body.resource._resolved.subjects[0]._resolved.uri, subject.body.uri);
      assert.equal(deeper.body.subjects[0]._resolved, undefined);
      const scalar = await t.http.get(acc.body.uri).query({ resolve: 'subjects' }).set(auth());
      assert.equal(scalar.status, 400);
      assert.deepEqual(scalar.body.error.resolve, [
        "Wanted type [String] but got 'subjects'.  Perhaps you meant to specify an array like: resolve[]=subjects",
      ]);
    });
  });
});
