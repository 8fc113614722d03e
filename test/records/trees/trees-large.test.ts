import assert from 'node:assert/strict';
import { sampleRecord } from '../../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../../helpers';
import { STEP } from '../../../src/store/positions';

const CHILDREN = Number(process.env.LARGE_TREE_CHILDREN ?? 100_000);

/** Counts the queries the app issues and the rows they bring back while `fn` runs. */
async function measure(t: TestApp, fn: () => Promise<void>) {
  // The indexer shares the connection pool: let it finish first so that only the request is counted.
  await t.services.search?.indexer.drain();
  let queries = 0;
  let rows = 0;
  const onQuery = () => queries++;
  const onResponse = (response: unknown) => {
    if (Array.isArray(response)) rows += response.length;
  };
  t.services.db.knex.on('query', onQuery).on('query-response', onResponse);
  try {
    await fn();
  } finally {
    t.services.db.knex.removeListener('query', onQuery).removeListener('query-response', onResponse);
  }
  return { queries, rows };
}

describe(`a resource with ${CHILDREN} direct children (slow, ${STORE})`, function () {
  this.timeout(600_000);
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  let resource: string;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'WIDE');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo))).body.uri;
    // One child through the API gives the stored shape; the rest are bulk-loaded in that shape.
    const first = await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'Child 0', level: 'file', resource: { ref: resource } });
    assert.equal(first.status, 200, first.text);
    const knex = t.services.db.knex;
    const template = await knex('records').where({ uri: first.body.uri }).first();
    const base = JSON.parse(template.json);
    const now = Date.now();
    for (let start = 1; start < CHILDREN; start += 400) {
      const batch = [];
      for (let i = start; i < Math.min(start + 400, CHILDREN); i++) {
        const id = 1 + i;
        const uri = `/repositories/${repo}/archival_objects/${id}`;
        batch.push({
          type: 'archival_object', id, repo_id: repo, uri, lock_version: 0,
          json: JSON.stringify({ ...base, title: `Child ${i}`, display_string: `Child ${i}`, uri, ref_id: `bulk-${i}` }),
          create_time_ms: now, system_mtime_ms: now, user_mtime_ms: now,
          parent_key: template.parent_key, position: Number(template.position) + i * STEP, root_uri: resource,
        });
      }
      await knex('records').insert(batch);
    }
    await knex('id_sequences').where({ type: 'archival_object' }).update({ last_id: CHILDREN + 1 });
  });
  after(async () => t.close());

  it('answers tree/root with the first waypoint without reading every child', async () => {
    let body: any;
    const cost = await measure(t, async () => {
      body = (await t.http.get(`${resource}/tree/root`).set(H)).body;
    });
    assert.equal(body.child_count, CHILDREN);
    assert.equal(body.waypoints, Math.ceil(CHILDREN / 200));
    assert.equal(body.precomputed_waypoints[''][0].length, 200);
    assert.ok(cost.rows < 1000, `rows read: ${cost.rows}`);
    assert.ok(cost.queries < 20, `queries: ${cost.queries}`);
    console.log(`      tree/root: ${cost.queries} queries, ${cost.rows} rows read for ${CHILDREN} children`);
  });

  it('answers a waypoint deep in the list by reading that page only', async () => {
    const offset = Math.floor(CHILDREN / 200 / 2);
    let body: any;
    const cost = await measure(t, async () => {
      body = (await t.http.get(`${resource}/tree/waypoint`).query({ offset }).set(H)).body;
    });
    assert.equal(body.length, 200);
    assert.equal(body[0].position, offset * 200);
    assert.equal(body[0].title, `Child ${offset * 200}`);
    assert.ok(cost.rows < 1000, `rows read: ${cost.rows}`);
    console.log(`      waypoint ${offset}: ${cost.queries} queries, ${cost.rows} rows read`);
  });

  it('inserts at position 0 without rewriting any sibling', async () => {
    const knex = t.services.db.knex;
    const before = await knex('records').where({ root_uri: resource }).sum({ s: 'position' }).first();
    const res = await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'New first', level: 'file', resource: { ref: resource }, position: 0 });
    assert.equal(res.status, 200, res.text);
    const after = await knex('records').where({ root_uri: resource }).andWhere('uri', '<>', res.body.uri).sum({ s: 'position' }).first();
    assert.equal(String((after as any).s), String((before as any).s), 'no existing position changed');
    assert.equal((await t.http.get(res.body.uri).set(H)).body.position, 0);
    const root = await t.http.get(`${resource}/tree/root`).set(H);
    assert.equal(root.body.precomputed_waypoints[''][0][0].uri, res.body.uri);
    assert.equal(root.body.child_count, CHILDREN + 1);
  });
});
