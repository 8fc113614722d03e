import type {
  Accession, AnyOf, ArchivalObject, ContainerProfile, DigitalObject, DigitalObjectComponent, Resource, TopContainer,
} from '../../../generated/types';
import { errors } from '../../errors';
import type { Obj } from '../../json';
import type { RecordRow } from '../../store/records';
import { jsonBelow, recordQueries } from '../../store/domain-reads';
import type { Services } from '../../records/context';

/** What the calculators are asked about: a record with dates and instances, and the records of its tree. */
type Described = AnyOf<Resource | ArchivalObject | Accession | DigitalObject | DigitalObjectComponent>;

/** The record a calculator is asked about, and the records below it in its tree. */
async function subtree(s: Services, recordUri: string): Promise<{ row: RecordRow; record: Described; below: Described[]; root?: Described }> {
  const q = recordQueries(s.db);
  const [row] = await q.getByUris([recordUri]);
  if (!row) throw errors.nothingAt('record_uri', 'record', recordUri);
  const record = JSON.parse(row.json) as Described;
  const isRoot = Object.values(s.registry.types).some((t) => t.tree?.root === row.type);
  const below = await jsonBelow(s.db, row, isRoot);
  // The tree's root property is named by the schema (x-archive.tree.rootProperty): read by name.
  const rootRef = (record as Obj)[s.registry.types[row.type]?.tree?.rootProperty ?? '']?.ref as string | undefined;
  const rootRow = !isRoot && rootRef ? (await q.getByUris([rootRef]))[0] : undefined;
  return { row, record, below: below.map((json) => JSON.parse(json) as Described), root: isRoot ? record : rootRow ? JSON.parse(rootRow.json) : undefined };
}

const heading = (row: RecordRow, r: Described) => ({ uri: row.uri, jsonmodel_type: row.type, title: r.title ?? r.display_string, id: row.id });

/** An ISO date (YYYY, YYYY-MM, YYYY-MM-DD) as the first or last day it covers, as the original's calculator reads them. */
function dayOf(raw: string, end: boolean): string | undefined {
  const m = /^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?$/.exec(raw);
  if (!m) return undefined;
  const [, y, mo, d] = m;
  if (d) return `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}`;
  if (mo) return end ? new Date(Date.UTC(Number(y), Number(mo), 0)).toISOString().slice(0, 10) : `${y}-${mo.padStart(2, '0')}-01`;
  return end ? `${y}-12-31` : `${y}-01-01`;
}

/** GET /date_calculator: the earliest begin and latest end of the dates below a record (optionally of one label). */
export async function calculateDates(s: Services, recordUri: string, label?: string): Promise<Obj> {
  const { row, record, below, root } = await subtree(s, recordUri);
  let minBegin: string | undefined; let minDay: string | undefined; let maxEnd: string | undefined; let maxDay: string | undefined;
  for (const date of below.flatMap((r) => r.dates ?? [])) {
    if (label && date.label !== label) continue;
    if (!date.begin && !date.end) continue;
    const begin = date.begin;
    const end = date.end ?? date.begin;
    const b = begin ? dayOf(begin, false) : undefined;
    const e = end ? dayOf(end, true) : undefined;
    if (b && (!minDay || b < minDay)) { minDay = b; minBegin = begin; }
    if (e && (!maxDay || e > maxDay)) { maxDay = e; maxEnd = end; }
  }
  return {
    object: heading(row, record), resource: root ? { uri: root.uri, title: root.title } : null, label: label ?? null,
    min_begin_date: minDay ?? null, min_begin: minBegin ?? null, max_end_date: maxDay ?? null, max_end: maxEnd ?? null,
  };
}

const TO_INCHES: Record<string, number> = { inches: 1, feet: 12, centimeters: 1 / 2.54, meters: 100 / 2.54 };

/**
 * GET /extent_calculator: the shelf space of the distinct top containers of a record and the
 * records below it, from their container profiles' extent dimension, in `unit` (or each profile's own).
 */
export async function calculateExtent(s: Services, recordUri: string, unit?: string): Promise<Obj> {
  if (unit !== undefined && !TO_INCHES[unit]) throw errors.mustBeOneOf('unit', Object.keys(TO_INCHES), unit);
  const { row, record, below, root } = await subtree(s, recordUri);
  const containerUris = [...new Set([record, ...below].flatMap((r) => (r.instances ?? []).map((i) => i.sub_container?.top_container?.ref)).filter(Boolean))] as string[];
  const q = recordQueries(s.db);
  const containers = (await q.getByUris(containerUris)).map((r) => JSON.parse(r.json) as TopContainer);
  const profileUris = [...new Set(containers.map((c) => c.container_profile?.ref).filter(Boolean))] as string[];
  const profiles = new Map((await q.getByUris(profileUris)).map((r) => [r.uri, JSON.parse(r.json) as ContainerProfile]));
  let total = 0;
  let withoutProfile = 0;
  const byProfile: Record<string, { count: number; extent: number }> = {};
  for (const c of containers) {
    const p = c.container_profile ? profiles.get(c.container_profile.ref) : undefined;
    if (!p) { withoutProfile++; continue; }
    const raw = Number(p[p.extent_dimension]) || 0;
    const value = unit ? (raw * TO_INCHES[p.dimension_units ?? 'inches']) / TO_INCHES[unit] : raw;
    const key = String(p.display_string ?? p.name);
    byProfile[key] ??= { count: 0, extent: 0 };
    byProfile[key].count++;
    byProfile[key].extent += value;
    total += value;
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    object: heading(row, record), resource: root && root.uri !== record.uri ? { uri: root.uri, title: root.title } : null,
    total_extent: round(total), container_count: containers.length, container_without_profile_count: withoutProfile,
    units: unit ?? null, volume: false,
    containers: Object.fromEntries(Object.entries(byProfile).map(([k, v]) => [k, { count: v.count, extent: round(v.extent) }])),
    timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}
