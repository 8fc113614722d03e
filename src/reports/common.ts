/** Parameters and sub-reports several reports share. */
import type { Obj } from '../json';
import type { Column, ReportParam, SubRow } from './definition';
import { extentText, joined, labelled, list, plain } from './values';

export const INCLUDE_SUPPRESSED: ReportParam = { name: 'include_suppressed', kind: 'IncludeSuppressed', label: 'Include suppressed records' };

/** Dates of one type (inclusive, bulk) of a record. */
export const datesOfType = (r: Obj, type: string): Obj[] => list(r.dates).filter((d) => d.date_type === type);

/** ArchivesSpace's extent sub-report: one row per extent. */
export const extentSubreport: Column = {
  name: 'extent',
  sub: ['portion', 'container_summary', 'physical_details', 'dimensions', 'extent'],
  value: (r) => list(r.extents).map((e): SubRow => ({
    portion: plain(e.portion), container_summary: plain(e.container_summary), physical_details: plain(e.physical_details),
    dimensions: plain(e.dimensions), extent: extentText([e]),
  })),
};

/** A date as the resources list writes it: "label: begin - end, expression". */
export function dateLine(d: Obj): string {
  const range = joined([d.begin, d.end]) === null ? null : [d.begin, d.end].filter((v) => v !== undefined && v !== null).join(' - ');
  const date = [range, d.expression ?? null].filter((v) => v !== null && v !== '').join(', ');
  return [labelled('date_label', d.label), date || null].filter((v) => v !== null).join(': ');
}

/** A location's coordinates: ArchivesSpace joins all three, empty ones included ("Shelf 1, , "). */
export const locationInRoom = (r: Obj): string =>
  [1, 2, 3].map((n) => [r[`coordinate_${n}_label`], r[`coordinate_${n}_indicator`]].filter((v) => v !== undefined && v !== null).join(' ')).join(', ');
