/**
 * Record → search document, from the schemas' search mapping (x-archive.search) plus the fields
 * every document carries (search.md (f)). No per-type code: a type's mapping names paths into
 * the record (with `_resolved` copies of what it links to), joins, templates and transforms.
 */
import { REPOSITORY_TYPE, type Registry, type TypeInfo, type PropInfo, type FieldSpec, type SearchMapping } from '../registry';
import type { Obj } from '../json';
import { cleanTitle, COPY_FIELDS } from './fields';

export type DocValue = string | number | boolean | Array<string | number>;
export type SearchDoc = Record<string, DocValue>;

/** Keys the full-record text leaves out, with everything beneath them (search.md (e)). */
const FULLRECORD_EXCLUDES = new Set([
  'created_by', 'last_modified_by', 'system_mtime', 'user_mtime', 'json', 'types', 'create_time', 'date_type',
  'jsonmodel_type', 'publish', 'extent_type', 'language', 'script', 'system_generated', 'suppressed', 'source',
  'rules', 'name_order', 'repository', 'top_container', 'finding_aid_filing_title', 'lock_version',
]);


function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** A dotted path's steps, split once: a number indexes an array, a name reads a property. */
const stepsOf = new Map<string, Array<string | number>>();
function steps(path: string): Array<string | number> {
  let out = stepsOf.get(path);
  if (!out) stepsOf.set(path, (out = path.split('.').map((step) => (/^\d+$/.test(step) ? Number(step) : step))));
  return out;
}

/**
 * Values at a dotted path, in document order; arrays are flattened at every step (a numeric step
 * indexes the array itself), empty values are left out. Walked in place: the indexer calls this
 * for every field of every record, and arrays built per step were a tenth of a rebuild's time.
 */
export function valuesAt(obj: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  walkPath(obj, steps(path), 0, out);
  return out;
}

function walkPath(value: unknown, path: Array<string | number>, i: number, out: unknown[]): void {
  if (i > 0 && isEmpty(value)) return;
  if (i === path.length) {
    flattenInto(value, out);
    return;
  }
  const step = path[i];
  if (Array.isArray(value)) {
    if (typeof step === 'number') walkPath(value[step], path, i + 1, out);
    else eachObjectIn(value, (item) => walkPath(item[step], path, i + 1, out));
  } else if (value && typeof value === 'object') {
    walkPath((value as Obj)[step], path, i + 1, out);
  }
}

/** Every object in an array, at any depth of nesting. */
function eachObjectIn(items: unknown[], visit: (item: Obj) => void): void {
  for (const item of items) {
    if (Array.isArray(item)) eachObjectIn(item, visit);
    else if (item && typeof item === 'object') visit(item as Obj);
  }
}

/** The value's leaves (arrays flattened at any depth) that are not empty. */
function flattenInto(value: unknown, out: unknown[]): void {
  if (Array.isArray(value)) for (const item of value) flattenInto(item, out);
  else if (!isEmpty(value)) out.push(value);
}

/** Only letters and digits, lower-cased: "Box 12 [3900]" → "box123900" (typeahead keys). */
function squash(text: string): string {
  return text.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
}

function evaluate(record: Obj, spec: FieldSpec): unknown[] {
  if (typeof spec === 'string') return valuesAt(record, spec);
  if ('first' in spec) {
    for (const alternative of spec.first) {
      const found = evaluate(record, alternative);
      if (found.length) return found;
    }
    return [];
  }
  if ('paths' in spec) {
    const parts = spec.paths.flatMap((p) => valuesAt(record, p)).map(String);
    return parts.length ? [parts.join(spec.join)] : [];
  }
  if ('template' in spec) {
    let empty = true;
    const text = spec.template
      .replace(/\{([\w.]+)\}/g, (_, p: string) => {
        const v = valuesAt(record, p);
        if (v.length) empty = false;
        return v.map(String).join(', ');
      })
      .replace(/\[\s*\]|\(\s*\)/g, '')
      .replace(/\s+/g, ' ')
      .replace(/\s+([,\]])/g, '$1')
      .trim();
    if (empty || !text) return [];
    return [spec.transform === 'squash' ? squash(text) : spec.transform === 'lower' ? text.toLowerCase() : text];
  }
  const found = valuesAt(record, spec.path);
  switch (spec.transform) {
    case 'exists':
      return [found.length > 0];
    case 'missing':
      return [found.length === 0];
    case 'year':
      return found.map((v) => /^-?\d{1,4}/.exec(String(v))?.[0]).filter(Boolean).map(Number);
    case 'squash':
      return found.map((v) => squash(String(v)));
    case 'lower':
      return found.map((v) => String(v).toLowerCase());
  }
  if (spec.join !== undefined) return found.length ? [found.map(String).join(spec.join)] : [];
  return found;
}

function first(record: Obj, spec: FieldSpec | undefined): string | undefined {
  if (!spec) return undefined;
  const v = evaluate(record, spec)[0];
  return v === undefined ? undefined : String(v);
}

