import crypto from 'node:crypto';
import type { Obj } from '../json';
import { isPlainObject } from '../json';
import type { Registry, TypeInfo } from '../registry';
import { planOf } from '../validation/walk';

/**
 * Server-generated fields (record-model.md: "server-generated"): a schema names, per field, one
 * derivation from this catalogue (x-archive.generated: { "title": "subject_terms" }), and every
 * save computes it, subrecords first, so a record's fields can use its subrecords' (an agent's
 * title is its display name's sort_name). A derivation returns the value, `null` to remove the
 * field, or `undefined` to keep what the client sent (a sort_name written by hand). It is told
 * which field it makes and the stored version of the record being updated (absent on create and
 * for subrecords, which every save writes anew, as ArchivesSpace recreates nested records).
 */
export type Derivation = (record: Obj, made: { field: string; previous?: Obj }) => unknown;

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/** ArchivesSpace's date label of a display string: expression, else "begin - end", bulk dates marked. */
function dateLabel(date: Obj): string | undefined {
  const text = present(date.expression) ? String(date.expression)
    : present(date.begin) && present(date.end) ? `${date.begin} - ${date.end}`
      : present(date.begin) ? String(date.begin) : undefined;
  if (text === undefined) return undefined;
  return date.date_type === 'bulk' ? `bulk: ${text}` : text;
}

/** "Title, 1950 - 1960, bulk: 1955": the heading and every date (archival_object.rb produce_display_string). */
function headingWithDates(heading: unknown, record: Obj): string | null {
  const dates = (Array.isArray(record.dates) ? record.dates : []).map(dateLabel).filter((d): d is string => d !== undefined);
  const parts = [present(heading) ? String(heading) : undefined, dates.length ? dates.join(', ') : undefined].filter(Boolean);
  return parts.length ? parts.join(', ') : null;
}

/**
 * A date of existence as a sort name shows it: the expression, else the standardized year with
 * its qualifier ("Not Before 1900"); a range joins its two ends with "-" (sort_name_processor.rb).
 */
function existenceDate(date: Obj): string {
  const year = (std: unknown, kind: unknown) => {
    if (!present(std)) return undefined;
    const y = String(std).split('-')[0];
    return kind && kind !== 'standard' ? `${String(kind).split('_').map(capitalise).join(' ')} ${y}` : y;
  };
  if (date.date_type_structured === 'single' && isPlainObject(date.structured_date_single)) {
    const d = date.structured_date_single;
    return present(d.date_expression) ? String(d.date_expression) : year(d.date_standardized, d.date_standardized_type) ?? '';
  }
  if (date.date_type_structured === 'range' && isPlainObject(date.structured_date_range)) {
    const d = date.structured_date_range;
    if (present(d.begin_date_expression)) return present(d.end_date_expression) ? `${d.begin_date_expression}-${d.end_date_expression}` : String(d.begin_date_expression);
    const begin = year(d.begin_date_standardized, d.begin_date_standardized_type);
    const end = year(d.end_date_standardized, d.end_date_standardized_type);
    return begin && end ? `${begin}-${end}` : begin ?? '';
  }
  return '';
}

function capitalise(t: string): string {
  return t.charAt(0).toUpperCase() + t.slice(1);
}

// Random ids (ref_id) are drawn from a pool filled 256 at a time: one call into the system's
// random source per id was ~2 % of a bulk load's CPU.
const ID_BYTES = 16;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idPoolAt = idPool.length;
const randomId = () => {
  if (idPoolAt === idPool.length) {
    crypto.randomFillSync(idPool);
    idPoolAt = 0;
  }
  idPoolAt += ID_BYTES;
  return idPool.toString('hex', idPoolAt - ID_BYTES, idPoolAt);
};

const cut = (text: string) => (text.length > 255 ? text.slice(0, 255) : text);

/** Builds a name form's sort name from its parts, only when the form asks for it (sort_name_auto_generate). */
function sortName(build: (n: Obj) => string): Derivation {
  return (n) => (n.sort_name_auto_generate === true || !present(n.sort_name) ? cut(build(n).trim()) || undefined : undefined);
}

