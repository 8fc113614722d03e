import assert from 'node:assert/strict';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

describe(`space calculator (${STORE})`, () => {
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  const made: Record<string, string> = {};

  async function post(path: string, body: Record<string, unknown>): Promise<string> {
    const res = await t.http.post(path).set(H).send(body);
    assert.equal(res.status, 200, res.text);
    return res.body.uri;
  }
  const cm = (name: string, width: number, height: number, depth: number, extra = {}) =>
    ({ name, dimension_units: 'centimeters', width: String(width), height: String(height), depth: String(depth), ...extra });

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'SPACE');
    // A shelf 100 wide, 30 high, 20 deep: a 40 × 10 × 10 box stands 3 high and 2 deep, 2 piles wide.
    made.shelf = await post('/location_profiles', cm('Shelf', 100, 30, 20));
    made.slot = await post('/location_profiles', cm('Slot', 30, 5, 5));
    made.box = await post('/container_profiles', { ...cm('Box', 40, 10, 10), extent_dimension: 'width' });
    made.wide = await post('/container_profiles', { ...cm('Wide', 30, 10, 20), extent_dimension: 'width' });
    let shelfMark = 0;
    const loc = (fields: Record<string, unknown>, profile?: string) => post('/locations', {
      building: 'Main', barcode: `L${++shelfMark}`, ...fields, ...(profile ? { location_profile: { ref: profile } } : {}),
    });
    made.a = await loc({ floor: '1', room: '101', area: 'North' }, made.shelf);
    made.b = await loc({ floor: '1', room: '101', area: 'South' }, made.shelf);
    made.c = await loc({ floor: '2' });
    made.d = await loc({ floor: '2', room: '201' }, made.slot);
    await post('/locations', { building: 'Annex', floor: '1', barcode: 'ANNEX-1' });
    const container = (indicator: string, profile: string, location: string) => post(`/repositories/${repo}/top_containers`, {
      indicator, container_profile: { ref: profile }, container_locations: [{ ref: location, status: 'current', start_date: '2024-01-01' }],
    });
    await container('1', made.box, made.a);
    await container('2', made.wide, made.b);
  });
  after(async () => t?.close());

  it('counts the containers of a profile that still fit, per location, with the reasons for the others', async () => {
    const res = await t.http.get('/space_calculator/by_location').query({
      container_profile_uri: made.box, 'location_uris[]': [made.a, made.b, made.c, made.d],
    }).set(H);
    assert.equal(res.status, 200, res.text);
    const body = res.body;
    assert.deepEqual(body.container_profile, { ref: made.box });
    // A: a pile of boxes with 1 of 6 taken, and a second pile: 11. B: the wide pile takes 30 of 100: one pile of 6.
    assert.deepEqual(body.locations_with_space.map((l: { ref: string; count: number }) => [l.ref, l.count]), [[made.a, 11], [made.b, 6]]);
    assert.equal(body.total_spaces_available, 17);
    assert.equal(body.total_containers_of_type, 1);
    assert.deepEqual(body.locations_without_space.map((l: { ref: string; reason: string }) => [l.ref, l.reason]), [[made.d, 'container_is_bigger']]);
    assert.deepEqual(body.uncalculatable_locations.map((l: { ref: string; reason: string }) => [l.ref, l.reason]), [[made.c, 'location_lacks_a_profile']]);
    assert.equal(body.locations_with_space[0]._resolved.building, 'Main');
    assert.equal(body.locations_with_space[0]._resolved.location_profile._resolved.name, 'Shelf');
  });

  it('calculates for a building, narrowed by floor, room and area, and lists the buildings', async () => {
    const floor1 = await t.http.get('/space_calculator/by_building').query({ container_profile_uri: made.box, building: 'Main', floor: '1' }).set(H);
    assert.equal(floor1.status, 200, floor1.text);
    assert.equal(floor1.body.total_spaces_available, 17);
    const south = await t.http.get('/space_calculator/by_building').query({ container_profile_uri: made.box, building: 'Main', floor: '1', room: '101', area: 'South' }).set(H);
    assert.deepEqual(south.body.locations_with_space.map((l: { ref: string }) => l.ref), [made.b]);
    const wholeBuilding = await t.http.get('/space_calculator/by_building').query({ container_profile_uri: made.wide, building: 'Main' }).set(H);
    // Wide (30 × 10 × 20): 3 per pile. A: boxes take 40, room for 2 piles: 6; B: 2 left in its pile + 2 piles more: 8.
    assert.deepEqual(wholeBuilding.body.locations_with_space.map((l: { ref: string; count: number }) => [l.ref, l.count]), [[made.a, 6], [made.b, 8]]);
    assert.equal(wholeBuilding.body.total_containers_of_type, 1);

    const buildings = await t.http.get('/space_calculator/buildings').set(H);
    assert.equal(buildings.status, 200);
    assert.deepEqual(buildings.body, {
      Annex: { 1: { '[no room]': [] } },
      Main: { 1: { 101: ['North', 'South'] }, 2: { '[no room]': [], 201: [] } },
    });
  });

  it('answers 400 for a missing or wrong container profile, unknown locations and a missing building', async () => {
    const bad = async (path: string, query: Record<string, unknown>, field: string) => {
      const res = await t.http.get(path).query(query).set(H);
      assert.equal(res.status, 400, `${path} ${JSON.stringify(query)}: ${res.text}`);
      assert.ok(res.body.error[field], res.text);
    };
    await bad('/space_calculator/by_location', { 'location_uris[]': [made.a] }, 'container_profile_uri');
    await bad('/space_calculator/by_location', { container_profile_uri: made.shelf, 'location_uris[]': [made.a] }, 'container_profile_uri');
    await bad('/space_calculator/by_location', { container_profile_uri: '/container_profiles/999999', 'location_uris[]': [made.a] }, 'container_profile_uri');
    await bad('/space_calculator/by_location', { container_profile_uri: made.box, 'location_uris[]': ['/locations/999999'] }, 'location_uris');
    await bad('/space_calculator/by_location', { container_profile_uri: made.box }, 'location_uris');
    await bad('/space_calculator/by_building', { container_profile_uri: made.box }, 'building');
  });
});
