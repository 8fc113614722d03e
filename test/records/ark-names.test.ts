import assert from 'node:assert/strict';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/** …/ark_name of resources and archival objects: read and asserted by an administrator, kept by ordinary updates. */
describe(`ARK names (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'ARK');
  });
  after(() => t?.close());

  it('sets, reads and keeps the ARK of a resource and of an archival object; refuses a value that is no ARK', async () => {
    const resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send({
      id_0: 'ARK-1', title: 'With an ARK', level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }],
      extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng' } }],
      finding_aid_language: 'eng', finding_aid_script: 'Latn',
    })).body.uri as string;
    const ao = (await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'Part', level: 'file', resource: { ref: resource } })).body.uri as string;
    for (const uri of [resource, ao]) {
      const none = await t.http.get(`${uri}/ark_name`).set(H);
      assert.equal(none.status, 200, none.text);
      assert.equal(none.body, null);
      const ark = { jsonmodel_type: 'ark_name', current: 'ark:/99999/fk4new', previous: ['https://n2t.net/ark:/99999/fk4old'] };
      const set = await t.http.post(`${uri}/ark_name`).set(H).send(ark);
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body, { status: 'Updated' });
      assert.deepEqual((await t.http.get(`${uri}/ark_name`).set(H)).body, { jsonmodel_type: 'ark_name', current: 'ark:/99999/fk4new', previous: ['https://n2t.net/ark:/99999/fk4old'] });
      const plural = uri.split('/')[3];
      const found = (await t.http.get(`/repositories/${repo}/find_by_id/${plural}`).query({ 'ark[]': 'ark:/99999/fk4new' }).set(H)).body;
      assert.deepEqual(found[plural], [{ ref: uri }], 'find_by_id finds it by its current ARK');
      const record = (await t.http.get(uri).set(H)).body;
      assert.equal(record.ark_name.current, 'ark:/99999/fk4new');
      // An ordinary update, which cannot send it, keeps it.
      const { ark_name: _dropped, ...rest } = record;
      assert.equal((await t.http.post(uri).set(H).send({ ...rest, title: 'Renamed' })).status, 200);
      assert.equal((await t.http.get(`${uri}/ark_name`).set(H)).body.current, 'ark:/99999/fk4new');
      const bad = await t.http.post(`${uri}/ark_name`).set(H).send({ current: 'not-an-ark', previous: [] });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(bad.body.error, { ark: ['ark_format_error'] });
      const external = await t.http.post(`${uri}/ark_name`).set(H).send({ current: 'https://example.org/item/1', current_is_external: true, previous: [] });
      assert.equal(external.status, 200, external.text);
    }
    assert.equal((await t.http.get(`/repositories/${repo}/resources/99999/ark_name`).set(H)).status, 404);
    // administer_system only.
    const viewers = (await t.http.get(`/repositories/${repo}/groups`).query({ group_code: 'repository-managers' }).set(H)).body[0].uri;
    await t.http.post('/users').query({ password: 'pw', 'groups[]': [viewers] }).set(H).send({ username: 'ark-manager', name: 'M' }).expect(200);
    const manager = { 'X-ArchivesSpace-Session': (await t.http.post('/users/ark-manager/login').query({ password: 'pw' })).body.session };
    assert.equal((await t.http.get(`${resource}/ark_name`).set(manager)).status, 403);
    assert.equal((await t.http.post(`${resource}/ark_name`).set(manager).send({ current: 'ark:/1/2', previous: [] })).status, 403);
  });
});
