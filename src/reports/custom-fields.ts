/**
 * The fields and sub-reports a custom report may use, per record type, as ArchivesSpace registers
 * them (backend/app/model/reports/register_custom_fields.rb and the custom sub-reports), with how
 * each is read from a record of this backend. GET /reports/custom_data lists them in ArchivesSpace's
 * shape: {record_type: {fields: [{name, data_type, sortable...}], subreports: [{name, code}]}}.
 */
import type { Obj } from '../json';
import type { SubRow } from './definition';
import { type CustomSubreport, decimal, LINKED_SUBREPORTS, RIGHTS_COLUMNS, rightsRow, shown } from './custom-subreports';
import { agentName, extentText, identifier, joined, labelled, labelledAll, list, plain, resolved, yesNo } from './values';

export type FieldKind = 'String' | 'Boolean' | 'Date' | 'Enum' | 'User' | 'Decimal' | 'AgentType';

export interface CustomField {
  name: string;
  data_type: FieldKind;
  sortable?: boolean;
  translation_scope?: string;
  enum_name?: string;
  alias?: string;
}

type Spec = [name: string, kind: FieldKind, options?: Omit<CustomField, 'name' | 'data_type'>];
const S = { sortable: true };
const text = (names: string[], options?: Spec[2]): Spec[] => names.map((n) => [n, 'String', options]);
const flags = (names: string[]): Spec[] => names.map((n) => [n, 'Boolean']);

const GLOBAL: Spec[] = [
  ['created_by', 'User', { sortable: true, translation_scope: 'advanced_search.text' }],
  ['last_modified_by', 'User', { sortable: true, translation_scope: 'advanced_search.text' }],
  ['create_time', 'Date', { sortable: true, translation_scope: 'advanced_search.date' }],
  ['user_mtime', 'Date', { sortable: true, translation_scope: 'advanced_search.date' }],
];

/** The record types a custom report may walk, their fields in ArchivesSpace's order. */
const FIELDS: Record<string, Spec[]> = {
  accession: [
    ['access_restrictions', 'Boolean'], ['access_restrictions_note', 'String'], ['accession_date', 'Date', S], ['acquisition_type', 'Enum', S],
    ...text(['condition_description', 'content_description', 'disposition']), ['identifier', 'String', S], ...text(['general_note', 'inventory', 'provenance']),
    ['publish', 'Boolean'], ['resource_type', 'Enum', S], ['restrictions_apply', 'Boolean'], ['retention_rule', 'String'], ['title', 'String', S],
    ['use_restrictions', 'Boolean'], ['use_restrictions_note', 'String'],
  ],
  agent: [['type', 'AgentType', S], ['publish', 'Boolean'], ['name', 'String', S]],
  archival_object: [
    ['component_id', 'String', S], ['level', 'Enum', { sortable: true, enum_name: 'archival_record_level' }], ['publish', 'Boolean'], ['ref_id', 'String', S],
    ['repository_processing_note', 'String'], ['restrictions_apply', 'Boolean'], ['title', 'String', S],
  ],
  assessment: [
    ...flags(['accession_report', 'appraisal', 'container_list', 'catalog_record', 'control_file', 'finding_aid_ead', 'finding_aid_paper', 'finding_aid_word', 'finding_aid_spreadsheet']),
    ...text(['surveyed_duration', 'surveyed_extent'], S), ['review_required', 'Boolean'], ...text(['purpose', 'scope'], S), ['sensitive_material', 'Boolean'],
    ...text(['general_assessment_note', 'special_format_note', 'exhibition_value_note']), ...flags(['deed_of_gift', 'finding_aid_online', 'related_eac_records']),
    ['existing_description_notes', 'String'], ['survey_begin', 'Date', S], ['survey_end', 'Date', S], ['review_note', 'String'], ['inactive', 'Boolean'],
    ['monetary_value', 'Decimal', S], ['monetary_value_note', 'String'], ['conservation_note', 'String'], ['reviewer', 'User'],
  ],
  classification: [['description', 'String'], ['identifier', 'String', S], ['title', 'String', S]],
  digital_object_component: [['component_id', 'String', S], ['label', 'String'], ['publish', 'Boolean'], ['title', 'String', S]],
  digital_object: [
    ['digital_object_id', 'String', S], ['digital_object_type', 'Enum', S], ['level', 'Enum', S], ['publish', 'Boolean'], ['restrictions', 'Boolean'], ['title', 'String', S],
  ],
  event: [['event_type', 'Enum', S], ['outcome', 'Enum', S], ['outcome_note', 'String']],
  location: [
    ...text(['area', 'barcode', 'building', 'classification', 'coordinate_1_indicator', 'coordinate_1_label', 'coordinate_2_indicator', 'coordinate_2_label',
      'coordinate_3_indicator', 'coordinate_3_label', 'floor', 'room'], S), ['temporary', 'Enum', S],
  ],
  resource: [
    ['identifier', 'String', S], ['level', 'Enum', { sortable: true, enum_name: 'archival_record_level' }], ['publish', 'Boolean'], ['repository_processing_note', 'String'],
    ['resource_type', 'Enum'], ['restrictions', 'Boolean'], ...text(['title', 'ead_id', 'ead_location', 'finding_aid_title', 'finding_aid_subtitle', 'finding_aid_date', 'finding_aid_author'], S),
    ['finding_aid_description_rules', 'Enum', S], ['finding_aid_language', 'Enum', { sortable: true, enum_name: 'language_iso639_2' }],
    ['finding_aid_script', 'Enum', { sortable: true, enum_name: 'script_iso15924' }], ['finding_aid_sponsor', 'String', S],
    ...text(['finding_aid_edition_statement', 'finding_aid_series_statement']), ['finding_aid_status', 'Enum', S], ['finding_aid_note', 'String', S],
  ],
  rights_statement: [
    ['rights_type', 'Enum', S], ['statute_citation', 'String', S], ['jurisdiction', 'Enum', S], ['status', 'Enum', { sortable: true, enum_name: 'rights_statement_ip_status' }],
    ['start_date', 'Date', S], ['end_date', 'Date', S], ['determination_date', 'Date', S], ['license_terms', 'String', S], ['other_rights_basis', 'Enum', S],
  ],
  subject: [['title', 'String', { sortable: true, alias: 'terms' }], ['authority_id', 'String', S], ['scope_note', 'String'], ['source', 'Enum', S]],
  user: text(['username', 'email', 'name', 'first_name', 'last_name'], S),
  // ArchivesSpace registers none of a deaccession's own (only the global ones): ours are its deaccession sub-report's columns.
  deaccession: [['scope', 'Enum', S], ['description', 'String', S], ['reason', 'String'], ['disposition', 'String'], ['notification', 'Boolean']],
};

