/**
 * The custom sub-reports of linked records (ArchivesSpace's reports/custom linked_*, classification
 * and assessment sub-reports, and those its agent, accession, assessment, digital object and
 * location reports register for the custom report). Each reads the record's own links, or the
 * records linking to it (`linkedBy`), as ArchivesSpace reads its relationship tables.
 */
import type { Obj } from '../json';
import type { Services } from '../records/context';
import { treeNodesOf } from '../store/domain-reads';
import type { RunParams, SubColumn, SubRow } from './definition';
import { attachInstances, INSTANCE_COLUMNS } from './instances';
import { attachHoldings, CONTAINERS, recordsByContainer } from './locations';
import { groupsJoinedBy } from '../store/access';
import { agentName, identifier, labelled, list, plain, resolved } from './values';

/**
 * What a page's sub-reports share beyond the records: the labels of the repository's assessment
 * attributes; the sub-reports the template includes, and how to give other objects (a
 * classification's terms) what those need, for a sub-report whose rows carry the others.
 */
export interface SubreportContext {
  attributeLabels: Map<number, string>;
  included: CustomSubreport[];
  prepare(s: Services, objects: Obj[], run: RunParams, subreports: CustomSubreport[]): Promise<void>;
}

/** A custom sub-report: the linked or nested records of a record, as rows. */
export interface CustomSubreport {
  name: string;
  code: string;
  types: string[];
  sub: SubColumn[];
  /** Links the page resolves, and the types of records linking to it, for this sub-report. */
  resolve?: string[];
  linkedBy?: string[];
  /** What else a page needs, read from the store (a classification's tree). */
  attach?(s: Services, records: Obj[], run: RunParams, ctx: SubreportContext): Promise<void>;
  rows(r: Obj, run: RunParams, ctx: SubreportContext): SubRow[];
  /** Its columns given the sub-reports the template includes, when each of its rows carries the others (ArchivesSpace's classification_term). */
  subWith?(included: CustomSubreport[]): SubColumn[];
}

/** Two decimals, as ArchivesSpace's fix_decimal_format; nothing stays nothing. */
export const decimal = (v: unknown) => (v === undefined || v === null || v === '' ? null : (Number(v) || 0).toFixed(2));

export const RIGHTS_COLUMNS = ['rights_type', 'statute_citation', 'jurisdiction', 'status', 'start_date', 'end_date', 'determination_date', 'license_terms', 'other_rights_basis'];
const RIGHTS_LISTS: Record<string, string> = {
  rights_type: 'rights_statement_rights_type', jurisdiction: 'country_iso_3166', status: 'rights_statement_ip_status', other_rights_basis: 'rights_statement_other_rights_basis',
};
export const shown = (lists: Record<string, string>, k: string, v: unknown) => (lists[k] ? labelled(lists[k], v) : plain(v));
export const rightsRow = (rs: Obj): SubRow => Object.fromEntries(RIGHTS_COLUMNS.map((k) => [k, shown(RIGHTS_LISTS, k, rs[k])]));

/** A linked record ArchivesSpace shows: of this repository, and not suppressed unless the run asks. */
const visible = (run: RunParams) => (x: Obj | undefined): x is Obj =>
  !!x && String(x.uri ?? '').startsWith(`/repositories/${run.repoId}/`) && (run.includeSuppressed || !x.suppressed);

/**
 * The records of a type linked with a record, each with what its link adds: an agent's role and
 * relator, an event's role. Events and assessments hold their links; resources hold their
 * accessions and components their resource; otherwise the records of the type link to it.
 */