const add = (n: Obj, key: string, before: string, after = '') => (present(n[key]) ? `${before}${n[key]}${after}` : '');

export const DERIVATIONS: Record<string, Derivation> = {
  /** accession.display_string: its title, else its identifier parts joined with "-" (accession.rb). */
  title_or_identifier: (r) => {
    if (present(r.title)) return String(r.title);
    const parts = ['id_0', 'id_1', 'id_2', 'id_3'].map((k) => r[k]).filter(present);
    return parts.length ? parts.join('-') : null;
  },
  /**
   * An identifier given by the client or else a random one, made once: an update keeps the
   * stored value whatever the client sends (ref_id of tree nodes, rights statement identifier,
   * auto_generate only_on_create in ArchivesSpace).
   */
  random_on_create: (r, { field, previous }) => {
    if (previous) return previous[field] ?? r[field] ?? randomId();
    return present(r[field]) ? undefined : randomId();
  },
  /** repository.display_string: "Name (CODE)" (repository.rb). */
  name_and_code: (r) => `${r.name} (${r.repo_code})`,
  /** container_profile.display_string: name, dimensions and the extent dimension (container_profile.rb, its English label). */
  container_profile_title: (r) =>
    `${r.name} [${r.depth}d, ${r.height}h, ${r.width}w ${r.dimension_units}] extent measured by ${r.extent_dimension}`,
  /** location_profile.display_string: the name, with its dimensions when all three are given (location_profile.rb). */
  location_profile_title: (r) => (present(r.depth) && present(r.width) && present(r.height)
    ? `${r.name} [${r.depth}d, ${r.height}h, ${r.width}w${present(r.dimension_units) ? ` ${capitalise(String(r.dimension_units))}` : ''}]`
    : String(r.name)),
  /** subject.title: its terms, joined with " -- " (subject.rb). */
  subject_terms: (r) => {
    const terms = (Array.isArray(r.terms) ? r.terms : []).map((t: Obj) => t?.term).filter(present);
    return terms.length ? terms.join(' -- ') : null;
  },
  /** display_string of assessments: the ids of the records assessed (assessment.rb shows them with the survey date). */
  assessment_display: (r) => {
    const ids = (Array.isArray(r.records) ? r.records : []).map((x: Obj) => String(x?.ref ?? '').split('/').pop()).filter(Boolean);
    return `${ids.length ? `Records ${ids.join(', ')}` : 'Assessment'}${present(r.survey_begin) ? `, surveyed ${r.survey_begin}` : ''}`;
  },
  /** display_string of classification terms: the title (classification_term.rb). */
  title_only: (r) => (present(r.title) ? String(r.title) : null),
  /** display_string of archival objects: title, then its dates. */
  title_with_dates: (r) => headingWithDates(r.title, r),
  /** display_string of digital object components: title (or label), then its dates. */
  title_or_label_with_dates: (r) => headingWithDates(present(r.title) ? r.title : r.label, r),
  /** location.title: "building, floor, room, area [barcode, classification, label: indicator...]" (location.rb). */
  location_title: (r) => {
    const title = String(r.building ?? '') + add(r, 'floor', ', ') + add(r, 'room', ', ') + add(r, 'area', ', ');
    const others = [r.barcode, r.classification].filter(present).map(String);
    for (const i of [1, 2, 3]) if (present(r[`coordinate_${i}_label`])) others.push(`${r[`coordinate_${i}_label`]}: ${r[`coordinate_${i}_indicator`]}`);
    return `${title} [${others.join(', ')}]`;
  },
  /** Sort names of name forms (sort_name_processor.rb), per agent kind. */
  sort_name_person: sortName((n) => {
    let s = n.name_order === 'inverted' ? String(n.primary_name ?? '') + add(n, 'rest_of_name', ', ')
      : n.name_order === 'direct' ? String(n.rest_of_name ?? '') + add(n, 'primary_name', ' ') : String(n.primary_name ?? '');
    s += add(n, 'prefix', ', ') + add(n, 'suffix', ', ') + add(n, 'title', ', ') + add(n, 'number', ', ');
    s += add(n, 'fuller_form', ' (', ')') + add(n, 'dates', ', ') + add(n, 'qualifier', ' (', ')');
    return s;
  }),
  sort_name_family: sortName((n) =>
    String(n.family_name ?? '') + add(n, 'prefix', ', ') + add(n, 'qualifier', ' (', ')') + add(n, 'dates', ' (', ')') + add(n, 'location', ' (', ')')),
  sort_name_corporate_entity: sortName((n) =>
    String(n.primary_name ?? '') + add(n, 'subordinate_name_1', '. ') + add(n, 'subordinate_name_2', '. ') + add(n, 'number', ', ')
    + add(n, 'qualifier', ' (', ')') + add(n, 'dates', ' (', ')') + add(n, 'location', ' (', ')')),
  sort_name_software: sortName((n) =>
    add(n, 'manufacturer', '', ' ') + String(n.software_name ?? '') + add(n, 'version', ' ') + add(n, 'qualifier', ' (', ')') + add(n, 'dates', ', ')),
  /**
   * An agent's display_name: the name form marked is_display_name; when none is, the authorized
   * one becomes it, and when none is authorized, the first (agent_manager.rb ensure_*_name).
   */
  agent_display_name: (r) => {
    const names: Obj[] = (Array.isArray(r.names) ? r.names : []).filter(isPlainObject);
    if (!names.length) return null;
    if (!names.some((n) => n.authorized === true)) names[0].authorized = true;
    if (!names.some((n) => n.is_display_name === true)) names.find((n) => n.authorized === true)!.is_display_name = true;
    return names.find((n) => n.is_display_name === true);
  },
  /**
   * The same for people and software, whose display name, when it carries no dates of its own and
   * its sort name is generated, ends with the agent's first date of existence: "Smith, Jane
   * (1900-1980)" (sort_name_processor.rb with agent_name_dates.rb).
   */
  agent_display_name_dated: (r, made) => {
    const display = DERIVATIONS.agent_display_name(r, made) as Obj | null;
    const first = Array.isArray(r.dates_of_existence) ? r.dates_of_existence.find(isPlainObject) : undefined;
    const dates = first ? existenceDate(first) : '';
    if (display && dates && !present(display.dates) && display.sort_name_auto_generate === true && present(display.sort_name)) {
      display.sort_name = cut(`${display.sort_name} (${dates})`);
    }
    return display;
  },
  /** An agent's title: its display name's sort name. */
  agent_title: (r) => (isPlainObject(r.display_name) && present(r.display_name.sort_name) ? r.display_name.sort_name : null),
};