const field = ([name, data_type, options]: Spec): CustomField => ({ ...options, name, data_type });

const DATE_COLUMNS = ['date_type', 'label', 'certainty', 'expression', 'begin', 'end', 'era', 'calendar'];
const USER_DEFINED_COLUMNS = [
  ...[1, 2, 3].map((n) => `boolean_${n}`), ...[1, 2, 3].map((n) => `integer_${n}`), ...[1, 2, 3].map((n) => `real_${n}`), ...[1, 2, 3, 4].map((n) => `string_${n}`),
  ...[1, 2, 3, 4, 5].map((n) => `text_${n}`), ...[1, 2, 3].map((n) => `date_${n}`), ...[1, 2, 3, 4].map((n) => `enum_${n}`),
];
const CONTACT_COLUMNS = ['name', 'salutation', 'address_1', 'address_2', 'address_3', 'city', 'region', 'country', 'post_code', 'email', 'email_signature'];
/** The value lists of sub-report columns ArchivesSpace writes as labels. */
const DATE_LISTS: Record<string, string> = { date_type: 'date_type', label: 'date_label', certainty: 'date_certainty', era: 'date_era', calendar: 'date_calendar' };
const dateRows = (dates: unknown): SubRow[] => list(dates).map((d) => Object.fromEntries(DATE_COLUMNS.map((k) => [k, shown(DATE_LISTS, k, d[k])])));

