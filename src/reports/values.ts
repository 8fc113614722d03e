/**
 * How ArchivesSpace's reports write values (its ReportUtils): identifiers joined with dots,
 * booleans as Yes/No, extents as a total with two decimals and their types, values joined with
 * commas. Enumeration values are written as stored (this backend keeps no translations).
 */
import type { Obj } from '../json';
import type { Scalar } from './definition';

export const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/** A four-part identifier (id_0..id_3) as one: its parts joined with dots. */
export function identifier(r: Obj): string {
  return [r.id_0, r.id_1, r.id_2, r.id_3].filter(present).join('.');
}

/** Yes / No; nothing stays nothing. */
export function yesNo(v: unknown): Scalar {
  if (v === undefined || v === null) return null;
  return v === false || v === 0 || v === '0' ? 'No' : 'Yes';
}

/** Distinct values in the order met, joined with ", "; null when there are none. */
export function joined(values: unknown[]): string | null {
  const distinct = [...new Set(values.filter(present).map(String))];
  return distinct.length ? distinct.join(', ') : null;
}

/** A value as it is, or null. */
export function plain(v: unknown): Scalar {
  return present(v) ? (typeof v === 'number' ? v : String(v)) : null;
}

/** Extents summed: "12.50 linear_feet, boxes" ("0.00 " when there are none, as ArchivesSpace writes it). */
export function extentText(extents: Obj[]): string {
  const total = extents.reduce((sum, e) => sum + (Number(e.number) || 0), 0);
  return `${total.toFixed(2)} ${joined(extents.map((e) => e.extent_type)) ?? ''}`;
}

/** The items of an array property (none when absent). */
export const list = (v: unknown): Obj[] => (Array.isArray(v) ? v : []);

/** The linked record a ref holds once resolved. */
export const resolved = (holder: Obj | undefined): Obj | undefined => holder?._resolved as Obj | undefined;

/** A record's number from its URI. */
export const idOf = (uri: string): number => Number(/\/(\d+)$/.exec(uri)?.[1] ?? 0);

/** The name an agent is shown by: its display name's sort name. */
export function agentName(agent: Obj | undefined): string | undefined {
  if (!agent) return undefined;
  const name = agent.display_name ?? list(agent.names).find((n) => n.is_display_name) ?? list(agent.names)[0];
  return name?.sort_name;
}
