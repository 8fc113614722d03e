import assert from 'node:assert/strict';
import { treesCheck } from '../../../src/cli/doctor/checks';
import { childCountDrift, recountChildren } from '../../../src/store/child-counts';
import { sampleRecord } from '../../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../../helpers';

/**
 * The store keeps each sibling group's child count (triggers on records); tree views read it.
 * Every way a tree changes must leave it equal to a count of the records.
 */
describe(`kept child counts (${STORE})`, () => {
  let t: TestApp;
  let H: Record<string, string>;

  const post = async (path: string, body: unknown, query: Record<string, unknown> = {}) => {
    const res = await t.http.post(path).query(query).set(H).send(body as object);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body;
  };
  const drift = () => childCountDrift(t.services.db.knex);
  const doctor = () => treesCheck.run({ config: t.config, registry: t.services.registry, db: t.services.db, migrated: true });

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(async () => t.close());

  it('stay exact through creates, batches, moves, transfers, merges and deletes, and tree views show them', async () => {
    const repo = await createRepository(t, 'COUNTS');
    const base = `/repositories/${repo}`;
    const resource = async (title: string) => (await post(`${base}/resources`, { ...sampleRecord('resource', repo), title })).uri as string;
    const ao = async (title: string, root: string, parent?: string, extra: object = {}) =>
      (await post(`${base}/archival_objects`, { title, level: 'file', resource: { ref: root }, ...(parent ? { parent: { ref: parent } } : {}), ...extra })).uri as string;

    const a = await resource('A');
    const b = await resource('B');
    const series = await ao('Series', a, undefined, { level: 'series' });
    const files = [];
    for (let i = 0; i < 5; i++) files.push(await ao(`File ${i}`, a, series));
    await post(`${a}/children`, { children: [1, 2, 3].map((i) => ({ title: `Top ${i}`, level: 'file', resource: { ref: a } })) });
    await post(`${files[0]}/children`, { children: [1, 2].map((i) => ({ title: `Item ${i}`, level: 'item', resource: { ref: a } })) });
    const root = async (uri: string) => (await t.http.get(`${uri}/tree/root`).set(H)).body;
    assert.equal((await root(a)).child_count, 4);
    assert.deepEqual(await drift(), []);

    // Moves: to another parent, to the top, at a position; a subtree to another resource.
    await post(`${files[1]}/parent`, null, { parent: Number(files[2].split('/').pop()), position: 0 });
    await post(`${a}/accept_children`, null, { 'children[]': [files[3]], position: 0 });
    await post(`${base}/component_transfers`, null, { target_resource: b, component: files[0] });
    assert.deepEqual(await drift(), []);
    const tree = await root(a);
    assert.equal(tree.child_count, 5);
    const seriesEntry = tree.precomputed_waypoints[''][0].find((e: { uri: string }) => e.uri === series);
    assert.equal(seriesEntry.child_count, 2, 'File 2 (holding File 1) and File 4 stay under the series');
    assert.equal((await root(b)).child_count, 1);

    // A merge moves the candidate's children into the destination's tree.
    const c = await resource('C');
    await ao('C file', c);
    await post('/merge_requests/resource', { merge_destination: { ref: b }, merge_candidates: [{ ref: c }] }, { repo_id: repo });
    assert.equal((await root(b)).child_count, 2);
    assert.deepEqual(await drift(), []);

    // Deletes: a node with its subtree, a whole resource, a whole repository.
    assert.equal((await t.http.delete(files[2]).set(H)).status, 200);
    assert.equal((await root(a)).precomputed_waypoints[''][0].find((e: { uri: string }) => e.uri === series).child_count, 1);
    assert.equal((await t.http.delete(b).set(H)).status, 200);
    assert.deepEqual(await drift(), []);
    const other = await createRepository(t, 'COUNTS2');
    const d = (await post(`/repositories/${other}/resources`, { ...sampleRecord('resource', other), title: 'D' })).uri;
    await post(`${d}/children`, { children: [1, 2].map((i) => ({ title: `D ${i}`, level: 'file', resource: { ref: d } })) });
    assert.equal((await t.http.delete(`/repositories/${other}`).set(H)).status, 200);
    assert.deepEqual(await drift(), []);
    assert.equal((await doctor()).status, 'ok');
  });

  it('waypoints past the first follow inserts, moves and deletes at once (their starts are kept until the next write)', async () => {
    const repo = await createRepository(t, 'WAYPT');
    const r = (await post(`/repositories/${repo}/resources`, { ...sampleRecord('resource', repo), title: 'W' })).uri;
    await post(`${r}/children`, { children: Array.from({ length: 450 }, (_, i) => ({ title: `C${i}`, level: 'file', resource: { ref: r } })) });
    const titles = async (offset: number) =>
      (await t.http.get(`${r}/tree/waypoint`).query({ offset, parent_node: '' }).set(H)).body.map((e: { title: string }) => e.title);
    assert.deepEqual((await titles(1)).slice(0, 2), ['C200', 'C201']);
    assert.equal((await titles(2)).length, 50);
    assert.deepEqual(await titles(3), []);
    // Positions of many siblings read together (a listing, the indexer) match each record's own.
    const uris: string[] = (await t.http.get(`${r}/tree/waypoint`).query({ offset: 1, parent_node: '' }).set(H)).body.map((e: { uri: string }) => e.uri);
    const picked = [uris[0], uris[7], uris[199]];
    const listed = await t.http.get(`/repositories/${repo}/archival_objects`).query({ 'id_set[]': picked.map((u) => u.split('/').pop()) }).set(H);
    assert.deepEqual(listed.body.map((x: { position: number }) => x.position).sort((a: number, b: number) => a - b), [200, 207, 399]);
    for (const uri of picked) assert.equal((await t.http.get(uri).set(H)).body.position, 200 + uris.indexOf(uri));
    await post(`/repositories/${repo}/archival_objects`, { title: 'Front', level: 'file', resource: { ref: r }, position: 0 });
    assert.deepEqual((await titles(1)).slice(0, 2), ['C199', 'C200']);
    assert.equal((await titles(2)).length, 51);
    const first = (await titles(0))[1];
    assert.equal(first, 'C0');
    const c0 = (await t.http.get(`${r}/tree/waypoint`).query({ offset: 0, parent_node: '' }).set(H)).body[1].uri;
    assert.equal((await t.http.delete(c0).set(H)).status, 200);
    assert.deepEqual((await titles(1)).slice(0, 2), ['C200', 'C201']);
    assert.equal((await titles(2)).length, 50);
  });

  it('doctor warns when a kept count differs from the records, and a recount (archive-records migrate) repairs it', async () => {
    const repo = await createRepository(t, 'DRIFT');
    const r = (await post(`/repositories/${repo}/resources`, { ...sampleRecord('resource', repo), title: 'R' })).uri;
    await post(`${r}/children`, { children: [1, 2, 3].map((i) => ({ title: `F ${i}`, level: 'file', resource: { ref: r } })) });
    await t.services.db.knex('tree_child_counts').where({ parent_key: `root:${r}` }).update({ n: 7 });
    const warned = await doctor();
    assert.equal(warned.status, 'warn');
    assert.deepEqual((warned.details as any).examples, [{ parent_key: `root:${r}`, kept: 7, actual: 3 }]);
    assert.match(warned.fix!, /archive-records migrate/);
    await t.services.db.knex.transaction((trx) => recountChildren(trx));
    assert.equal((await doctor()).status, 'ok');
    assert.equal((await t.http.get(`${r}/tree/root`).set(H)).body.child_count, 3);
  });
});
