import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * Node 20 runs a hook on every promise of the process once any AsyncLocalStorage has been used
 * (about a seventh of a GET's CPU, issue 51): what a request or job needs along its way (its read
 * scope, who writes, MySQL's batched transaction) is handed along instead. This fails when code of
 * ours or of a dependency starts using one on the way of a request or a job.
 */
describe(`no async context on a request's or job's way (${STORE})`, () => {
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  const used: string[] = [];
  const proto = AsyncLocalStorage.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = { run: proto.run, enterWith: proto.enterWith };

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t);
    for (const name of ['run', 'enterWith'] as const) {
      proto[name] = function (this: unknown, ...args: unknown[]) {
        used.push(`${name}: ${new Error().stack?.split('\n').slice(2, 5).join(' / ')}`);
        return originals[name].apply(this, args);
      };
    }
  });
  after(async () => {
    Object.assign(proto, originals);
    await t?.close();
  });

  it('writes, reads with resolve[], lists, searches, deletes and runs a job without one', async () => {
    const subject = (await t.http.post('/subjects').set(H).send(sampleRecord('subject', repo)).expect(200)).body;
    const made = await Promise.all([1, 2, 3].map(async (i) =>
      (await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), title: `Smith ${i}`, subjects: [{ ref: subject.uri }] }).expect(200)).body));
    const current = (await t.http.get(made[0].uri).query({ 'resolve[]': 'subjects' }).set(H).expect(200)).body;
    assert.equal(current.subjects[0]._resolved.uri, subject.uri);
    await t.http.post(made[0].uri).set(H).send({ ...current, title: 'Changed' }).expect(200);
    await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1 }).set(H).expect(200);
    await t.http.get(`/repositories/${repo}/search`).query({ q: 'Smith', page: 1 }).set(H).expect(200);
    await t.http.delete(made[2].uri).set(H).expect(200);
    const resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), title: 'Papers of the Smith family' }).expect(200)).body;
    await t.http.post(`/repositories/${repo}/jobs`).set(H).send({
      job_type: 'find_and_replace_job',
      job: { jsonmodel_type: 'find_and_replace_job', find: 'Smith', replace: 'Smyth', record_type: 'resource', property: 'title', base_record_uri: resource.uri },
    }).expect(200);
    await t.services.jobs!.idle();
    assert.match((await t.http.get(resource.uri).set(H).expect(200)).body.title, /Smyth/);
    assert.deepEqual(used, []);
  });
});