function linkedOf(r: Obj, run: RunParams, type: string): Array<[Obj, SubRow]> {
  const keep = visible(run);
  // A subrecord walked on its own (a rights statement) is linked with the record holding it.
  if (r._parent) return [r._parent as Obj].filter((x) => x.jsonmodel_type === type && keep(x)).map((x): [Obj, SubRow] => [x, {}]);
  const parent = String(r.jsonmodel_type ?? '');
  if (parent.startsWith('agent_')) {
    return list(r._linkedBy?.[type]).filter(keep).flatMap((x) => list(x.linked_agents).filter((l) => l.ref === r.uri)
      .map((l): [Obj, SubRow] => [x, { role: labelled('linked_agent_role', l.role), relator: labelled('linked_agent_archival_record_relators', l.relator) }]));
  }
  if (parent === 'event') {
    return list(r.linked_records).filter((l) => resolved(l)?.jsonmodel_type === type && keep(resolved(l)))
      .map((l): [Obj, SubRow] => [resolved(l)!, { role: labelled('linked_event_archival_record_roles', l.role) }]);
  }
  const own = parent === 'assessment' ? list(r.records) : parent === 'resource' && type === 'accession' ? list(r.related_accessions)
    : parent === 'archival_object' && type === 'resource' && r.resource ? [r.resource as Obj] : undefined;
  const records = own ? own.map(resolved).filter((x) => x?.jsonmodel_type === type) : list(r._linkedBy?.[type]);
  return records.filter(keep).map((x): [Obj, SubRow] => [x, {}]);
}

const LINK_RESOLVE = ['linked_records.ref', 'records.ref', 'related_accessions.ref', 'resource.ref'];

/**
 * A linked-record sub-report, as ArchivesSpace registers it: one name and code, its columns, and
 * for agents and events the columns their links add (so three entries, each for its record types).
 */
function linkedFamily(type: string, code: string, types: string[], sub: string[], row: (x: Obj) => SubRow, resolve: string[] = []): CustomSubreport[] {
  const plainTypes = types.filter((t) => t !== 'agent' && t !== 'event');
  const of = (extra: string[], forTypes: string[]): CustomSubreport => ({
    name: type, code, types: forTypes, sub: [...sub, ...extra], resolve: [...LINK_RESOLVE, ...resolve], linkedBy: [type],
    rows: (r, run) => linkedOf(r, run, type).map(([x, more]) => ({ ...row(x), ...more })),
  });
  return [of([], plainTypes), of(['role', 'relator'], ['agent']), of(['role'], ['event'])];
}

const accessionRow = (x: Obj): SubRow => ({ identifier: identifier(x), title: plain(x.title) });
const archivalObjectRow = (x: Obj): SubRow => ({
  component_id: plain(x.component_id), title: plain(x.title), ref_id: plain(x.ref_id), level: labelled('archival_record_level', x.level),
  root_record: resolved(x.resource as Obj) ? identifier(resolved(x.resource as Obj)!) : null,
});
const digitalObjectRow = (x: Obj): SubRow => ({ digital_object_id: plain(x.digital_object_id), title: plain(x.title) });
const componentRow = (x: Obj): SubRow => ({ component_id: plain(x.component_id), title: plain(x.title), root_record: plain(resolved(x.digital_object as Obj)?.digital_object_id) });
const ACCESSION_SUB = ['identifier', 'title'];
const ARCHIVAL_OBJECT_SUB = ['component_id', 'title', 'ref_id', 'level', 'root_record'];
const DIGITAL_OBJECT_SUB = ['digital_object_id', 'title'];
const COMPONENT_SUB = ['component_id', 'title', 'root_record'];
// The resources of archival objects and the digital objects of components, wherever those come from.
const rootsOf = (prop: string, type: string) => [`linked_records._resolved.${prop}.ref`, `records._resolved.${prop}.ref`, `_linkedBy.${type}.${prop}.ref`, `_parent.${prop}.ref`];

/** The names ArchivesSpace joins for an agent: each name's primary (or family, or software) name. */
const primaryNames = (agent: Obj | undefined) => {
  const names = [...new Set(list(agent?.names).map((n) => n.primary_name ?? n.family_name ?? n.software_name).filter(Boolean).map(String))];
  return names.length ? names.join('; ') : null;
};

interface TermNode { term: Obj; rid: number; parent: number | null; position: number }
/** A classification's terms with their places (kept in storage, not in their JSON). */
async function termsOf(s: Services, rootUri: string): Promise<TermNode[]> {
  return (await treeNodesOf(s.db, rootUri)).map((n) => ({
    term: { ...JSON.parse(n.json), suppressed: !!Number(n.suppressed) }, rid: Number(n.rid), parent: n.parent_rid === null ? null : Number(n.parent_rid), position: Number(n.position),
  }));
}