/**
 * Every string in the record outside the excluded keys (search.md (e) full-record text); strings
 * under an object with `publish: false` go to `unpublished`, the rest to `published`.
 */
function collectStrings(value: unknown, published: string[], unpublished: string[], depth = 0): void {
  if (depth > 40) return;
  if (typeof value === 'string') published.push(value);
  else if (Array.isArray(value)) value.forEach((v) => collectStrings(v, published, unpublished, depth + 1));
  else if (value && typeof value === 'object') {
    const target = (value as Obj).publish === false ? unpublished : published;
    // for…in over parsed JSON (own keys only): no entries array per object of every record.
    for (const k in value as Obj) {
      if (!FULLRECORD_EXCLUDES.has(k) && !k.endsWith('_enum_s')) collectStrings((value as Obj)[k], target, unpublished, depth + 1);
    }
  }
}

/** Values of controlled-value properties anywhere in the record, outside `_resolved` data. */
function collectEnums(registry: Registry, props: Record<string, PropInfo>, obj: Obj, out: Map<string, Set<string>>, depth = 0): void {
  if (depth > 20) return;
  for (const name in props) {
    const info = props[name];
    const value = obj[name];
    if (isEmpty(value)) continue;
    const items = Array.isArray(value) ? value : [value];
    if (info.enumName) {
      for (const v of items) if (typeof v === 'string') add(out, `${name}_enum_s`, v);
      continue;
    }
    for (const item of items) {
      if (!item || typeof item !== 'object') continue;
      const type = info.kind === 'subrecord' ? registry.types[(item as Obj).jsonmodel_type ?? info.subrecords?.[0]] : undefined;
      const nested = type?.props ?? info.props;
      if (nested) collectEnums(registry, nested, item as Obj, out, depth + 1);
    }
  }
}

function add(out: Map<string, Set<string>>, key: string, value: string): void {
  if (!out.has(key)) out.set(key, new Set());
  out.get(key)!.add(value);
}

function dateDisplay(d: Obj): string | undefined {
  if (d.expression) return String(d.expression);
  if (d.date_type === 'single' || !d.end) return d.begin ? String(d.begin) : undefined;
  return d.begin ? `${d.begin} - ${d.end}` : undefined;
}

function yearsOf(dates: Obj[]): number[] {
  const years = new Set<number>();
  for (const d of dates) {
    const begin = /^\d{1,4}/.exec(String(d.begin ?? ''))?.[0];
    const end = /^\d{1,4}/.exec(String(d.end ?? ''))?.[0] ?? begin;
    if (!begin) continue;
    const from = Number(begin);
    const to = Math.max(from, Number(end));
    for (let y = from; y <= to && y - from <= 5000; y++) years.add(y);
  }
  return [...years].sort((a, b) => a - b);
}

function noteStrings(notes: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) if (!['jsonmodel_type', 'persistent_id', 'type', 'publish', 'label'].includes(k)) walk(x);
    }
  };
  walk(notes);
  return out;
}

/** Title of a linked record as its own document would have it (a subject's terms, an agent's sort name). */
type TitleOf = (linked: Obj | undefined) => string | undefined;

/** Common fields derived the same way for every type (search.md (f) Common fields). */
function commonFields(doc: SearchDoc, record: Obj, titleOf: TitleOf): void {
  const set = (k: string, v: DocValue | undefined) => {
    if (!isEmpty(v)) doc[k] = v!;
  };
  set('external_id', valuesAt(record, 'external_ids.external_id').map(String));
  set('ancestors', valuesAt(record, 'ancestors.ref').map(String));
  set('langcode', [...new Set(valuesAt(record, 'lang_materials.language_and_script.language').map(String))]);
  if (Array.isArray(record.subjects)) {
    set('subjects', (record.subjects as Obj[]).map((l) => titleOf(l?._resolved)).filter(Boolean) as string[]);
    set('subject_uris', valuesAt(record, 'subjects.ref').map(String));
  }
  if (Array.isArray(record.linked_agents)) {
    const agents = (record.linked_agents as Obj[]).filter((a) => a && a.ref);
    const nameOf = (a: Obj) => titleOf(a._resolved);
    set('agents', agents.map(nameOf).filter(Boolean).map(String));
    set('agent_uris', agents.map((a) => String(a.ref)));
    const published = agents.filter((a) => a._resolved?.publish === true);
    set('published_agents', published.map(nameOf).filter(Boolean).map(String));
    set('published_agent_uris', published.map((a) => String(a.ref)));
    set('creators', agents.filter((a) => a.role === 'creator').map(nameOf).filter(Boolean).map(String));
  }
  if (Array.isArray(record.notes)) {
    const notes = record.notes as Obj[];
    set('notes', notes.flatMap((n) => noteStrings(n)));
    set('notes_published', notes.filter((n) => n?.publish === true).flatMap((n) => noteStrings(n)));
    const abstract = notes.filter((n) => n?.type === 'abstract').flatMap((n) => noteStrings(n.content ?? n.subnotes));
    const scope = notes.filter((n) => n?.type === 'scopecontent').flatMap((n) => noteStrings(n.subnotes ?? n.content));
    set('summary', (abstract.length ? abstract : scope).join('\n'));
  }
  if (Array.isArray(record.dates) && record.dates.length) {
    const dates = record.dates as Obj[];
    const inclusive = dates.filter((d) => d.date_type === 'inclusive');
    set('dates', (inclusive.length ? inclusive : dates).map(dateDisplay).filter(Boolean) as string[]);
    const years = yearsOf(dates);
    set('years', years);
    if (years.length) set('year_sort', `${String(years[0]).padStart(4, '0')}${String(years[years.length - 1]).padStart(4, '0')}`);
  }
  if (Array.isArray(record.extents) && record.extents.length) {
    const extents = record.extents as Obj[];
    const whole = extents.filter((e) => e.portion === 'whole');
    set('extents', (whole.length ? whole : extents).map((e) => `${e.number} --- ${e.extent_type}`));
  }
  if (record.level !== undefined) set('level', record.level === 'otherlevel' && record.other_level ? String(record.other_level) : String(record.level));
  const parts = ['id_0', 'id_1', 'id_2', 'id_3'].map((k) => record[k]).filter((v) => !isEmpty(v));
  if (parts.length) set('four_part_id', parts.join(' '));
  set('rights_statement_agent_uris', valuesAt(record, 'rights_statements.linked_agents.ref').map(String));
}

