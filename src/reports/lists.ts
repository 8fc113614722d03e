/** The list reports: resources, subjects, agents, locations, users and their groups (ArchivesSpace's reports/{resources,subjects,agents,locations,users}). */
import type { Obj } from '../json';
import { groupsJoinedBy } from '../store/access';
import { jsonOfUris, linkersOfTypes, urisLinkedFrom } from '../store/report-reads';
import type { ReportDefinition, SubRow } from './definition';
import { INCLUDE_SUPPRESSED, dateLine, extentSubreport, locationInRoom } from './common';
import { agentName, identifier, labelled, labelledAll, list, plain, yesNo } from './values';

export const resourcesListReport: ReportDefinition = {
  code: 'resources_list_report',
  model: 'ResourcesListReport',
  title: 'Resources List',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['resource'],
  columns: [
    { name: 'record_title', value: (r) => plain(r.title) },
    { name: 'identifier', value: identifier },
    { name: 'level', value: (r) => labelled('archival_record_level', r.level) },
    { name: 'resource_type', value: (r) => labelled('resource_resource_type', r.resource_type) },
    { name: 'publish', value: (r) => yesNo(r.publish ?? false) },
    { name: 'restrictions', value: (r) => yesNo(r.restrictions ?? false) },
    { name: 'date', sub: ['_date'], value: (r) => list(r.dates).map((d): SubRow => ({ _date: dateLine(d) })) },
    extentSubreport,
  ],
};

/** Where a subject can be linked from (ArchivesSpace's subject_rlshp). */
const SUBJECT_LINKERS = ['accession', 'resource', 'archival_object', 'digital_object', 'digital_object_component'];

export const subjectListReport: ReportDefinition = {
  code: 'subject_list_report',
  model: 'SubjectListReport',
  title: 'Subject List',
  params: [],
  scope: 'global',
  types: ['subject'],
  async attach(s, records) {
    const linked = await urisLinkedFrom(s.db, records.map((r) => r.uri), SUBJECT_LINKERS);
    for (const r of records) r._linked = linked.has(r.uri);
  },
  // ArchivesSpace lists the subjects some record uses.
  where: (r) => r._linked === true,
  columns: [
    { name: 'term', value: (r) => plain(r.title) },
    { name: 'type', value: (r) => labelledAll('subject_term_type', list(r.terms).map((t) => t.term_type)) },
    { name: 'source', value: (r) => labelled('subject_source', r.source) },
  ],
};

const NAME_TYPES: Record<string, string> = { agent_person: 'Person', agent_family: 'Family', agent_corporate_entity: 'Corporate' };
const displayName = (a: Obj): Obj | undefined => a.display_name ?? list(a.names).find((n) => n.is_display_name) ?? list(a.names)[0];

export const agentListReport: ReportDefinition = {
  code: 'agent_list_report',
  model: 'AgentListReport',
  title: 'Agent List',
  params: [],
  scope: 'global',
  types: ['agent_person', 'agent_family', 'agent_corporate_entity'],
  linkedBy: [{ as: 'users', types: ['user'] }],
  // Names with a source, of agents that are not a user's own.
  where: (r) => displayName(r)?.source !== undefined && displayName(r)?.source !== null && !list(r._linkedBy?.users).length,
  columns: [
    { name: 'sort_name', value: (r) => plain(agentName(r)) },
    { name: 'name_type', value: (r) => NAME_TYPES[r.jsonmodel_type] ?? null },
    { name: 'name_source', value: (r) => labelled('name_source', displayName(r)?.source) },
  ],
};