/** Each classification term linked: its identifier with its ancestors', as `_identifiers`. */
async function attachTermPaths(s: Services, records: Obj[]): Promise<void> {
  const terms = records.flatMap((r) => list(r.classifications).map(resolved)).filter((c): c is Obj => c?.jsonmodel_type === 'classification_term');
  const trees = new Map<string, TermNode[]>();
  for (const root of new Set(terms.map((c) => String((c.classification as Obj | undefined)?.ref ?? '')))) if (root) trees.set(root, await termsOf(s, root));
  for (const c of terms) {
    const nodes = trees.get(String((c.classification as Obj).ref)) ?? [];
    const byRid = new Map(nodes.map((n) => [n.rid, n]));
    const path: unknown[] = [];
    for (let n = nodes.find((x) => x.term.uri === c.uri); n; n = n.parent === null ? undefined : byRid.get(n.parent)) path.unshift(n.term.identifier);
    c._identifiers = path;
  }
}

/** A classification or term's identifier: its root's, then each term's down to it, joined with slashes. */
function classificationIdentifier(c: Obj): string | null {
  const root = resolved(c.classification as Obj);
  const parts = c.jsonmodel_type === 'classification_term' ? [root?.identifier, ...list(c._identifiers).length ? (c._identifiers as unknown[]) : [c.identifier]] : [c.identifier];
  return parts.filter(Boolean).join('/') || null;
}

const TERM_DEPTH = 4;
const TERM_COLUMNS = ['identifier', 'title', 'description'];
const NESTING = 'classification_term';
/** A term's columns: its own, then the template's sub-reports in their order, its terms below among them (to four levels). */
const termSub = (depth: number, included: Array<Pick<CustomSubreport, 'name' | 'sub'>>): SubColumn[] => [...TERM_COLUMNS, ...included.flatMap((sr): SubColumn[] => (sr.name !== NESTING
  ? [{ name: sr.name, sub: sr.sub }] : depth > 1 ? [{ name: NESTING, sub: termSub(depth - 1, included) }] : []))];
/**
 * A classification's terms as a tree: each level in position order, each term with the template's
 * other sub-reports for it (its linked accessions and resources, its creator) and its terms below.
 */
function termRows(nodes: TermNode[], parent: number | null, depth: number, run: RunParams, ctx: SubreportContext): SubRow[] {
  return nodes.filter((n) => n.parent === parent).sort((a, b) => a.position - b.position).map(({ term: t, rid }) => {
    const row: SubRow = { identifier: plain(t.identifier), title: plain(t.title), description: plain(t.description) };
    for (const sr of ctx.included) {
      if (sr.name !== NESTING) {
        const rows = sr.rows(t, run, ctx);
        row[sr.name] = rows.length ? rows : null;
      } else if (depth > 1) {
        const below = termRows(nodes, rid, depth - 1, run, ctx);
        row[NESTING] = below.length ? below : null;
      }
    }
    return row;
  });
}

const ASSESSMENT_FLAGS = ['accession_report', 'appraisal', 'container_list', 'catalog_record', 'control_file', 'deed_of_gift', 'finding_aid_ead', 'finding_aid_online',
  'finding_aid_paper', 'finding_aid_word', 'finding_aid_spreadsheet', 'related_eac_records'];
const ASSESSMENT_COLUMNS = ['id', ...ASSESSMENT_FLAGS, 'survey_begin', 'survey_end', 'surveyed_duration', 'surveyed_extent', 'review_required', 'inactive', 'sensitive_material',
  'purpose', 'scope', 'general_assessment_note', 'exhibition_value_note', 'existing_description_notes', 'review_note', 'monetary_value', 'monetary_value_note',
  'special_format_note', 'conservation_note'];
