/**
 * The space calculator (GET /space_calculator/*): how many more containers of one container
 * profile fit in locations, from the dimensions of the location profiles, of the container
 * profile and of the containers already there. The packing follows ArchivesSpace's: containers
 * stand in towers (as high as the location, capped by the profile's stacking_limit) one behind
 * another (as deep as the location); a row of towers of one profile is a pile; piles of different
 * profiles stand side by side across the location's width.
 */
import type { ContainerProfile, Location, LocationProfile, TopContainer } from '../../../generated/types';
import { errors } from '../../errors';
import type { Obj } from '../../json';
import { resolveLinks } from '../../records/resolve';
import { uriLoader } from '../../records/load';
import type { Services } from '../../records/context';
import { jsonOfType, linkersOfType, recordQueries } from '../../store/domain-reads';

/** Millimetres per unit (the working unit is the millimetre). */
const MM_PER: Record<string, number> = { millimeters: 1, centimeters: 10, meters: 1000, inches: 25.4, feet: 304.8, yards: 914.4 };
const MAX_PACKED = 99_999;

interface Box { width: number; height: number; depth: number }
interface Profile extends Box { key: string; stacking?: number }

/** A record's dimensions in millimetres, or why they cannot be read. */
function boxOf(record: ContainerProfile | LocationProfile): Box | 'missing' | 'unit' {
  const unit = record.dimension_units ?? 'inches';
  if (!(unit in MM_PER)) return 'unit';
  const values = [record.width, record.height, record.depth].map((v) => (v === undefined || v === null || v === '' ? NaN : Number(v)));
  if (values.some((v) => !Number.isFinite(v) || v <= 0)) return 'missing';
  const [width, height, depth] = values.map((v) => v * MM_PER[unit]);
  return { width, height, depth };
}

function profileOf(record: ContainerProfile, key: string): Profile | undefined {
  const box = boxOf(record);
  if (typeof box === 'string') return undefined;
  const limit = Number(record.stacking_limit);
  return { ...box, key, stacking: Number.isInteger(limit) && limit > 0 ? limit : undefined };
}

/** Piles of one profile each, side by side across the location. */
class Packer {
  private readonly piles: Array<{ profile: Profile; count: number }> = [];
  constructor(private readonly space: Box) {}

  private capacity(p: Profile): number {
    let high = Math.floor(this.space.height / p.height);
    if (p.stacking !== undefined) high = Math.min(high, p.stacking);
    return high * Math.floor(this.space.depth / p.depth);
  }

  add(p: Profile): boolean {
    const pile = this.piles.find((x) => x.profile.key === p.key && x.count < this.capacity(p));
    if (pile) return (pile.count += 1), true;
    if (p.height > this.space.height || p.depth > this.space.depth || this.capacity(p) < 1) return false;
    const used = this.piles.reduce((sum, x) => sum + x.profile.width, 0);
    if (used + p.width > this.space.width) return false;
    this.piles.push({ profile: p, count: 1 });
    return true;
  }
}

async function recordsByUri(s: Services, uris: string[]): Promise<Map<string, Obj>> {
  if (!uris.length) return new Map();
  const rows = await recordQueries(s.db).getByUris([...new Set(uris)]);
  return new Map(rows.map((r) => [r.uri, JSON.parse(r.json)]));
}