const repoOf = (uri: string): number => Number(/^\/repositories\/(\d+)\//.exec(uri)?.[1] ?? 0);

/**
 * Each location's accessions and resources of the report's repository: the records with an
 * instance in a top container at the location (a component's through its resource).
 */
async function locationHoldings(s: Parameters<NonNullable<ReportDefinition['attach']>>[0], records: Obj[]): Promise<void> {
  const tops = await linkersOfTypes(s.db, records.map((r) => r.uri), ['top_container']);
  const holders = await linkersOfTypes(s.db, [...new Set(tops.map((t) => t.uri))], ['accession', 'resource', 'archival_object']);
  const parsed = holders.map((h) => ({ ...h, record: JSON.parse(h.json) as Obj }));
  const resourceUris = [...new Set(parsed.filter((h) => h.record.jsonmodel_type === 'archival_object').map((h) => h.record.resource?.ref).filter(Boolean))];
  const resources = new Map((await jsonOfUris(s.db, resourceUris)).map((r) => [r.uri, JSON.parse(r.json) as Obj]));
  for (const loc of records) {
    const topsHere = new Set(tops.filter((t) => t.to_uri === loc.uri).map((t) => t.uri));
    const here = parsed.filter((h) => topsHere.has(h.to_uri));
    loc._accessions = here.filter((h) => h.record.jsonmodel_type === 'accession').map((h) => ({ ...h.record, uri: h.uri }));
    const res = new Map<string, Obj>();
    for (const h of here) {
      if (h.record.jsonmodel_type === 'resource') res.set(h.uri, { ...h.record, uri: h.uri });
      else if (h.record.jsonmodel_type === 'archival_object' && !h.record.suppressed && resources.has(h.record.resource?.ref)) {
        res.set(h.record.resource.ref, { ...resources.get(h.record.resource.ref)!, uri: h.record.resource.ref });
      }
    }
    loc._resources = [...res.values()];
  }
}

const holdingRows = (records: unknown, run: { repoId: number; includeSuppressed: boolean }): SubRow[] => list(records)
  .filter((r) => repoOf(r.uri) === run.repoId && (run.includeSuppressed || !r.suppressed))
  .map((r) => ({ identifier: identifier(r), title: plain(r.title) }));

export const locationReport: ReportDefinition = {
  code: 'location_report',
  model: 'LocationReport',
  title: 'Location Report',
  params: [],
  scope: 'global',
  types: ['location'],
  attach: locationHoldings,
  columns: [
    { name: 'record_title', value: (r) => plain(r.title) },
    { name: 'building', value: (r) => plain(r.building) },
    { name: 'floor', value: (r) => plain(r.floor) },
    { name: 'room', value: (r) => plain(r.room) },
    { name: 'area', value: (r) => plain(r.area) },
    { name: 'barcode', value: (r) => plain(r.barcode) },
    { name: 'classification_number', value: (r) => plain(r.classification) },
    { name: 'location_in_room', value: locationInRoom },
    { name: 'accessions', sub: ['identifier', 'title'], value: (r, run) => holdingRows(r._accessions, run) },
    { name: 'resources', sub: ['identifier', 'title'], value: (r, run) => holdingRows(r._resources, run) },
  ],
};

const DATA = ['json', 'csv'] as const;
const PRINTED = ['html', 'pdf'] as const;
const flag = (v: unknown) => (v ? 1 : 0);

export const userGroupsReport: ReportDefinition = {
  code: 'user_groups_report',
  model: 'UserGroupsReport',
  title: 'User Groups Report',
  params: [],
  scope: 'global',
  types: ['user'],
  noRepositoryInfo: true,
  async attach(s, records) {
    for (const r of records) r._groups = await groupsJoinedBy(s.db, String(r.username));
  },
  columns: [
    { name: 'id', formats: [...DATA], value: (r) => Number(/(\d+)$/.exec(r.uri)?.[1]) },
    { name: 'identifier', value: (r) => plain(r.username) },
    { name: 'name', value: (r) => plain(r.name) },
    { name: 'department', value: (r) => plain(r.department) },
    { name: 'user_title', formats: [...PRINTED], value: (r) => plain(r.title) },
    { name: 'email', value: (r) => plain(r.email) },
    { name: 'telephone', value: (r) => plain(r.telephone) },
    { name: 'source', formats: [...DATA], value: (r) => plain(r.source) },
    {
      name: 'source', formats: [...PRINTED],
      value: (r) => [r.source, r.is_system_user ? 'SYSTEM_USER' : null, r.is_hidden_user ? 'HIDDEN_USER' : null].filter(Boolean).join(' '),
    },
    { name: 'is_system_user', formats: [...DATA], value: (r) => flag(r.is_system_user) },
    { name: 'is_hidden_user', formats: [...DATA], value: (r) => flag(r.is_hidden_user) },
    { name: 'title', formats: [...DATA], value: (r) => plain(r.title) },
    { name: 'groups', sub: ['description'], value: (r) => list(r._groups).map((g) => ({ description: plain(JSON.parse(g.json).description) })) },
  ],
};