/**
 * Computes the generated fields of a record and of its subrecords, in place, before it is saved;
 * `previous` is the stored record an update replaces.
 */
export function applyGenerated(registry: Registry, typeName: string, record: Obj, previous?: Obj): void {
  const type = registry.types[typeName];
  if (!type) return;
  // The type's lists worked out once (planOf): every save calls this for each of its subrecords,
  // and the property table's entries made anew each time were 5 % of an update's allocations.
  for (const name of planOf(type.props).subrecords) {
    const value = record[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isPlainObject(item) && typeof item.jsonmodel_type === 'string') applyGenerated(registry, item.jsonmodel_type, item);
    } else if (isPlainObject(value) && typeof value.jsonmodel_type === 'string') applyGenerated(registry, value.jsonmodel_type, value);
  }
  if (!type.generated) return;
  for (const [field, derivation] of generatedOf(type)) {
    const value = DERIVATIONS[derivation](record, { field, previous });
    if (value === null) delete record[field];
    else if (value !== undefined) record[field] = value;
  }
}

const generatedLists = new WeakMap<TypeInfo, Array<[string, string]>>();

/** A type's server-generated fields and their derivations, listed once. */
function generatedOf(type: TypeInfo): Array<[string, string]> {
  let list = generatedLists.get(type);
  if (!list) generatedLists.set(type, (list = Object.entries(type.generated!)));
  return list;
}
