/**
 * The location reports over what is shelved where: location holdings (the containers at chosen
 * locations and the records in them) and the shelflist (every location with the repository's
 * resources and accessions there, by container) (ArchivesSpace's reports/locations).
 */
import { errors } from '../errors';
import type { Obj } from '../json';
import { holdersOf, jsonOfUris, linkersOfTypes } from '../store/report-reads';
import type { ReportDefinition, RunParams, SubRow } from './definition';
import { locationInRoom } from './common';
import { identifier, idOf, labelled, list, plain, resolved } from './values';

type Services = Parameters<NonNullable<ReportDefinition['attach']>>[0];

/** A top container at a location, with its profile and the repository's records in it. */
interface Held {
  top: Obj;
  profile: string | null;
  resources: Obj[];
  accessions: Obj[];
}

const repoOf = (uri: string): number => Number(/^\/repositories\/(\d+)\//.exec(uri)?.[1] ?? 0);
const parse = (rows: Array<{ uri: string; json: string }>) => new Map(rows.map((r) => [r.uri, { ...JSON.parse(r.json), uri: r.uri } as Obj]));
const container = (top: Obj) => [labelled('container_type', top.type), top.indicator].filter((v) => v !== undefined && v !== null).join(' ') || null;

/** Top containers whose records are read at a time: a box holds many components (a row each), and one read of a page's boxes (20,000 rows at 100 a box) held the server's other requests waiting on SQLite. */
const BOXES_ASKED = 10;

/**
 * Each location's top containers of the run's repository (`_held`), in container order, with the
 * resources and accessions in them: the records holding a container are read without their JSON
 * (a component by its tree's root), so a box of many components costs one row each, not a record;
 * a few boxes at a time, stepping aside to the event loop between reads, and matched to their
 * boxes and locations through maps.
 */
export async function attachHoldings(s: Services, locations: Obj[], run: RunParams): Promise<void> {
  const tops = (await linkersOfTypes(s.db, locations.map((l) => l.uri), ['top_container'])).filter((t) => repoOf(t.uri) === run.repoId);
  const topRecords = parse(tops);
  const profiles = parse(await jsonOfUris(s.db, [...new Set([...topRecords.values()].map((t) => t.container_profile?.ref).filter(Boolean))]));
  // Per box, the distinct records in it (a component counts as its resource), in the order first stored.
  const inBox = new Map<string, Map<string, boolean>>();
  const boxes = [...topRecords.keys()];
  for (let i = 0; i < boxes.length; i += BOXES_ASKED) {
    if (i) await new Promise((resolve) => setImmediate(resolve));
    for (const h of await holdersOf(s.db, boxes.slice(i, i + BOXES_ASKED), ['accession', 'resource', 'archival_object'])) {
      if (h.suppressed && !run.includeSuppressed) continue;
      const uri = h.type === 'archival_object' ? h.root_uri ?? '' : h.uri;
      if (!uri) continue;
      let held = inBox.get(h.to_uri);
      if (!held) inBox.set(h.to_uri, held = new Map());
      if (!held.has(uri)) held.set(uri, h.type === 'accession');
    }
  }
  const records = parse(await jsonOfUris(s.db, [...new Set([...inBox.values()].flatMap((held) => [...held.keys()]))]));
  const seen = (r: Obj | undefined): r is Obj => !!r && (run.includeSuppressed || !r.suppressed);
  const boxesAt = new Map<string, Set<string>>();
  for (const t of tops) {
    let at = boxesAt.get(t.to_uri);
    if (!at) boxesAt.set(t.to_uri, at = new Set());
    at.add(t.uri);
  }
  for (const loc of locations) {
    const here = [...(boxesAt.get(loc.uri) ?? [])].sort((a, b) => idOf(a) - idOf(b));
    loc._held = here.map((uri): Held => {
      const held = [...(inBox.get(uri) ?? new Map<string, boolean>()).entries()];
      const top = topRecords.get(uri)!;
      const kind = (accession: boolean) => held.filter(([, isAccession]) => isAccession === accession).map(([u]) => records.get(u)).filter(seen);
      return { top, profile: plain(profiles.get(top.container_profile?.ref)?.name) as string | null, resources: kind(false), accessions: kind(true) };
    });
  }
}

const held = (loc: Obj): Held[] => list(loc._held) as unknown as Held[];

/** The records of a kind at a location, each with the containers it is in there. */
export function recordsByContainer(loc: Obj, kind: 'resources' | 'accessions'): SubRow[] {
  const byRecord = new Map<string, { record: Obj; containers: SubRow[] }>();
  for (const h of held(loc)) {
    for (const record of h[kind]) {
      const entry = byRecord.get(record.uri) ?? { record, containers: [] };
      entry.containers.push({ top_container_barcode: plain(h.top.barcode), container_profile: h.profile, container: container(h.top) });
      byRecord.set(record.uri, entry);
    }
  }
  return [...byRecord.values()].sort((a, b) => idOf(a.record.uri) - idOf(b.record.uri))
    .map(({ record, containers }) => ({ identifier: identifier(record), title: plain(record.title), containers }));
}

export const CONTAINERS = { name: 'containers', sub: ['top_container_barcode', 'container_profile', 'container'] };

/** What the shelflist and the location holdings both walk: every location, with what it holds. */
const OVER_HOLDINGS = {
  scope: 'global',
  types: ['location'],
  resolve: ['location_profile.ref'],
  attach: attachHoldings,
} satisfies Partial<ReportDefinition>;

export const shelflistReport: ReportDefinition = {
  code: 'shelflist_report',
  model: 'ShelflistReport',
  title: 'Shelflist',
  params: [],
  ...OVER_HOLDINGS,
  columns: [
    { name: 'record_title', value: (r) => plain(r.title) },
    { name: 'temporary_location', value: (r) => labelled('location_temporary', r.temporary) },
    { name: 'building', value: (r) => plain(r.building) },
    { name: 'floor', value: (r) => plain(r.floor) },
    { name: 'room', value: (r) => plain(r.room) },
    { name: 'area', value: (r) => plain(r.area) },
    { name: 'location_barcode', value: (r) => plain(r.barcode) },
    { name: 'location_in_room', value: locationInRoom },
    { name: 'location_profile', value: (r) => plain(resolved(r.location_profile)?.name) },
    { name: 'resources', sub: ['identifier', 'title', CONTAINERS], value: (r) => recordsByContainer(r, 'resources') },
    { name: 'accessions', sub: ['identifier', 'title', CONTAINERS], value: (r) => recordsByContainer(r, 'accessions') },
  ],
};

const LOCATION_ORDER = ['building', 'floor', 'room', 'area'];
const has = (v: unknown) => v !== undefined && v !== null && v !== '';

/**
 * ArchivesSpace's range of locations between two: the properties both share narrow it, and the
 * first they differ in (building, floor, room, area, then each coordinate whose label they share)
 * spans from one's value to the other's. Nothing when the two have nothing to compare.
 */
function inRange(start: Obj, end: Obj): (loc: Obj) => boolean {
  const properties = [...LOCATION_ORDER];
  for (const n of [1, 2, 3]) {
    if (!has(start[`coordinate_${n}_label`]) || start[`coordinate_${n}_label`] !== end[`coordinate_${n}_label`]) break;
    properties.push(`coordinate_${n}_indicator`);
  }
  const matching: string[] = [];
  let determinant: string | undefined;
  for (const p of properties) {
    if (has(start[p]) && has(end[p])) {
      if (start[p] === end[p]) matching.push(p);
      else { determinant = p; break; }
    } else if (has(start[p]) || has(end[p])) break;
  }
  if (!matching.length && !determinant) return () => false;
  const [low, high] = determinant ? [String(start[determinant]), String(end[determinant])].sort() : [];
  return (loc) => matching.every((p) => loc[p] === start[p])
    && (!determinant || (has(loc[determinant]) && String(loc[determinant]) >= low && String(loc[determinant]) <= high));
}

const holdingsBase: ReportDefinition = {
  code: 'location_holdings_report',
  model: 'LocationHoldingsReport',
  title: 'Location Holdings',
  params: [{ name: 'locations', kind: 'LocationList', label: 'The locations of interest' }],
  check(values) {
    if (!values.locations) throw errors.invalidParam('locations', 'needs a building, a repository_uri or a location_start');
  },
  ...OVER_HOLDINGS,
  columns: [
    { name: 'record_title', value: (r) => plain(r.title) },
    { name: 'building', value: (r) => plain(r.building) },
    { name: 'floor', value: (r) => plain(r.floor) },
    { name: 'room', value: (r) => plain(r.room) },
    { name: 'location_url', value: (r) => r.uri },
    { name: 'location_profile', value: (r) => plain(resolved(r.location_profile)?.name) },
    { name: 'location_barcode', value: (r) => plain(r.barcode) },
    { name: 'location_in_room', value: locationInRoom },
    {
      name: 'containers',
      sub: ['top_container_indicator', 'top_container_barcode', 'ils_item_id', 'ils_holding_id', 'container_profile', { name: 'records', sub: ['linked_record_type', 'identifier', 'record_title'] }],
      value: (r) => held(r).map((h) => ({
        top_container_indicator: plain(h.top.indicator), top_container_barcode: plain(h.top.barcode), ils_item_id: plain(h.top.ils_item_id),
        ils_holding_id: plain(h.top.ils_holding_id), container_profile: h.profile,
        records: [...h.resources.map((x) => ['resource', x] as const), ...h.accessions.map((x) => ['accession', x] as const)]
          .map(([type, x]) => ({ linked_record_type: type, identifier: identifier(x), record_title: plain(x.title) })),
      })),
    },
  ],
};

export const locationHoldingsReport: ReportDefinition = {
  ...holdingsBase,
  async prepare(s, repoId, values) {
    const asked = (values.locations ?? {}) as Obj;
    if (asked.building) return { ...holdingsBase, where: (loc) => loc.building === asked.building };
    if (asked.repository_uri) {
      // Holdings are the job's repository's: another repository's are asked for by a job there (whose owner may view it).
      if (asked.repository_uri !== `/repositories/${repoId}`) throw errors.invalidParam('repository_uri', `must be the job's repository (/repositories/${repoId})`);
      return holdingsBase;
    }
    const found = parse(await jsonOfUris(s.db, [asked.location_start, asked.location_end].filter(Boolean)));
    const start = found.get(asked.location_start);
    const end = asked.location_end ? found.get(asked.location_end) : undefined;
    if (!start) throw errors.invalidParam('location_start', `no location at ${String(asked.location_start)}`);
    if (asked.location_end && !end) throw errors.invalidParam('location_end', `no location at ${String(asked.location_end)}`);
    return { ...holdingsBase, where: end ? inRange(start, end) : (loc) => loc.uri === start.uri };
  },
};