/** Extra types of a published document (search.md (f)): the mapping's, or pui_<type> and pui. */
function publishedTypes(type: string, mapping: SearchMapping): string[] {
  return mapping.publicTypes ?? [`pui_${type}`, 'pui'];
}

/** The search document of one record (with `_resolved` links already attached). */
export function buildDocument(registry: Registry, type: TypeInfo, stored: Obj, mapping: SearchMapping): SearchDoc {
  const record = registry.withoutGuarded(stored);
  const uri = String(record.uri);
  const doc: SearchDoc = { id: uri, uri, primary_type: type.name };
  const title = first(record, mapping.title ?? 'title');
  if (title) doc.title = title;
  const sortSource = first(record, mapping.titleSort) ?? title;
  if (sortSource) doc.title_sort = cleanTitle(sortSource);
  const identifier = first(record, mapping.identifier);
  if (identifier) doc.identifier = identifier;

  const suppressed = record.suppressed === true;
  doc.suppressed = suppressed;
  doc.publish = !suppressed && record.publish === true;
  doc.system_generated = record.system_generated === true;
  if (type.name === REPOSITORY_TYPE) doc.repository = uri;
  else if (type.scope === 'repository') doc.repository = String(record.repository?.ref ?? uri.split('/').slice(0, 3).join('/'));
  else doc.repository = 'global';
  for (const k of ['created_by', 'last_modified_by', 'create_time', 'system_mtime', 'user_mtime']) {
    if (!isEmpty(record[k])) doc[k] = String(record[k]);
  }
  const titleOf: TitleOf = (linked) => {
    if (!linked || typeof linked.uri !== 'string') return undefined;
    const linkedType = registry.typeOfUri(linked.uri);
    return first(linked, linkedType?.search?.title ?? 'title');
  };
  commonFields(doc, record, titleOf);

  for (const [field, spec] of Object.entries(mapping.fields ?? {})) {
    const multi = Array.isArray(spec);
    const values = evaluate(record, multi ? spec[0] : spec).filter((v) => typeof v !== 'object');
    if (!values.length) continue;
    doc[field] = multi ? [...new Set(values.map((v) => (typeof v === 'number' ? v : String(v))))] : (values[0] as string | number | boolean);
  }

  const enums = new Map<string, Set<string>>();
  collectEnums(registry, type.props, record, enums);
  for (const [k, values] of enums) doc[k] = [...values];

  const types = [type.name, ...(mapping.types ?? [])];
  if (doc.publish) types.push(...publishedTypes(type.name, mapping));
  doc.types = [...new Set(types)];

  for (const [from, to] of Object.entries(COPY_FIELDS)) if (doc[from] !== undefined) doc[to] = doc[from];

  const published: string[] = [];
  const unpublished: string[] = [];
  collectStrings(record, record.publish === true ? published : unpublished, unpublished);
  doc.fullrecord = [...published, ...unpublished].join(' ');
  if (published.length) doc.fullrecord_published = published.join(' ');
  doc.json = JSON.stringify(record);
  return doc;
}

/**
 * The documents of `records`, the i-th of type `typeNames[i]` (each with its links resolved), as
 * the indexer builds them in the main thread and the embedded index in its own (applyRecords).
 */
export function buildDocuments(registry: Registry, typeNames: string[], records: Obj[]): SearchDoc[] {
  return records.map((record, i) => {
    const type = registry.type(typeNames[i]);
    return buildDocument(registry, type, record, type.search!);
  });
}
