import assert from 'node:assert/strict';
import { sampleRecord } from '../../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../../helpers';

describe(`trees and positions (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  let resource: string;
  const ao = (path: string) => `/repositories/${repo}/archival_objects${path}`;

  async function create(title: string, extra: Record<string, unknown> = {}, root = resource) {
    const res = await t.http.post(ao('')).set(H).send({ title, level: 'file', resource: { ref: root }, ...extra });
    assert.equal(res.status, 200, res.text);
    return res.body.uri as string;
  }
  const idOf = (uri: string) => Number(uri.split('/').pop());
  async function titles(uris: string[]) {
    return Promise.all(uris.map(async (u) => (await t.http.get(u).set(H)).body.title));
  }
  async function childTitles(parent?: string) {
    if (parent) return (await t.http.get(`${parent}/children`).set(H)).body.map((r: { title: string }) => r.title);
    const root = await t.http.get(`${resource}/tree/root`).set(H);
    return root.body.precomputed_waypoints[''] ? root.body.precomputed_waypoints[''][0].map((e: { title: string }) => e.title) : [];
  }

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'TREE');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const res = await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), title: 'The Collection', publish: true });
    resource = res.body.uri;
  });
  after(async () => t.close());

  it('appends new records, inserts at a given position, and shows logical 0-based positions', async () => {
    const r = await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo));
    const a1 = await create('AO1', {}, r.body.uri);
    const a2 = await create('AO2', {}, r.body.uri);
    const a3 = await create('AO3', { position: 1 }, r.body.uri);
    const positions = await Promise.all([a1, a3, a2].map(async (u) => (await t.http.get(u).set(H)).body.position));
    assert.deepEqual(positions, [0, 1, 2]);
  });

  it('builds a 3-level tree and reads it back with parent, ancestors, children and the tree views', async () => {
    const series = await create('Series 1', { level: 'series', publish: true });
    const file = await create('File 1', { parent: { ref: series }, publish: true, dates: [{ date_type: 'inclusive', label: 'creation', expression: '1950-1960' }] });
    const item = await create('Item 1', { parent: { ref: file }, level: 'item', publish: true, component_id: 'I-1' });
    const got = await t.http.get(item).set(H);
    assert.deepEqual(got.body.parent, { ref: file });
    assert.deepEqual(got.body.ancestors, [{ ref: file, level: 'file' }, { ref: series, level: 'series' }, { ref: resource, level: 'collection' }]);
    assert.equal(got.body.position, 0);
    assert.match(got.body.ref_id, /^[0-9a-f]{32}$/);
    assert.equal((await t.http.get(file).set(H)).body.display_string, 'File 1, 1950-1960');
    assert.deepEqual(await childTitles(series), ['File 1']);

    const root = await t.http.get(`${resource}/tree/root`).set(H);
    assert.equal(root.status, 200);
    assert.equal(root.body.child_count, 1);
    assert.equal(root.body.waypoint_size, 200);
    assert.equal(root.body.jsonmodel_type, 'resource');
    assert.equal(root.body.title, 'The Collection');
    assert.equal(root.body.precomputed_waypoints[''][0][0].uri, series);

    const node = await t.http.get(`${resource}/tree/node`).query({ node_uri: file }).set(H);
    assert.equal(node.body.child_count, 1);
    assert.equal(node.body.position, 1, 'node position is 1-based');
    assert.equal(node.body.title, 'File 1, 1950-1960');
    assert.equal(node.body.precomputed_waypoints[file][0][0].uri, item);
    assert.equal(node.body.precomputed_waypoints[file][0][0].identifier, 'I-1');

    const wp = await t.http.get(`${resource}/tree/waypoint`).query({ offset: 0, parent_node: series }).set(H);
    assert.equal(wp.body.length, 1);
    assert.equal(wp.body[0].parent_id, idOf(series));
    assert.deepEqual(wp.body[0].dates, [{ type: 'inclusive', label: 'creation', expression: '1950-1960' }]);
    assert.deepEqual((await t.http.get(`${resource}/tree/waypoint`).query({ offset: 5 }).set(H)).body, []);

    const path = await t.http.get(`${resource}/tree/node_from_root`).query({ 'node_ids[]': [idOf(item)] }).set(H);
    const steps = path.body[String(idOf(item))];
    assert.deepEqual(steps.map((s: { node: string | null }) => s.node), [null, series, file]);
    assert.equal(steps[0].root_record_uri, resource);

    const ordered = await t.http.get(`${resource}/ordered_records`).set(H);
    assert.deepEqual(ordered.body.uris.map((u: { ref: string; depth: number }) => [u.ref, u.depth]), [[resource, 0], [series, 1], [file, 2], [item, 3]]);

    const whole = await t.http.get(`${resource}/tree`).set(H);
    assert.equal(whole.body.children[0].children[0].children[0].record_uri, item);
    const resolved = await t.http.get(resource).query({ 'resolve[]': 'tree' }).set(H);
    assert.deepEqual(resolved.body.tree._resolved, whole.body);

    const previous = await t.http.get(`${item}/previous`).set(H);
    assert.equal(previous.body.uri, file, 'the first child answers its parent');
    const none = await t.http.get(`${series}/previous`).set(H);
    assert.deepEqual([none.status, none.body], [404, { error: 'No previous node' }]);
  });

  it('reorders with position on update, keeps position when it is omitted, ignores parent changes on update', async () => {
    const parent = await create('Reorder parent');
    const [c1, c2, c3] = [await create('c1', { parent: { ref: parent } }), await create('c2', { parent: { ref: parent } }), await create('c3', { parent: { ref: parent } })];
    const got = await t.http.get(c1).set(H);
    await t.http.post(c1).set(H).send({ ...got.body, position: 2 }).expect(200);
    assert.deepEqual(await childTitles(parent), ['c2', 'c3', 'c1']);
    const again = await t.http.get(c3).set(H);
    const { position: _drop, ...noPosition } = again.body;
    await t.http.post(c3).set(H).send({ ...noPosition, title: 'c3 renamed', parent: { ref: c2 } }).expect(200);
    assert.deepEqual(await childTitles(parent), ['c2', 'c3 renamed', 'c1']);
    const same = await t.http.get(c2).set(H);
    await t.http.post(c2).set(H).send(same.body).expect(200);
    assert.deepEqual(await childTitles(parent), ['c2', 'c3 renamed', 'c1']);
    assert.deepEqual(await titles([c1]), ['c1']);
  });

  it('moves records with /parent and accept_children, and refuses cycles with 409', async () => {
    const a = await create('Move A');
    const b = await create('Move B');
    const kids = [await create('k1', { parent: { ref: a } }), await create('k2', { parent: { ref: a } }), await create('k3', { parent: { ref: a } })];
    const moved = await t.http.post(`${kids[0]}/parent`).query({ parent: idOf(b), position: 0 }).set(H);
    assert.equal(moved.status, 200);
    assert.deepEqual(moved.body, { status: 'Updated', id: idOf(kids[0]), lock_version: 0, stale: null });
    assert.deepEqual(await childTitles(b), ['k1']);
    assert.deepEqual(await childTitles(a), ['k2', 'k3']);

    const accepted = await t.http.post(`${b}/accept_children`).query({ 'children[]': [kids[2], kids[1]], position: 0 }).set(H);
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(await childTitles(b), ['k3', 'k2', 'k1']);
    assert.deepEqual(await childTitles(a), []);

    const toTop = await t.http.post(`${resource}/accept_children`).query({ 'children[]': [kids[0]], position: 0 }).set(H);
    assert.equal(toTop.status, 200);
    assert.equal((await t.http.get(kids[0]).set(H)).body.parent, undefined);
    assert.equal((await t.http.get(kids[0]).set(H)).body.position, 0);

    const cycle = await t.http.post(`${kids[1]}/accept_children`).query({ 'children[]': [b], position: 0 }).set(H);
    assert.deepEqual([cycle.status, cycle.body], [409, { error: "Can't make a parent into its own child" }]);
    const cycle2 = await t.http.post(`${b}/parent`).query({ parent: idOf(kids[1]), position: 0 }).set(H);
    assert.equal(cycle2.status, 409);
    const self = await t.http.post(`${b}/parent`).query({ parent: idOf(b), position: 0 }).set(H);
    assert.equal(self.status, 400);
    const noPosition = await t.http.post(`${b}/parent`).set(H);
    assert.deepEqual(noPosition.body, { error: { position: ['Parameter required but no value provided'] } });
  });

  it('refuses a parent from another resource or one that does not exist', async () => {
    const other = await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo));
    const foreign = await create('Foreign', {}, other.body.uri);
    const res = await t.http.post(ao('')).set(H).send({ title: 'x', level: 'file', resource: { ref: resource }, parent: { ref: foreign } });
    // The same answers where the parent is read with its group's lock, after the insert (MariaDB: placeNewUnder).
    assert.deepEqual([res.status, res.body], [400, { error: { parent: [`must belong to the same resource: ${foreign} is not in ${resource}`] } }]);
    const missing = await t.http.post(ao('')).set(H).send({ title: 'x', level: 'file', resource: { ref: resource }, parent: { ref: ao('/99999') } });
    assert.deepEqual([missing.status, missing.body], [400, { error: `Can't relate to non-existent record: ${ao('/99999')}` }]);
    const titles = (await t.http.get(`/repositories/${repo}/archival_objects`).query({ all_ids: true }).set(H)).body as number[];
    for (const id of titles) assert.notEqual((await t.http.get(ao(`/${id}`)).set(H)).body.title, 'x', 'nothing of a refused create is stored');
  });

  it('keeps ref_id unique per resource and immutable', async () => {
    const first = await create('R1', { ref_id: 'ref-abc' });
    const clash = await t.http.post(ao('')).set(H).send({ title: 'R2', level: 'file', resource: { ref: resource }, ref_id: 'ref-abc' });
    assert.deepEqual([clash.status, clash.body], [400, { error: { ref_id: ['An Archival Object Ref ID must be unique to its resource'] } }]);
    const got = await t.http.get(first).set(H);
    await t.http.post(first).set(H).send({ ...got.body, ref_id: 'changed' }).expect(200);
    assert.equal((await t.http.get(first).set(H)).body.ref_id, 'ref-abc');
  });

  it('creates children in batches, all or nothing', async () => {
    const r = await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo));
    const child = (title: string, extra: object = {}) => ({ title, level: 'file', resource: { ref: r.body.uri }, ...extra });
    const top = await t.http.post(`${r.body.uri}/children`).set(H).send({ children: [child('b1'), child('b2')] });
    assert.deepEqual([top.status, top.body.status], [200, 'Updated']);
    const root = await t.http.get(`${r.body.uri}/tree/root`).set(H);
    assert.deepEqual(root.body.precomputed_waypoints[''][0].map((e: { title: string }) => e.title), ['b1', 'b2']);
    const parent = root.body.precomputed_waypoints[''][0][0].uri;
    const under = await t.http.post(`${parent}/children`).set(H).send({ children: [child('b1.1'), child('b1.2')] });
    assert.equal(under.status, 200, under.text);
    assert.deepEqual(await childTitles(parent), ['b1.1', 'b1.2']);
    const broken = await t.http.post(`${parent}/children`).set(H).send({ children: [child('ok'), { level: 'file', resource: { ref: r.body.uri } }] });
    assert.equal(broken.status, 400);
    assert.deepEqual(broken.body.error['children/1/title'], ['must not be an empty string (or enter a Date)']);
    assert.deepEqual(await childTitles(parent), ['b1.1', 'b1.2'], 'nothing of a refused batch is created');
  });

  it('places a batch of children in order, each child with a position where it asks, with keys and links of each', async () => {
    const r = await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo));
    const parent = await create('Parent', {}, r.body.uri);
    await t.http.post(`${parent}/children`).set(H).send({ children: [{ title: 'old', level: 'file', resource: { ref: r.body.uri } }] }).expect(200);
    // 250 children: inserted a hundred a statement; two ask for a place among those written before them.
    const children = Array.from({ length: 250 }, (_, i) => ({ title: `c${i}`, level: 'file', resource: { ref: r.body.uri }, ref_id: `pos-${i}`,
      ...(i === 120 ? { position: 0 } : i === 130 ? { position: 5 } : {}) }));
    const res = await t.http.post(`${parent}/children`).set(H).send({ children });
    assert.equal(res.status, 200, res.text);
    const expected = ['old', ...children.filter((_, i) => i < 120).map((c) => c.title)];
    expected.unshift('c120');
    expected.splice(5, 0, 'c130');
    for (let i = 121; i < 250; i++) if (i !== 130) expected.push(`c${i}`);
    assert.deepEqual(await childTitles(parent), expected);
    // Each child is found by its ref_id, links its parent and counts among the parent's children.
    const found = await t.http.get(`/repositories/${repo}/find_by_id/archival_objects`).query({ 'ref_id[]': 'pos-249', 'resolve[]': 'archival_objects' }).set(H);
    const last = found.body.archival_objects[0]._resolved;
    assert.deepEqual([last.title, last.parent.ref, last.position], ['c249', parent, 250]);
    assert.equal((await t.http.get(`${r.body.uri}/tree/node`).query({ node_uri: parent }).set(H)).body.child_count, 251);
  });

  it('refuses a batch of children whose ref_id clashes, within the batch or with a stored record, and keeps the keys of one it creates', async () => {
    const r = await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo));
    const child = (i: number, refId = `ref-${i}`) => ({ title: `c${i}`, level: 'file', resource: { ref: r.body.uri }, ref_id: refId });
    const refusal = { error: { ref_id: ['An Archival Object Ref ID must be unique to its resource'] } };
    // 250 children: their keys are written 100 a statement, so the clash is in the third statement, after two were written.
    const within = Array.from({ length: 250 }, (_, i) => child(i, i === 240 ? 'ref-3' : undefined));
    const clash = await t.http.post(`${r.body.uri}/children`).set(H).send({ children: within });
    assert.deepEqual([clash.status, clash.body], [400, refusal]);
    const topCount = async () => (await t.http.get(`${r.body.uri}/tree/root`).set(H)).body.child_count;
    assert.equal(await topCount(), 0, 'nothing of a refused batch is created');

    const created = await t.http.post(`${r.body.uri}/children`).set(H).send({ children: Array.from({ length: 250 }, (_, i) => child(i)) });
    assert.equal(created.status, 200, created.text);
    const single = await t.http.post(ao('')).set(H).send(child(1000, 'ref-249'));
    assert.deepEqual([single.status, single.body], [400, refusal], 'the batch wrote its keys');
    const stored = await t.http.post(`${r.body.uri}/children`).set(H).send({ children: [child(1001), child(1002, 'ref-7')] });
    assert.deepEqual([stored.status, stored.body], [400, refusal]);
    assert.equal(await topCount(), 250);
    // Another resource has ref_ids of its own.
    const other = await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo));
    const elsewhere = await t.http.post(`${other.body.uri}/children`).set(H).send({ children: [{ ...child(1), resource: { ref: other.body.uri } }] });
    assert.equal(elsewhere.status, 200, elsewhere.text);
  });

  it('deletes a subtree with its root node, and a whole tree with its resource', async () => {
    const r = await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo));
    const top = await create('Top', {}, r.body.uri);
    const child = await create('Child', { parent: { ref: top } }, r.body.uri);
    const sibling = await create('Sibling', {}, r.body.uri);
    await t.http.delete(top).set(H).expect(200);
    assert.equal((await t.http.get(child).set(H)).status, 404);
    assert.equal((await t.http.get(sibling).set(H)).body.position, 0);
    await t.http.delete(r.body.uri).set(H).expect(200);
    assert.equal((await t.http.get(sibling).set(H)).status, 404);
  });

  it('answers tree routes for unknown records with 404 and bad parameters with 400', async () => {
    assert.equal((await t.http.get(`/repositories/${repo}/resources/99999/tree/root`).set(H)).status, 404);
    const badNode = await t.http.get(`${resource}/tree/node`).query({ node_uri: 'nonsense' }).set(H);
    assert.equal(badNode.status, 400);
    const badOffset = await t.http.get(`${resource}/tree/waypoint`).query({ offset: -1 }).set(H);
    assert.equal(badOffset.status, 400);
    const unknown = await t.http.get(`${resource}/tree/node_from_root`).query({ 'node_ids[]': [99999] }).set(H);
    assert.equal(unknown.status, 404);
  });

  it('serves digital object trees through the same routes', async () => {
    const dobj = await t.http.post(`/repositories/${repo}/digital_objects`).set(H).send(sampleRecord('digital_object', repo));
    const comp = await t.http.post(`/repositories/${repo}/digital_object_components`).set(H)
      .send({ title: 'Page 1', digital_object: { ref: dobj.body.uri } });
    assert.equal(comp.status, 200, comp.text);
    const root = await t.http.get(`${dobj.body.uri}/tree/root`).set(H);
    assert.equal(root.body.jsonmodel_type, 'digital_object');
    assert.equal(root.body.child_count, 1);
    assert.equal(root.body.precomputed_waypoints[''][0][0].uri, comp.body.uri);
  });

  it('serves a waypoint read before a write as it stands after it (own fields, a linked container, publication)', async () => {
    const r = await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), publish: true });
    const box = await t.http.post(`/repositories/${repo}/top_containers`).set(H).send({ indicator: '1', type: 'box' });
    assert.equal(box.status, 200, box.text);
    const child = await create('Before', { publish: true, instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.body.uri } } }] }, r.body.uri);
    const first = async (user = H) => (await t.http.get(`${r.body.uri}/tree/root`).set(user)).body.precomputed_waypoints['']?.[0][0];
    const waypoint = async () => (await t.http.get(`${r.body.uri}/tree/waypoint`).query({ offset: 0 }).set(H)).body[0];
    assert.equal((await first()).title, 'Before');
    assert.equal((await waypoint()).containers[0].top_container_indicator, '1');

    const record = (await t.http.get(child).set(H)).body;
    assert.equal((await t.http.post(child).set(H).send({ ...record, title: 'After' })).status, 200);
    assert.equal((await first()).title, 'After');
    assert.equal((await waypoint()).title, 'After');

    const stored = (await t.http.get(box.body.uri).set(H)).body;
    assert.equal((await t.http.post(box.body.uri).set(H).send({ ...stored, indicator: '2' })).status, 200);
    assert.equal((await waypoint()).containers[0].top_container_indicator, '2');

    // published_only leaves out what is no longer published; the staff view keeps it.
    const published = async () => (await t.http.get(`${r.body.uri}/tree/root`).query({ published_only: true }).set(H)).body.precomputed_waypoints[''];
    assert.equal((await published())[0].length, 1);
    const latest = (await t.http.get(child).set(H)).body;
    assert.equal((await t.http.post(child).set(H).send({ ...latest, publish: false })).status, 200);
    assert.equal(await published(), undefined);
    assert.equal((await first()).title, 'After');
  });
});
