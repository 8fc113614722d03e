import assert from 'node:assert/strict';
import { sampleRecord } from '../../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../../helpers';
import { logicalPosition, logicalPositions, type NodePlace, type RankAnchor } from '../../../src/store/positions';

/** Every child's place, in the order they were created (a rebuild reads them so). */
async function placesOf(t: TestApp, resource: string): Promise<NodePlace[]> {
  const rows = await t.services.db.knex('records').where({ root_uri: resource }).whereNotNull('parent_key').orderBy('rid')
    .select('rid', 'parent_rid', 'parent_key', 'position', 'root_uri');
  return rows.map((r: any) => ({ ...r, rid: Number(r.rid), position: Number(r.position), parent_rid: r.parent_rid === null ? null : Number(r.parent_rid) }));
}

describe(`logical positions of records read together (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  let resource: string;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'POS');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo))).body.uri;
    const children = Array.from({ length: 40 }, (_, i) => ({ title: `Child ${i}`, level: 'file', resource: { ref: resource } }));
    const id = resource.split('/').pop();
    const res = await t.http.post(`/repositories/${repo}/resources/${id}/children`).set(H).send({ jsonmodel_type: 'archival_record_children', children });
    assert.equal(res.status, 200, res.text);
    // Two inserted at the front and one in the middle: creation order is no longer sibling order.
    for (const position of [0, 0, 17]) {
      const made = await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: `At ${position}`, level: 'file', resource: { ref: resource }, position });
      assert.equal(made.status, 200, made.text);
    }
  });
  after(async () => t.close());

  it('page by page with kept anchors, each index is the count of siblings before it', async () => {
    const db = t.services.db.knex;
    const places = await placesOf(t, resource);
    const kept = new Map<string, RankAnchor>();
    const anchors = { get: (key: string) => kept.get(key), set: (key: string, a: RankAnchor) => void kept.set(key, a) };
    const found = new Map<number, number>();
    for (let i = 0; i < places.length; i += 6) {
      for (const [rid, n] of await logicalPositions(db, places.slice(i, i + 6), anchors)) found.set(rid, n);
    }
    assert.ok(kept.size > 0, 'the passes left an anchor');
    for (const p of places) assert.equal(found.get(p.rid), await logicalPosition(db, p), `record ${p.rid}`);
    // Pages in reverse order start before the anchor: counted from the group's start, still exact.
    for (let i = places.length - 6; i >= 0; i -= 6) {
      for (const [rid, n] of await logicalPositions(db, places.slice(i, i + 6), anchors)) assert.equal(n, found.get(rid), `record ${rid} again`);
    }
  });

  it('serves each child its index among its siblings', async () => {
    const places = await placesOf(t, resource);
    const ids = (await t.services.db.knex('records').whereIn('rid', places.map((p) => p.rid)).orderBy('rid').select('id')).map((r: any) => Number(r.id));
    const listed = await t.http.get(`/repositories/${repo}/archival_objects`).query({ id_set: ids.join(',') }).set(H);
    assert.equal(listed.status, 200, listed.text);
    const positions = (listed.body as Array<{ position: number }>).map((r) => r.position).sort((a, b) => a - b);
    assert.deepEqual(positions, Array.from({ length: places.length }, (_, i) => i));
  });
});
