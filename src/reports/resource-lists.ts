/** The resource list reports: deaccessions, locations, restrictions (ArchivesSpace's reports/resources), and the digital object list table. */
import type { Obj } from '../json';
import { jsonOfUris, linkersOfTypes, linksUnderTrees } from '../store/report-reads';
import type { Column, ReportDefinition, SubRow } from './definition';
import { INCLUDE_SUPPRESSED } from './common';
import { extentText, identifier, idOf, joined, labelled, list, plain, yesNo } from './values';

const money = (n: number | null) => (n === null ? null : n.toFixed(2));
const extentSum = (extents: Obj[]): number | null => (extents.length ? extents.reduce((sum, e) => sum + (Number(e.number) || 0), 0) : null);

/** Each date as one text: its expression, else "begin - end" or begin; joined with commas. */
export function dateTexts(dates: Obj[]): string | null {
  const texts = dates.map((d) => d.expression ?? (d.end ? `${d.begin} - ${d.end}` : d.begin)).filter((v) => v !== undefined && v !== null);
  return texts.length ? texts.join(', ') : null;
}

/** The total of the records' extents and their count, as these reports' info gives them. */
export async function extentTotals(records: AsyncIterable<Obj>): Promise<{ total_extent: string | null; total_count: number }> {
  let total: number | null = null;
  let count = 0;
  for await (const r of records) {
    count++;
    const sum = extentSum(list(r.extents));
    if (sum !== null) total = (total ?? 0) + sum;
  }
  return { total_extent: money(total), total_count: count };
}

/** Each resource's locations: those of the top containers its tree's instances are in, with those containers. */
async function resourceLocations(s: Parameters<NonNullable<ReportDefinition['attach']>>[0], records: Obj[], includeSuppressed: boolean): Promise<void> {
  const links = await linksUnderTrees(s.db, records.map((r) => r.uri), '/top_containers/', includeSuppressed);
  const tops = new Map((await jsonOfUris(s.db, [...new Set(links.map((l) => l.to_uri))])).map((t) => [t.uri, JSON.parse(t.json) as Obj]));
  const locationUris = [...new Set([...tops.values()].flatMap((t) => list(t.container_locations).map((cl) => cl.ref)))];
  const locations = new Map((await jsonOfUris(s.db, locationUris)).map((l) => [l.uri, JSON.parse(l.json) as Obj]));
  for (const r of records) {
    const byLocation = new Map<string, string[]>();
    for (const l of links.filter((x) => x.root === r.uri)) {
      const top = tops.get(l.to_uri);
      if (!top) continue;
      for (const cl of list(top.container_locations)) {
        if (!locations.has(cl.ref)) continue;
        byLocation.set(cl.ref, [...(byLocation.get(cl.ref) ?? []), [top.type, top.indicator].filter((v) => v !== undefined && v !== null).join(' ')]);
      }
    }
    r._locations = [...byLocation.entries()].sort(([a], [b]) => idOf(a) - idOf(b))
      .map(([uri, containers]): SubRow => ({ location: plain(locations.get(uri)!.title), containers: joined(containers) }));
  }
}

const col = (name: string, value: Column['value']): Column => ({ name, value });
const head = [col('record_title', (r) => plain(r.title)), col('identifier', identifier), col('level', (r) => labelled('archival_record_level', r.level))];
const locationsColumn: Column = { name: 'locations', sub: ['location', 'containers'], value: (r) => list(r._locations) as SubRow[] };

export const resourceDeaccessionsListReport: ReportDefinition = {
  code: 'resource_deaccessions_list_report',
  model: 'ResourceDeaccessionsListReport',
  title: 'Resource Deaccessions List',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['resource'],
  async summary(records) {
    let total: number | null = null;
    let deaccessioned = 0;
    let count = 0;
    for await (const r of records) {
      count++;
      const sum = extentSum(list(r.extents));
      if (sum !== null) total = (total ?? 0) + sum;
      for (const d of list(r.deaccessions)) deaccessioned += extentSum(list(d.extents)) ?? 0;
    }
    return { total_extent: money(total), total_deaccessions_extent: money(deaccessioned), total_count: count };
  },
  columns: [...head, col('date_expression', (r) => dateTexts(list(r.dates))), {
    name: 'deaccessions', sub: ['description', 'notification_sent', 'deaccession_date', 'extent'],
    value: (r) => list(r.deaccessions).map((d) => ({
      description: plain(d.description), notification_sent: yesNo(d.notification ?? null), deaccession_date: joined([d.date?.begin]), extent: extentText(list(d.extents)),
    })),
  }],
};

export const resourceLocationsListReport: ReportDefinition = {
  code: 'resource_locations_list_report',
  model: 'ResourceLocationsListReport',
  title: 'Resource Locations List',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['resource'],
  attach: (s, records, run) => resourceLocations(s, records, run.includeSuppressed),
  async summary(records) {
    const { total_extent, total_count } = await extentTotals(records);
    return { total_extent, total_count };
  },
  columns: [...head, col('dates', (r) => dateTexts(list(r.dates))), locationsColumn],
};

export const resourceRestrictionsListReport: ReportDefinition = {
  code: 'resource_restrictions_list_report',
  model: 'ResourceRestrictionsListReport',
  title: 'Resources with Restrictions',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['resource'],
  where: (r) => r.restrictions === true,
  attach: (s, records, run) => resourceLocations(s, records.filter((r) => r.restrictions === true), run.includeSuppressed),
  summary: extentTotals,
  columns: [...head, col('dates', (r) => dateTexts(list(r.dates))), locationsColumn],
};

/** Each digital object's resources: those whose tree holds an instance of it. */
async function digitalObjectResources(s: Parameters<NonNullable<ReportDefinition['attach']>>[0], records: Obj[]): Promise<void> {
  const linkers = await linkersOfTypes(s.db, records.map((r) => r.uri), ['resource', 'archival_object']);
  const parsed = linkers.map((l) => ({ to: l.to_uri, uri: l.uri, record: JSON.parse(l.json) as Obj }));
  const resourceUris = [...new Set(parsed.map((p) => (p.record.jsonmodel_type === 'resource' ? p.uri : p.record.resource?.ref)).filter(Boolean))];
  const resources = new Map((await jsonOfUris(s.db, resourceUris)).map((r) => [r.uri, JSON.parse(r.json) as Obj]));
  for (const r of records) {
    const mine = parsed.filter((p) => p.to === r.uri).map((p) => (p.record.jsonmodel_type === 'resource' ? p.uri : p.record.resource?.ref));
    r._resources = [...new Set(mine)].map((uri) => resources.get(uri)).filter(Boolean);
  }
}

export const digitalObjectListTableReport: ReportDefinition = {
  code: 'digital_object_list_table_report',
  model: 'DigitalObjectListTableReport',
  title: 'Digital Object List Table',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['digital_object'],
  attach: digitalObjectResources,
  columns: [
    col('identifier', (r) => plain(r.digital_object_id)),
    col('record_title', (r) => plain(r.title)),
    col('object_type', (r) => labelled('digital_object_digital_object_type', r.digital_object_type)),
    col('date_expression', (r) => dateTexts(list(r.dates))),
    col('resource_identifier', (r) => { const ids = list(r._resources).map(identifier); return ids.length ? ids.join(', ') : null; }),
  ],
};