const ASSESSMENT_YES_NO = new Set([...ASSESSMENT_FLAGS, 'review_required', 'inactive', 'sensitive_material']);
const yesNoFlag = (v: unknown) => (v === undefined || v === null ? null : v === true || v === 1 || v === '1' || v === 'true' ? 'Yes' : 'No');
/** Attributes an assessment has: ratings with a value, formats and issues ticked. */
const chosen = (attrs: unknown) => list(attrs).filter((a) => a.value !== undefined && a.value !== null && a.value !== '' && a.value !== 'false' && a.value !== false);
const ratingRows = (a: Obj, ctx: SubreportContext): SubRow[] => chosen(a.ratings).map((x) => ({ field: plain(ctx.attributeLabels.get(Number(x.definition_id)) ?? x.label), rating: plain(x.value), note: plain(x.note) }));
const attributeRows = (attrs: unknown, ctx: SubreportContext): SubRow[] => chosen(attrs).map((x) => ({ _format: plain(ctx.attributeLabels.get(Number(x.definition_id)) ?? x.label) }));
const peopleRows = (refs: unknown, column: string): SubRow[] => list(refs).map((l) => agentName(resolved(l))).filter(Boolean).map((n) => ({ [column]: String(n) }));
const ASSESSMENT_PARTS: SubColumn[] = [
  { name: 'ratings', sub: ['field', 'rating', 'note'] }, { name: 'formats', sub: ['_format'] }, { name: 'conservation_issues', sub: ['_format'] },
  { name: 'surveyed_by', sub: ['_surveyed_by'] }, { name: 'reviewer', sub: ['_reviewer'] },
];
function assessmentRow(a: Obj, ctx: SubreportContext): SubRow {
  const row: SubRow = Object.fromEntries(ASSESSMENT_COLUMNS.map((k) => [k, k === 'id' ? Number(/\/(\d+)$/.exec(String(a.uri))?.[1] ?? 0)
    : ASSESSMENT_YES_NO.has(k) ? yesNoFlag(a[k]) : k === 'monetary_value' ? decimal(a[k]) : plain(a[k])]));
  const orNull = (rows: SubRow[]) => (rows.length ? rows : null);
  return {
    ...row, ratings: orNull(ratingRows(a, ctx)), formats: orNull(attributeRows(a.formats, ctx)), conservation_issues: orNull(attributeRows(a.conservation_issues, ctx)),
    surveyed_by: orNull(peopleRows(a.surveyed_by, '_surveyed_by')), reviewer: orNull(peopleRows(a.reviewer, '_reviewer')),
  };
}

const RELATIONSHIPS: Record<string, string> = {
  agent_relationship_parentchild: 'Parent/Child Relationship', agent_relationship_earlierlater: 'Earlier/Later Relationship',
  agent_relationship_subordinatesuperior: 'Subordinate/Superior Relationship', agent_relationship_associative: 'Associative Relationship',
  agent_relationship_identity: 'Identity Relationship', agent_relationship_hierarchical: 'Hierarchical Relationship',
  agent_relationship_temporal: 'Temporal Relationship', agent_relationship_family: 'Family Relationship',
};
const HOLDERS: Array<[string, SubColumn[], (x: Obj) => SubRow]> = [
  ['accession', ACCESSION_SUB, accessionRow], ['archival_object', ARCHIVAL_OBJECT_SUB, archivalObjectRow], ['digital_object', DIGITAL_OBJECT_SUB, digitalObjectRow],
  ['digital_object_component', COMPONENT_SUB, componentRow], ['resource', ACCESSION_SUB, accessionRow],
];
const HOLDER_TYPES = HOLDERS.map(([t]) => t);
const one = (row: SubRow | undefined) => (row ? [row] : null);

