/**
 * The custom report (ArchivesSpace's reports/custom/custom_report.rb): a report whose record type,
 * columns, filters, sub-reports, order and length come from a custom_report_template of the
 * repository. The template is checked whole before anything runs: a bad one answers a 400 naming
 * the field when the job is submitted, or fails the job with that message when it runs.
 */
import { errors } from '../errors';
import type { Obj } from '../json';
import { attributeDefinitionsOf } from '../store/assessment-attributes';
import { jsonOfUri } from '../store/domain-reads';
import { userRowByName } from '../store/users';
import { valueRowById } from '../store/value-lists';
import type { Column, ReportDefinition, RunParams } from './definition';
import { INCLUDE_SUPPRESSED } from './common';
import { CUSTOM_RECORD_TYPES, type CustomField, type CustomSubreport, fieldsFor, fieldValue, sortProperties, subreportsFor } from './custom-fields';
import type { SubreportContext } from './custom-subreports';
import { prepareObjects } from './engine';
import { labelled, list, plain, yesNo } from './values';

type Services = RunParams['s'];
type Filter = (r: Obj) => boolean;

const TYPES_OF: Record<string, string[]> = {
  // ArchivesSpace walks the agent tables in this order unless the report is sorted by type.
  agent: ['agent_family', 'agent_person', 'agent_corporate_entity', 'agent_software'],
};
const GLOBAL_TYPES = new Set(['agent', 'location', 'subject', 'user']);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/**
 * The global fields of a subrecord walked on its own, where it has none: its holder's last save
 * (ArchivesSpace writes a record's subrecords anew each time the record is saved).
 */
const GLOBAL_FROM_HOLDER: Record<string, string> = { created_by: 'last_modified_by', last_modified_by: 'last_modified_by', create_time: 'user_mtime', user_mtime: 'user_mtime' };

/** Where the record model holds a subrecord type: each record type with a list of it, and that list's property (none for a record type). */
function holdersOf(s: Services, recordType: string): Array<{ type: string; prop: string }> {
  if (s.registry.types[recordType]?.kind !== 'subrecord') return [];
  return Object.values(s.registry.types).filter((t) => t.kind === 'record').flatMap((t) => Object.entries(t.props ?? {})
    .filter(([, p]) => p.kind === 'subrecord' && p.array && p.subrecords?.includes(recordType)).map(([prop]) => ({ type: t.name, prop })));
}

/** A record's subrecords of a held type, each a row of its own with the record as `_parent`. */
function subrecordsOf(record: Obj, recordType: string, props: string[]): Obj[] {
  return props.flatMap((prop) => (Array.isArray(record[prop]) ? (record[prop] as Obj[]) : [])).map((x) => {
    const item: Obj = { ...x, jsonmodel_type: recordType, _parent: record };
    for (const [k, from] of Object.entries(GLOBAL_FROM_HOLDER)) if (!present(item[k])) item[k] = record[from];
    return item;
  });
}

const bad = (path: string, detail: string) => errors.invalidParam(path, detail);
const present = (v: unknown) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && !v.length);
const isOn = (v: unknown) => v === true || v === '1' || v === 'true' || v === 'on' || v === 1;
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : present(v) ? [v] : []);

/** The template's data: its JSON object, whether written flat or under its record type (as the staff interface's form names it). */
function templateData(template: Obj): Obj {
  let data: unknown;
  try {
    data = JSON.parse(String(template.data ?? ''));
  } catch {
    throw bad('data', 'must be the JSON of a custom report definition');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw bad('data', 'must be the JSON of a custom report definition');
  const d = data as Obj;
  const nested = typeof d.custom_record_type === 'string' ? d[d.custom_record_type] : undefined;
  return !d.fields && !d.subreports && nested && typeof nested === 'object' ? { ...nested, custom_record_type: d.custom_record_type } : d;
}

/** The enumeration values a filter names: by id (as ArchivesSpace's form sends them) or URI, or by value. */
async function enumValues(s: Services, path: string, values: unknown[]): Promise<string[]> {
  const out: string[] = [];
  for (const given of values) {
    const v = typeof given === 'string' ? given.replace(/^\/config\/enumeration_values\/(\d+)$/, '$1') : given;
    if (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v))) {
      const row = await valueRowById(s.db.reads, Number(v));
      if (!row) throw bad(path, `no enumeration value with id ${String(v)}`);
      out.push(row.value);
    } else if (typeof v === 'string' && v) out.push(v);
    else throw bad(path, `must be a list of enumeration values but given: ${JSON.stringify(v)}`);
  }
  return out;
}