async function calculate(s: Services, profileUri: string, locations: Location[]): Promise<Obj> {
  const wanted = (await recordsByUri(s, [profileUri])).get(profileUri);
  if (!wanted || wanted.jsonmodel_type !== 'container_profile') {
    throw errors.nothingAt('container_profile_uri', 'container profile', profileUri);
  }
  const profile = profileOf(wanted as ContainerProfile, profileUri);
  if (!profile) throw errors.invalidParam('container_profile_uri', `${profileUri} lacks a width, height or depth in a known unit`);

  // The containers currently at each location, with their profiles, in two queries.
  const housed = locations.length ? await linkersOfType(s.db, locations.map((l) => l.uri!), 'top_container') : [];
  const containers = housed.map((h) => ({ at: h.to_uri, container: JSON.parse(h.json) as TopContainer }));
  const atLocation = new Map<string, TopContainer[]>();
  for (const { at, container } of containers) {
    const current = (container.container_locations ?? []).some((l) => l.ref === at && (l.status ?? 'current') === 'current');
    if (current) atLocation.set(at, [...(atLocation.get(at) ?? []), container]);
  }
  // The location profiles and the container profiles, each read below as its own type.
  const related = await recordsByUri(s, [
    ...locations.map((l) => l.location_profile?.ref),
    ...containers.map(({ container }) => container.container_profile?.ref),
  ].filter((u): u is string => !!u));

  const result: Obj = {
    container_profile: { ref: profileUri }, total_spaces_available: 0, total_containers_of_type: 0,
    locations_with_space: [], locations_without_space: [], uncalculatable_locations: [],
  };
  for (const location of locations) {
    const ref = location.uri!;
    const lp = location.location_profile && (related.get(location.location_profile.ref) as LocationProfile | undefined);
    if (!lp) { result.uncalculatable_locations.push({ ref, reason: 'location_lacks_a_profile' }); continue; }
    const space = boxOf(lp);
    if (typeof space === 'string') { result.uncalculatable_locations.push({ ref, reason: 'location_lacks_dimension_data' }); continue; }
    if (profile.width > space.width || profile.height > space.height || profile.depth > space.depth) {
      result.locations_without_space.push({ ref, reason: 'container_is_bigger' });
      continue;
    }
    const packer = new Packer(space);
    let problem: string | undefined;
    for (const container of atLocation.get(ref) ?? []) {
      const cpUri = container.container_profile?.ref;
      const cp = cpUri ? related.get(cpUri) : undefined;
      const existing = cp && cpUri ? profileOf(cp as ContainerProfile, cpUri) : undefined;
      if (!existing) { problem = 'container_at_location_lacks_profile'; break; }
      if (cpUri === profileUri) result.total_containers_of_type += 1;
      if (!packer.add(existing)) { problem = 'containers_at_location_dont_fit'; break; }
    }
    if (problem) { result.uncalculatable_locations.push({ ref, reason: problem }); continue; }
    let count = 0;
    while (count <= MAX_PACKED && packer.add(profile)) count += 1;
    if (count === 0) result.locations_without_space.push({ ref, reason: 'location_cannot_fit_container' });
    else {
      result.total_spaces_available += count;
      result.locations_with_space.push({ ref, count });
    }
  }
  const lists = ['locations_with_space', 'locations_without_space', 'uncalculatable_locations'];
  await resolveLinks([result], lists.flatMap((l) => [l, `${l}::location_profile`]), uriLoader(s));
  return result;
}

async function allLocations(s: Services): Promise<Location[]> {
  return (await jsonOfType(s.db, 'location', { inIdOrder: true })).map((json) => JSON.parse(json) as Location);
}

/** GET /space_calculator/by_location */
export async function spaceByLocation(s: Services, profileUri: string, locationUris: string[]): Promise<Obj> {
  const found = await recordsByUri(s, locationUris);
  const missing = locationUris.find((u) => found.get(u)?.jsonmodel_type !== 'location');
  if (missing) throw errors.nothingAt('location_uris', 'location', missing);
  return calculate(s, profileUri, [...new Set(locationUris)].map((u) => found.get(u) as Location));
}

/** GET /space_calculator/by_building: the locations of a building, narrowed by floor, room and area when given. */
export async function spaceByBuilding(s: Services, profileUri: string, place: Pick<Location, 'building' | 'floor' | 'room' | 'area'>): Promise<Obj> {
  const wanted = (['building', 'floor', 'room', 'area'] as const).filter((k) => place[k] !== undefined && place[k] !== '');
  const locations = (await allLocations(s)).filter((l) => wanted.every((k) => l[k] === place[k]));
  return calculate(s, profileUri, locations);
}

/** GET /space_calculator/buildings: building → floor → room → areas, as the original lists them. */
export async function buildingData(s: Services): Promise<Obj> {
  const buildings: Obj = {};
  const locations = (await allLocations(s)).filter((l) => l.building)
    .sort((a, b) => (['building', 'floor', 'room', 'area'] as const).map((k) => String(a[k] ?? '').localeCompare(String(b[k] ?? ''))).find((c) => c !== 0) ?? 0);
  for (const l of locations) {
    const floors = (buildings[l.building] ??= {});
    const rooms = (floors[l.floor ?? '[no floor]'] ??= {});
    const areas: string[] = (rooms[l.room ?? '[no room]'] ??= []);
    if (l.area && !areas.includes(l.area)) areas.push(l.area);
  }
  return buildings;
}
