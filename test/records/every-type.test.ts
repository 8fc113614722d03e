import assert from 'node:assert/strict';
import { loadRegistry } from '../../src/registry';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * One suite, generated from the registry: every routed record type goes through create, get,
 * update with lock_version, stale update, listing in all three modes, resolve[] and delete.
 */
const routed = loadRegistry().routedTypes();

describe(`every routed record type (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'EVERY');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    // Targets that the samples link to.
    await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo)).expect(200);
    await t.http.post(`/repositories/${repo}/digital_objects`).set(H).send(sampleRecord('digital_object', repo)).expect(200);
    await t.http.post(`/repositories/${repo}/accessions`).set(H).send(sampleRecord('accession', repo)).expect(200);
    await t.http.post('/agents/people').set(H).send(sampleRecord('agent_person', repo)).expect(200);
    await t.http.post(`/repositories/${repo}/classifications`).set(H).send(sampleRecord('classification', repo)).expect(200);
  });
  after(async () => t.close());

  for (const type of routed) {
    describe(type.name, () => {
      const base = () => type.uri!.replace(':repo_id', String(repo));

      it('creates, reads, updates with lock_version, refuses a stale update, lists in every mode, deletes', async () => {
        const created = await t.http.post(base()).set(H).send(sampleRecord(type.name, repo));
        assert.equal(created.status, 200, created.text);
        assert.equal(created.body.status, 'Created');
        const uri: string = created.body.uri;
        const id: number = created.body.id;
        assert.equal(uri, `${base()}/${id}`);

        const got = await t.http.get(uri).set(H);
        assert.equal(got.status, 200);
        assert.equal(got.body.jsonmodel_type, type.name);
        assert.equal(got.body.lock_version, 0);

        const updated = await t.http.post(uri).set(H).send(got.body);
        assert.equal(updated.status, 200, updated.text);
        assert.equal(updated.body.lock_version, 1);
        const stale = await t.http.post(uri).set(H).send(got.body);
        assert.equal(stale.status, 409);

        if (type.listing === 'unlimited') {
          const all = await t.http.get(base()).set(H);
          assert.ok(all.body.some((r: { uri: string }) => r.uri === uri));
        } else {
          const page = await t.http.get(base()).query({ page: 1, page_size: 250 }).set(H);
          assert.ok(page.body.results.some((r: { uri: string }) => r.uri === uri));
          const ids = await t.http.get(base()).query({ all_ids: true }).set(H);
          assert.ok(ids.body.includes(id));
          const set = await t.http.get(base()).query({ id_set: String(id) }).set(H);
          assert.deepEqual(set.body.map((r: { uri: string }) => r.uri), [uri]);
        }

        if (type.scope === 'repository') {
          const resolved = await t.http.get(uri).query({ 'resolve[]': 'repository' }).set(H);
          assert.equal(resolved.body.repository._resolved.uri, `/repositories/${repo}`);
        }

        if (type.permissions!.delete !== null) {
          const deleted = await t.http.delete(uri).set(H);
          assert.deepEqual(deleted.body, { status: 'Deleted', id });
          const gone = await t.http.get(uri).set(H);
          assert.deepEqual([gone.status, gone.body], [404, { error: `${type.model} not found` }]);
        }
      });

      it('answers a body of the wrong shape with 400 and the reference messages', async () => {
        const res = await t.http.post(base()).set(H).send({ lock_version: 'x', uri: 5, bogus: true, [Object.keys(type.props)[1]]: { not: 'valid' } });
        assert.equal(res.status, 400, res.text);
        assert.ok(res.body.error && typeof res.body.error === 'object', res.text);
        assert.deepEqual(res.body.warning !== undefined, true);
      });
    });
  }
});
