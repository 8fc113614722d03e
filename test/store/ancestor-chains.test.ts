import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';
import { ancestorChains } from '../../src/store/positions';

/**
 * The ancestors of many components at once (the indexer's and the containers' decoration): each
 * chain nearest first, read in a few statements however many distinct parents there are (one
 * statement per parent cost the indexer 1 ms a component on MariaDB).
 */
describe(`ancestor chains of many components (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  const PARENTS = 210;
  let series: string;
  let subseries: string[];
  let files: string[];

  before(async () => {
    t = await startTestApp({ INDEXER: 'off', JOBS: 'off', WEBHOOKS: 'off' });
    const repo = await createRepository(t);
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo))).body.uri;
    series = (await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'Series', level: 'series', resource: { ref: resource } })).body.uri;
    const child = (title: string, level: string) => ({ jsonmodel_type: 'archival_object', title, level, resource: { ref: resource } });
    const made = await t.http.post(`${series}/children`).set(H).send({ children: Array.from({ length: PARENTS }, (_, i) => child(`Subseries ${i}`, 'subseries')) });
    assert.equal(made.status, 200, made.text);
    subseries = (await t.http.get(`${series}/children`).set(H)).body.map((c: { uri: string }) => c.uri);
    assert.equal(subseries.length, PARENTS);
    files = [];
    for (const [i, parent] of subseries.entries()) {
      const res = await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: `File ${i}`, level: 'file', resource: { ref: resource }, parent: { ref: parent } });
      assert.equal(res.status, 200, res.text);
      files.push(res.body.uri);
    }
  });
  after(async () => t?.close());

  it('gives each node its parents nearest first, the top level none, in a few statements', async () => {
    const knex = t.services.db.knex;
    const nodes = await knex('records').whereIn('uri', [...files, series]).select('rid', 'parent_rid', 'uri');
    let statements = 0;
    const count = () => statements++;
    knex.on('query', count);
    let chains: Awaited<ReturnType<typeof ancestorChains>>;
    try {
      chains = await ancestorChains(knex, nodes.map((n: { rid: number; parent_rid: number | null }) => ({ rid: Number(n.rid), parent_rid: n.parent_rid === null ? null : Number(n.parent_rid) })));
    } finally {
      knex.removeListener('query', count);
    }
    for (const node of nodes) {
      const chain = chains.get(Number(node.rid))!.map((a) => a.uri);
      if (node.uri === series) assert.deepEqual(chain, []);
      else assert.deepEqual(chain, [subseries[files.indexOf(node.uri)], series]);
    }
    // Two statements of steps (200 parents each) and two of the 211 ancestors' JSON.
    assert.ok(statements <= 4, `${statements} statements for ${PARENTS} parents`);
  });
});