/** ArchivesSpace's custom sub-reports this backend offers, in the order it registers them. */
export const CUSTOM_SUBREPORTS: CustomSubreport[] = [
  {
    name: 'agent_contact', code: 'agent_contact_subreport', types: ['agent'],
    sub: [...CONTACT_COLUMNS, { name: 'telephone', sub: ['number', 'ext', 'number_type'] }],
    rows: (r) => list(r.agent_contacts).map((c) => ({
      ...Object.fromEntries(CONTACT_COLUMNS.map((k) => [k, k === 'salutation' ? labelled('agent_contact_salutation', c[k]) : plain(c[k])])),
      telephone: list(c.telephones).map((t) => ({ number: plain(t.number), ext: plain(t.ext), number_type: labelled('telephone_number_type', t.number_type) })),
    })),
  },
  {
    name: 'agent_name', code: 'names_subreport', types: ['agent'], sub: ['sort_name', 'source', 'rules', 'authority_id'],
    rows: (r) => list(r.names).map((n) => ({
      sort_name: plain(n.sort_name), source: labelled('name_source', n.source), rules: labelled('name_rule', n.rules), authority_id: plain(n.authority_id),
    })),
  },
  {
    name: 'linked_agent', code: 'agent_subreport', types: ['accession', 'archival_object', 'digital_object', 'digital_object_component', 'event', 'resource', 'rights_statement'],
    sub: ['role', 'relator', 'record_title', 'term', 'ref'], resolve: ['linked_agents.ref'],
    rows: (r) => list(r.linked_agents).map((l) => ({
      role: labelled('linked_agent_role', l.role), relator: labelled('linked_agent_archival_record_relators', l.relator), record_title: plain(l.title), term: joined(list(l.terms).map((t) => t.term))?.replace(/, /g, '; ') ?? null,
      ref: plain(agentName(resolved(l))),
    })),
  },
  {
    name: 'collection_management', code: 'collection_management_subreport', types: ['accession', 'resource', 'digital_object'],
    sub: ['processing_hours_per_foot_estimate', 'processing_hours_total', 'processing_plan', 'processing_priority', 'processing_status', 'processing_funding_source', 'processors', 'rights_determined', 'extent'],
    rows: (r) => (r.collection_management ? [r.collection_management as Obj] : []).map((c) => ({
      processing_hours_per_foot_estimate: decimal(c.processing_hours_per_foot_estimate), processing_hours_total: decimal(c.processing_hours_total),
      processing_plan: plain(c.processing_plan), processing_priority: labelled('collection_management_processing_priority', c.processing_priority),
      processing_status: labelled('collection_management_processing_status', c.processing_status),
      processing_funding_source: plain(c.processing_funding_source), processors: plain(c.processors), rights_determined: yesNo(c.rights_determined ?? null),
      extent: extentText([{ number: c.processing_total_extent, extent_type: c.processing_total_extent_type }]),
    })),
  },
  {
    name: 'date', code: 'date_subreport', types: ['accession', 'deaccession', 'archival_object', 'resource', 'event', 'digital_object', 'digital_object_component'],
    // A record's dates, or the one date an event or a deaccession has.
    sub: DATE_COLUMNS, rows: (r) => dateRows(r.dates ?? (r.date ? [r.date] : [])),
  },
  {
    name: 'deaccession', code: 'deaccession_subreport', types: ['accession', 'resource'], sub: ['scope', 'description', 'reason', 'disposition', 'notification'],
    rows: (r) => list(r.deaccessions).map((d) => ({
      scope: labelled('deaccession_scope', d.scope), description: plain(d.description), reason: plain(d.reason), disposition: plain(d.disposition), notification: yesNo(d.notification ?? null),
    })),
  },
  {
    name: 'event', code: 'event_subreport', types: ['accession', 'archival_object', 'resource', 'digital_object', 'digital_object_component', 'agent'],
    sub: ['event_type', 'outcome', 'timestamp', { name: 'date', sub: DATE_COLUMNS }], linkedBy: ['event'],
    rows: (r, run) => list(r._linkedBy?.event).filter((e) => run.includeSuppressed || !e.suppressed).map((e) => ({
      event_type: labelled('event_event_type', e.event_type), outcome: labelled('event_outcome', e.outcome), timestamp: plain(e.timestamp), date: dateRows(e.date ? [e.date] : []),
    })),
  },
  {
    name: 'extent', code: 'extent_subreport', types: ['accession', 'deaccession', 'archival_object', 'resource', 'digital_object', 'digital_object_component'],
    sub: ['portion', 'container_summary', 'physical_details', 'dimensions', 'extent'],
    rows: (r) => list(r.extents).map((e) => ({
      portion: labelled('extent_portion', e.portion), container_summary: plain(e.container_summary), physical_details: plain(e.physical_details),
      dimensions: plain(e.dimensions), extent: extentText([e]),
    })),
  },
  {
    name: 'external_document', code: 'external_document_subreport',
    types: ['accession', 'archival_object', 'resource', 'subject', 'digital_object', 'digital_object_component', 'agent', 'event', 'rights_statement'],
    sub: ['record_title', 'location', 'publish', 'identifier_type'],
    rows: (r) => list(r.external_documents).map((d) => ({ record_title: plain(d.title), location: plain(d.location), publish: yesNo(d.publish ?? null), identifier_type: labelled('rights_statement_external_document_identifier_type', d.identifier_type) })),
  },
  {
    name: 'language', code: 'language_subreport', types: ['archival_object', 'resource', 'digital_object', 'digital_object_component'], sub: ['language', 'script'],
    rows: (r) => list(r.lang_materials).map((l) => l.language_and_script).filter(Boolean).map((ls) => ({ language: labelled('language_iso639_2', ls.language), script: labelled('script_iso15924', ls.script) })),
  },
  {
    name: 'rights_statement', code: 'rights_statement_subreport', types: ['accession', 'archival_object', 'resource', 'digital_object', 'digital_object_component'],
    sub: RIGHTS_COLUMNS, rows: (r) => list(r.rights_statements).map(rightsRow),
  },
  {
    name: 'rights_statement_act', code: 'rights_statement_act_subreport', types: ['rights_statement'], sub: ['act_type', 'restriction', 'start_date', 'end_date'],
    rows: (r) => list(r.acts).map((a) => ({
      act_type: labelled('rights_statement_act_type', a.act_type), restriction: labelled('rights_statement_act_restriction', a.restriction), start_date: plain(a.start_date), end_date: plain(a.end_date),
    })),
  },
  {
    name: 'file_version', code: 'digital_object_component_file_version_subreport', types: ['digital_object_component'], sub: ['uri', 'use_statement'],
    rows: (r) => list(r.file_versions).map((f) => ({ uri: plain(f.file_uri), use_statement: labelled('file_version_use_statement', f.use_statement) })),
  },
  {
    name: 'subject', code: 'subject_subreport', types: ['accession', 'archival_object', 'digital_object', 'digital_object_component', 'resource'],
    sub: ['term', 'type', 'source', 'authority', 'scope_note'], resolve: ['subjects.ref'],
    rows: (r) => list(r.subjects).map(resolved).filter((s): s is Obj => !!s).map((s) => ({
      term: plain(s.title), type: labelledAll('subject_term_type', list(s.terms).map((t) => t.term_type)), source: labelled('subject_source', s.source), authority: plain(s.authority_id), scope_note: plain(s.scope_note),
    })),
  },
  {
    name: 'term', code: 'subject_term_subreport', types: ['subject'], sub: ['term', 'term_type'],
    rows: (r) => list(r.terms).map((t) => ({ term: plain(t.term), term_type: labelled('subject_term_type', t.term_type) })),
  },
  ...LINKED_SUBREPORTS,
  {
    name: 'user_defined', code: 'user_defined_subreport', types: ['accession', 'resource', 'digital_object'], sub: USER_DEFINED_COLUMNS,
    rows: (r) => (r.user_defined ? [r.user_defined as Obj] : []).map((u) => Object.fromEntries(USER_DEFINED_COLUMNS.map((k) => [
      k, k.startsWith('boolean') ? yesNo(u[k] ?? null) : k.startsWith('real') ? decimal(u[k]) : k.startsWith('enum') ? labelled(`user_defined_${k}`, u[k]) : plain(u[k]),
    ]))),
  },
];