/** The agents a reviewer filter names: agent URIs as they are, usernames through their users' agent records. */
async function reviewerAgents(s: Services, values: string[]): Promise<Set<string>> {
  const agents = new Set<string>();
  for (const v of values) {
    if (/^\/agents\/[a-z_]+\/\d+$/.test(v)) {
      agents.add(v);
      continue;
    }
    const row = await userRowByName(s.db, 'user', v);
    const ref = row ? JSON.parse(row.json).agent_record?.ref : undefined;
    if (ref) agents.add(ref);
  }
  return agents;
}

interface Narrowed { filter?: Filter; info?: string }

/** A field's filter, per its kind, and what the report's info says of it. */
async function narrow(s: Services, recordType: string, f: CustomField, spec: Obj): Promise<Narrowed> {
  const path = `fields/${f.name}`;
  const value = (r: Obj) => fieldValue(recordType, f.name, r);
  if (present(spec.range_start) || present(spec.range_end)) {
    if (f.data_type !== 'Date') throw bad(`${path}/range_start`, `${f.name} is not a date field`);
    if (!present(spec.range_end)) throw bad(`${path}/range_end`, 'missing end filter date');
    if (!present(spec.range_start)) throw bad(`${path}/range_start`, 'missing start filter date');
    for (const k of ['range_start', 'range_end']) {
      if (typeof spec[k] !== 'string' || !DATE.test(String(spec[k]).slice(0, 10)) || Number.isNaN(Date.parse(String(spec[k]).slice(0, 10)))) {
        throw bad(`${path}/${k}`, `must be a date (YYYY-MM-DD) but given: ${String(spec[k])}`);
      }
    }
    const [from, to] = [String(spec.range_start).slice(0, 10), String(spec.range_end).slice(0, 10)];
    // Strictly after the start date began and before the end date began, as ArchivesSpace compares them.
    return { filter: (r) => { const v = String(r[f.name] ?? ''); return v > from && v < to; }, info: `${from} - ${to}` };
  }
  if (present(spec.value)) {
    if (f.data_type !== 'Boolean') throw bad(`${path}/value`, `${f.name} is not a boolean field`);
    const wanted = spec.value === true || spec.value === 'true' ? true : spec.value === false || spec.value === 'false' ? false : undefined;
    if (wanted === undefined) throw bad(`${path}/value`, `must be true or false but given: ${String(spec.value)}`);
    return { filter: (r) => (r[f.name] === true) === wanted, info: wanted ? 'Yes' : 'No' };
  }
  if (!present(spec.values)) return {};
  const values = asList(spec.values);
  switch (f.data_type) {
    case 'Enum': {
      const wanted = new Set(await enumValues(s, `${path}/values`, values));
      return { filter: (r) => wanted.has(String(value(r) ?? '')), info: [...wanted].map((v) => labelled(valueListOf(s, recordType, f), v)).join(', ') };
    }
    case 'AgentType': {
      const known = TYPES_OF.agent;
      const wanted = values.map(String);
      const unknown = wanted.find((v) => !known.includes(v));
      if (unknown) throw errors.mustBeOneOf(`${path}/values`, known, unknown);
      return { filter: (r) => wanted.includes(r.jsonmodel_type), info: wanted.join(', ') };
    }
    case 'User': {
      const wanted = values.map(String);
      if (f.name === 'reviewer') {
        // A linked record: assessments reviewed by these agents (or the agents of these users, as ArchivesSpace).
        const agents = await reviewerAgents(s, wanted);
        return { filter: (r) => list(r.reviewer).some((l) => agents.has(l.ref)), info: wanted.join(', ') };
      }
      return { filter: (r) => wanted.includes(String(r[f.name] ?? '')), info: wanted.join(', ') };
    }
    case 'String': {
      // Not in ArchivesSpace's form: a text field narrowed to the values given, each matched whole.
      const wanted = values.map(String);
      return { filter: (r) => wanted.includes(String(value(r) ?? '')), info: wanted.join(', ') };
    }
    default:
      throw bad(`${path}/values`, `a ${f.data_type} field takes no list of values`);
  }
}