/** The sub-reports of linked records, in the order ArchivesSpace registers them. */
export const LINKED_SUBREPORTS: CustomSubreport[] = [
  {
    name: 'instance', code: 'accession_instances_subreport', types: ['accession'], sub: INSTANCE_COLUMNS, attach: attachInstances, rows: (r) => list(r._instances) as unknown as SubRow[],
  },
  {
    name: 'interrelated_accession', code: 'accession_linked_accessions_subreport', types: ['accession'], sub: ['relationship_type'], resolve: ['related_accessions.ref'],
    rows: (r, run) => list(r.related_accessions).filter((l) => visible(run)(resolved(l))).map((l) => ({
      relationship_type: [identifier(r), labelled(String(l.jsonmodel_type ?? '').replace(/_relationship$/, '_relator'), l.relator), identifier(resolved(l)!)].filter(Boolean).join(' '),
    })),
  },
  {
    name: 'related_agent', code: 'agent_related_agent_subreport', types: ['agent'], sub: ['_agents', 'relationship_type', 'description'], resolve: ['related_agents.ref'],
    rows: (r) => list(r.related_agents).map((l) => ({
      _agents: [agentName(r), agentName(resolved(l))].filter(Boolean).join('; ') || null, relationship_type: RELATIONSHIPS[String(l.jsonmodel_type)] ?? plain(l.jsonmodel_type), description: plain(l.description),
    })),
  },
  {
    name: 'rights_statement', code: 'agent_rights_statement_subreport', types: ['agent'],
    sub: [...RIGHTS_COLUMNS, ...HOLDERS.map(([name, sub]) => ({ name, sub }))], linkedBy: HOLDER_TYPES,
    resolve: ['_linkedBy.archival_object.resource.ref', '_linkedBy.digital_object_component.digital_object.ref'],
    rows: (r, run) => HOLDERS.flatMap(([type, , row]) => list(r._linkedBy?.[type]).filter(visible(run)).flatMap((x) => list(x.rights_statements)
      .filter((rs) => list(rs.linked_agents).some((l) => l.ref === r.uri))
      .map((rs) => ({ ...rightsRow(rs), ...Object.fromEntries(HOLDER_TYPES.map((t) => [t, t === type ? one(row(x)) : null])) })))),
  },
  {
    name: 'ratings', code: 'assessment_rating_subreport', types: ['assessment'], sub: ['field', 'rating', 'note'], rows: (r, _run, ctx) => ratingRows(r, ctx),
  },
  { name: 'formats', code: 'assessment_material_types_formats_subreport', types: ['assessment'], sub: ['_format'], rows: (r, _run, ctx) => attributeRows(r.formats, ctx) },
  { name: 'conservation_issues', code: 'assessment_conservation_issues_subreport', types: ['assessment'], sub: ['_format'], rows: (r, _run, ctx) => attributeRows(r.conservation_issues, ctx) },
  { name: 'surveyed_by', code: 'assessment_surveyed_by_subreport', types: ['assessment'], sub: ['_surveyed_by'], resolve: ['surveyed_by.ref'], rows: (r) => peopleRows(r.surveyed_by, '_surveyed_by') },
  { name: 'reviewer', code: 'assessment_reviewer_subreport', types: ['assessment'], sub: ['_reviewer'], resolve: ['reviewer.ref'], rows: (r) => peopleRows(r.reviewer, '_reviewer') },
  {
    name: 'assessment', code: 'assessment_subreport', types: ['accession', 'resource', 'archival_object', 'digital_object'], sub: [...ASSESSMENT_COLUMNS, ...ASSESSMENT_PARTS],
    linkedBy: ['assessment'], resolve: ['_linkedBy.assessment.surveyed_by.ref', '_linkedBy.assessment.reviewer.ref'],
    rows: (r, run, ctx) => list(r._linkedBy?.assessment).filter(visible(run)).map((a) => assessmentRow(a, ctx)),
  },
  {
    name: 'creator', code: 'classification_creator_subreport', types: ['classification'], sub: ['_creator'], resolve: ['creator.ref'],
    rows: (r) => (resolved(r.creator as Obj) ? [{ _creator: primaryNames(resolved(r.creator as Obj)) }] : []),
  },
  {
    name: 'classification', code: 'classification_subreport', types: ['accession', 'resource'], sub: ['identifier', 'title', 'description'],
    resolve: ['classifications.ref', 'classifications._resolved.classification.ref'], attach: attachTermPaths,
    rows: (r, run) => list(r.classifications).map(resolved).filter(visible(run)).map((c) => ({ identifier: classificationIdentifier(c), title: plain(c.title), description: plain(c.description) })),
  },
  {
    name: NESTING, code: 'classification_term_subreport', types: ['classification'], sub: termSub(TERM_DEPTH, [{ name: NESTING, sub: [] }]), subWith: (included) => termSub(TERM_DEPTH, included),
    attach: async (s, records, run, ctx) => {
      for (const r of records) r._terms = await termsOf(s, String(r.uri));
      // Each term is given what the other sub-reports read of it (its linkers, its creator), as a classification is.
      await ctx.prepare(s, records.flatMap((r) => (r._terms as TermNode[]).map((n) => n.term)), run, ctx.included.filter((sr) => sr.name !== NESTING));
    },
    rows: (r, run, ctx) => termRows((r._terms as TermNode[]).filter((n) => run.includeSuppressed || !n.term.suppressed), null, TERM_DEPTH, run, ctx),
  },
  ...linkedFamily('accession', 'linked_accession_subreport', ['assessment', 'deaccession', 'subject', 'classification', 'rights_statement', 'agent', 'event', 'resource'], ACCESSION_SUB, accessionRow),
  ...linkedFamily('archival_object', 'linked_archival_object_subreport', ['assessment', 'subject', 'rights_statement', 'agent', 'event', 'resource'], ARCHIVAL_OBJECT_SUB, archivalObjectRow,
    rootsOf('resource', 'archival_object')),
  ...linkedFamily('digital_object', 'linked_digital_object_subreport', ['assessment', 'subject', 'rights_statement', 'agent', 'event'], DIGITAL_OBJECT_SUB, digitalObjectRow),
  ...linkedFamily('digital_object_component', 'linked_digital_object_component_subreport', ['subject', 'rights_statement', 'agent', 'event'], COMPONENT_SUB, componentRow,
    rootsOf('digital_object', 'digital_object_component')),
  ...linkedFamily('resource', 'linked_resource_subreport', ['assessment', 'deaccession', 'subject', 'classification', 'rights_statement', 'agent', 'event', 'accession', 'archival_object'],
    ACCESSION_SUB, accessionRow),
  {
    name: 'file_version', code: 'digital_object_file_versions_list_subreport', types: ['digital_object'], sub: ['file_uri', 'digital_object_title', 'digital_object_component_title'],
    linkedBy: ['digital_object_component'],
    rows: (r, run) => [
      ...list(r.file_versions).map((f) => ({ file_uri: plain(f.file_uri), digital_object_title: plain(r.title), digital_object_component_title: null })),
      ...list(r._linkedBy?.digital_object_component).filter(visible(run)).filter((c) => (c.digital_object as Obj | undefined)?.ref === r.uri)
        .flatMap((c) => list(c.file_versions).map((f) => ({ file_uri: plain(f.file_uri), digital_object_title: null, digital_object_component_title: plain(c.title) }))),
    ],
  },
  ...[['resource', 'resource_instances_subreport'], ['archival_object', 'archival_object_instances_subreport']].map(([type, code]): CustomSubreport => ({
    name: 'instance', code, types: [type], sub: INSTANCE_COLUMNS, attach: attachInstances, rows: (r) => list(r._instances) as unknown as SubRow[],
  })),
  {
    name: 'location_function', code: 'location_functions_subreport', types: ['location'], sub: ['_function_type'],
    rows: (r) => list(r.functions).map((f) => ({ _function_type: labelled('location_function_type', f.location_function_type) })),
  },
  {
    name: 'owner_repo', code: 'location_owner_repo_subreport', types: ['location'], sub: ['_name'], resolve: ['owner_repo.ref'],
    rows: (r) => (resolved(r.owner_repo as Obj) ? [{ _name: plain(resolved(r.owner_repo as Obj)!.name) }] : []),
  },
  {
    name: 'location_profile', code: 'location_profiles_subreport', types: ['location'], sub: ['name', 'dimension_units', 'height', 'width', 'depth'], resolve: ['location_profile.ref'],
    rows: (r) => [resolved(r.location_profile as Obj)].filter((p): p is Obj => !!p).map((p) => ({
      name: plain(p.name), dimension_units: labelled('dimension_units', p.dimension_units), height: decimal(p.height), width: decimal(p.width), depth: decimal(p.depth),
    })),
  },
  // The repository's records in the containers at a location, each with those containers (as the shelflist).
  ...(['accession', 'resource'] as const).map((type): CustomSubreport => ({
    name: type, code: `location_${type}s_subreport`, types: ['location'], sub: ['identifier', 'title', CONTAINERS], attach: attachHoldings,
    rows: (r) => recordsByContainer(r, `${type}s`),
  })),
  {
    name: 'groups', code: 'user_groups_subreport', types: ['user'], sub: ['description'],
    attach: async (s, records) => { for (const r of records) r._groups = await groupsJoinedBy(s.db, String(r.username)); },
    rows: (r) => list(r._groups).map((g) => ({ description: plain(JSON.parse(String(g.json)).description) })),
  },
];