export type { CustomSubreport };
export const CUSTOM_RECORD_TYPES = Object.keys(FIELDS);

/** A record type's fields (its own, then the global ones), as ArchivesSpace's fields_for. */
export const fieldsFor = (recordType: string): CustomField[] => [...(FIELDS[recordType] ?? []), ...GLOBAL].map(field);
export const subreportsFor = (recordType: string): CustomSubreport[] => CUSTOM_SUBREPORTS.filter((s) => s.types.includes(recordType));

/** GET /reports/custom_data. */
export function customData(): Obj {
  const out: Obj = { global: { fields: GLOBAL.map(field), subreports: [] } };
  for (const type of CUSTOM_RECORD_TYPES) {
    out[type] = { fields: FIELDS[type].map(field), subreports: subreportsFor(type).map((s) => ({ name: s.name, code: s.code })) };
  }
  return out;
}

const AGENT_TYPES: Record<string, string> = { agent_person: 'Person', agent_family: 'Family', agent_corporate_entity: 'Corporate Entity', agent_software: 'Software' };
/** ArchivesSpace's local time of a timestamp, "2020-01-02 10:11:12" (UTC here). */
const timeOf = (v: unknown) => (typeof v === 'string' && v ? v.replace('T', ' ').replace(/(\.\d+)?Z$/, '').slice(0, 19) : null);

/** What a field shows for a record (before its kind's formatting). */
export function fieldValue(recordType: string, name: string, r: Obj): unknown {
  if (name === 'identifier' && (recordType === 'accession' || recordType === 'resource')) return identifier(r) || null;
  if (recordType === 'agent' && name === 'name') return agentName(r);
  if (recordType === 'agent' && name === 'type') return AGENT_TYPES[r.jsonmodel_type];
  if (name === 'reviewer') return joined(list(r.reviewer).map((l) => agentName(resolved(l))));
  if (name === 'create_time' || name === 'user_mtime') return timeOf(r[name]);
  return r[name];
}

/** The properties a sortable field's records are walked in the order of. */
export function sortProperties(recordType: string, name: string): string[] {
  if (name === 'identifier' && (recordType === 'accession' || recordType === 'resource')) return ['id_0', 'id_1', 'id_2', 'id_3'];
  if (recordType === 'agent' && name === 'name') return ['title'];
  return [name];
}