/** The value list of an enumeration field: its own, or its property's in the record model (ArchivesSpace: `<type>_<field>`). */
const valueListOf = (s: Services, recordType: string, f: CustomField): string =>
  f.enum_name ?? s.registry.types[recordType]?.props[f.name]?.enumName ?? `${recordType}_${f.name}`;

/** A field's column: booleans Yes/No, decimals with two places, the rest as they are. */
function fieldColumn(s: Services, recordType: string, f: CustomField): Column {
  const name = f.name === 'title' ? f.alias ?? 'record_title' : f.alias ?? f.name;
  // An enumeration field is written as its value's label, as ArchivesSpace's custom report does.
  const valueList = f.data_type === 'Enum' ? valueListOf(s, recordType, f) : undefined;
  return {
    name,
    value: (r) => {
      const v = fieldValue(recordType, f.name, r);
      if (f.data_type === 'Boolean') return yesNo(v ?? null);
      if (valueList) return labelled(valueList, v);
      if (f.data_type === 'Decimal') return present(v) ? (Number(v) || 0).toFixed(2) : null;
      return plain(v);
    },
  };
}

/** The custom report a template defines. */
export async function customDefinition(s: Services, repoId: number, templateId: number, base: ReportDefinition): Promise<ReportDefinition> {
  const stored = await jsonOfUri(s.db, `/repositories/${repoId}/custom_report_templates/${templateId}`);
  if (!stored) throw bad('template', `no custom report template ${templateId} in this repository`);
  const template = JSON.parse(stored) as Obj;
  const data = templateData(template);
  const recordType = String(data.custom_record_type ?? '');
  if (!CUSTOM_RECORD_TYPES.includes(recordType)) throw errors.mustBeOneOf('custom_record_type', CUSTOM_RECORD_TYPES, recordType || undefined);
  const fieldsSpec = (data.fields ?? {}) as Obj;
  const subSpec = (data.subreports ?? {}) as Obj;
  if (typeof fieldsSpec !== 'object' || Array.isArray(fieldsSpec)) throw bad('fields', 'must be an object of fields by name');
  if (typeof subSpec !== 'object' || Array.isArray(subSpec)) throw bad('subreports', 'must be an object of sub-reports by name');
  const fields = fieldsFor(recordType);
  const subreports = subreportsFor(recordType);
  for (const name of Object.keys(fieldsSpec)) {
    if (!fields.some((f) => f.name === name)) throw bad(`fields/${name}`, `${recordType} has no field ${name} (GET /reports/custom_data lists them)`);
  }
  for (const name of Object.keys(subSpec)) {
    if (!subreports.some((sr) => sr.name === name)) throw bad(`subreports/${name}`, `${recordType} has no sub-report ${name} (GET /reports/custom_data lists them)`);
  }

  const info: Record<string, string> = { template_name: String(template.name ?? '') };
  if (present(template.description)) info.template_description = String(template.description);
  info.custom_record_type = recordType;
  const columns: Column[] = [];
  const filters: Filter[] = [];
  for (const f of fields) {
    const spec = fieldsSpec[f.name];
    if (!spec) continue;
    if (typeof spec !== 'object' || Array.isArray(spec)) throw bad(`fields/${f.name}`, 'must be an object (include, value, values, range_start, range_end)');
    if (isOn(spec.include)) columns.push(fieldColumn(s, recordType, f));
    const n = await narrow(s, recordType, f, spec);
    if (n.filter) filters.push(n.filter);
    if (n.info !== undefined) info[f.name] = n.info;
  }
  if (recordType === 'agent') {
    // ArchivesSpace selects an agent's type and name ahead of its other fields.
    const rank = (c: Column) => ['type', 'name'].indexOf(c.name);
    columns.sort((a, b) => (rank(a) < 0 ? 2 : rank(a)) - (rank(b) < 0 ? 2 : rank(b)));
  }
  const included = subreports.filter((sr) => isOn((subSpec[sr.name] as Obj | undefined)?.include));
  // Assessment sub-reports name attributes by the labels of the repository's definitions.
  const ctx: SubreportContext = {
    attributeLabels: new Map((await attributeDefinitionsOf(s.db, repoId)).map((d) => [Number(d.id), String(d.label)])),
    included,
    async prepare(services, objects, run, subs: CustomSubreport[]) {
      await prepareObjects(services, objects, {
        resolve: [...new Set(subs.flatMap((sr) => sr.resolve ?? []))], linkedBy: [...new Set(subs.flatMap((sr) => sr.linkedBy ?? []))].map((type) => ({ as: type, types: [type] })),
      });
      for (const attach of new Set(subs.map((sr) => sr.attach))) await attach?.(services, objects, run, ctx);
    },
  };
  for (const sr of included) columns.push({ name: sr.name, sub: sr.subWith ? sr.subWith(included) : sr.sub, value: (r, run) => sr.rows(r, run, ctx) });
  if (!columns.length) throw bad('fields', 'custom report must include field or subreport');

  let types = TYPES_OF[recordType] ?? [recordType];
  let order: string[] | undefined;
  const sortBy = data.sort_by === undefined || data.sort_by === null ? '' : String(data.sort_by);
  if (sortBy) {
    const f = fields.find((x) => x.name === sortBy);
    if (!f) throw bad('sort_by', `${recordType} has no field ${sortBy}`);
    if (!f.sortable) throw bad('sort_by', `${sortBy} is not a field a custom report may be sorted by`);
    info.sorted_by = sortBy;
    if (recordType === 'agent' && sortBy === 'type') types = [...types].sort();
    else order = sortProperties(recordType, sortBy);
  }
  const limit = template.limit === undefined || template.limit === null ? 100 : Number(template.limit);
  if (!Number.isInteger(limit) || limit < 0) throw bad('limit', `must be a whole number but given: ${String(template.limit)}`);

  const where = (r: Obj) => filters.every((f) => f(r));
  const summary = async (rows: AsyncIterable<Obj[]>) => {
    let count = 0;
    // No further than the limit: the rows stop there too.
    for await (const some of rows) {
      if (count >= limit) break;
      count = Math.min(limit, count + some.length);
    }
    return { ...info, total_count: count };
  };
  const common = { ...base, scope: GLOBAL_TYPES.has(recordType) ? 'global' as const : 'repository' as const, limit, columns };
  const holders = holdersOf(s, recordType);
  if (holders.length) {
    // A subrecord type (rights statements, deaccessions): the records holding it are walked, each of their subrecords a row.
    const props = [...new Set(holders.map((h) => h.prop))];
    const key = (r: Obj) => { const v = sortBy ? fieldValue(recordType, sortBy, r) : undefined; return v === undefined || v === null ? '' : String(v); };
    const rowsOf = (record: Obj) => (record._items as Obj[]).filter(where);
    return {
      ...common,
      types: [...new Set(holders.map((h) => h.type))],
      rowsOf,
      rowOrder: sortBy ? (a, b) => { const [x, y] = [key(a), key(b)]; return x < y ? -1 : x > y ? 1 : 0; } : undefined,
      attach: async (services, records, run) => {
        for (const r of records) r._items = subrecordsOf(r, recordType, props);
        await ctx.prepare(services, records.flatMap((r) => r._items as Obj[]), run, included);
      },
      summary: (records) => summary((async function* () { for await (const r of records) yield rowsOf(r); })()),
    };
  }
  return {
    ...common,
    types,
    order,
    resolve: [...new Set([...(recordType === 'assessment' ? ['reviewer.ref'] : []), ...included.flatMap((sr) => sr.resolve ?? [])])],
    linkedBy: [...new Set(included.flatMap((sr) => sr.linkedBy ?? []))].map((type) => ({ as: type, types: [type] })),
    where,
    // Each read once, however many sub-reports need it (a location's accessions and resources).
    attach: async (services, records, run) => { for (const attach of new Set(included.map((sr) => sr.attach))) await attach?.(services, records, run, ctx); },
    summary: (records) => summary((async function* () { for await (const r of records) yield [r]; })()),
  };
}

const customBase: ReportDefinition = {
  code: 'custom_report',
  model: 'CustomReport',
  title: 'Custom Report',
  params: [{ name: 'template', kind: 'CustomReportTemplate', label: 'Template to use for the custom report.' }, INCLUDE_SUPPRESSED],
  check(values) {
    if (values.template === undefined) throw bad('template', 'a custom report needs the id of its template');
  },
  scope: 'repository',
  types: [],
  columns: [],
};

export const customReport: ReportDefinition = {
  ...customBase,
  prepare: (s, repoId, values) => customDefinition(s, repoId, Number(values.template), customBase),
};
