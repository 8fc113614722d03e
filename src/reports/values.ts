/**
 * How ArchivesSpace's reports write values (its ReportUtils): identifiers joined with dots,
 * booleans as Yes/No, extents as a total with two decimals and their types, values joined with
 * commas. Values of value lists are written as the labels ArchivesSpace's staff interface shows
 * (its English locale: "Gift", "Linear Feet"), where its reports translate them.
 */
import type { Obj } from '../json';
import { enumerationLabel } from '../validation/enumeration-labels';
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

/** A value of a value list as its label (the value itself where the list gives it none), or null. */
export function labelled(list: string, v: unknown): Scalar {
  return present(v) ? enumerationLabel(list, String(v)) ?? String(v) : null;
}

/** Values of a value list as their labels, distinct, joined with ", ". */
export const labelledAll = (list: string, values: unknown[]): string | null => joined(values.map((v) => labelled(list, v)));

/** Extents summed: "12.50 Linear Feet, Boxes" ("0.00 " when there are none, as ArchivesSpace writes it). */
export function extentText(extents: Obj[]): string {
  const total = extents.reduce((sum, e) => sum + (Number(e.number) || 0), 0);
  return `${total.toFixed(2)} ${labelledAll('extent_extent_type', extents.map((e) => e.extent_type)) ?? ''}`;
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

/** A column name as a label: accession_number → Accession Number. */
export const label = (name: string): string => name.replace(/^_+/, '').split('_').filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
