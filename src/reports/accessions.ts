/** Accession reports (ArchivesSpace's reports/accessions). */
import type { Obj } from '../json';
import type { ReportDefinition, SubRow } from './definition';
import { INCLUDE_SUPPRESSED, datesOfType } from './common';
import { agentName, extentText, identifier, idOf, joined, labelled, labelledAll, list, plain, resolved, yesNo } from './values';

export const eventsOf = (r: Obj, type: string): Obj[] => list(r._linkedBy?.events).filter((e) => e.event_type === type);

export function deaccessions(r: Obj): SubRow[] {
  return list(r.deaccessions).map((d) => ({
    description: plain(d.description), notification_sent: yesNo(d.notification ?? null),
    date: joined([d.date?.begin]), extent: extentText(list(d.extents)),
  }));
}

/** Each location the accession's containers are at, in location order, with those containers. */
function locations(r: Obj): SubRow[] {
  const byLocation = new Map<string, { title: string; containers: string[] }>();
  for (const inst of list(r.instances)) {
    const top = resolved(inst.sub_container?.top_container);
    if (!top) continue;
    const container = [top.type, top.indicator].filter((v) => v !== undefined && v !== null).join(' ');
    for (const cl of list(top.container_locations)) {
      const loc = resolved(cl);
      if (!loc) continue;
      const entry = byLocation.get(cl.ref) ?? { title: String(loc.title ?? ''), containers: [] };
      entry.containers.push(container);
      byLocation.set(cl.ref, entry);
    }
  }
  return [...byLocation.entries()].sort(([a], [b]) => idOf(a) - idOf(b))
    .map(([, e]) => ({ location: e.title, container: joined(e.containers) }));
}

export function names(r: Obj): SubRow[] {
  return list(r.linked_agents).map((l) => ({ name: agentName(resolved(l)) ?? 'Unknown', function: labelled('linked_agent_role', l.role), role: labelled('linked_agent_archival_record_relators', l.relator) }));
}

/** Subjects in subject order, with their terms' types and their source. */
export function subjects(r: Obj): SubRow[] {
  return list(r.subjects).filter((l) => resolved(l)).sort((a, b) => idOf(a.ref) - idOf(b.ref)).map((l) => {
    const subject = resolved(l)!;
    return { term: plain(subject.title), type: labelledAll('subject_term_type', list(subject.terms).map((t) => t.term_type)), source: labelled('subject_source', subject.source) };
  });
}

export const accessionReport: ReportDefinition = {
  code: 'accession_report',
  model: 'AccessionReport',
  title: 'Accession Report',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['accession'],
  resolve: ['linked_agents.ref', 'subjects.ref', 'instances.sub_container.top_container.ref', 'instances.sub_container.top_container._resolved.container_locations.ref'],
  linkedBy: [{ as: 'events', types: ['event'] }],
  countAs: 'number_of_accessions',
  columns: [
    { name: 'accession_number', value: identifier },
    { name: 'record_title', value: (r) => plain(r.title) },
    { name: 'accession_date', value: (r) => plain(r.accession_date) },
    { name: 'provenance', value: (r) => plain(r.provenance) },
    { name: 'general_note', value: (r) => plain(r.general_note) },
    { name: 'container_summary', value: (r) => joined(list(r.extents).map((e) => e.container_summary)) },
    { name: 'date_expression', value: (r) => joined(datesOfType(r, 'inclusive').map((d) => d.expression)) },
    { name: 'begin_date', value: (r) => joined(datesOfType(r, 'inclusive').map((d) => d.begin)) },
    { name: 'end_date', value: (r) => joined(datesOfType(r, 'inclusive').map((d) => d.end)) },
    { name: 'bulk_begin_date', value: (r) => joined(datesOfType(r, 'bulk').map((d) => d.begin)) },
    { name: 'bulk_end_date', value: (r) => joined(datesOfType(r, 'bulk').map((d) => d.end)) },
    { name: 'acquisition_type', value: (r) => labelled('accession_acquisition_type', r.acquisition_type) },
    { name: 'retention_rule', value: (r) => plain(r.retention_rule) },
    { name: 'description_note', value: (r) => plain(r.content_description) },
    { name: 'condition_note', value: (r) => plain(r.condition_description) },
    { name: 'inventory', value: (r) => plain(r.inventory) },
    { name: 'disposition_note', value: (r) => plain(r.disposition) },
    { name: 'restrictions_apply', value: (r) => yesNo(r.restrictions_apply ?? false) },
    { name: 'access_restrictions', value: (r) => yesNo(r.access_restrictions ?? false) },
    { name: 'access_restrictions_note', value: (r) => plain(r.access_restrictions_note) },
    { name: 'use_restrictions', value: (r) => yesNo(r.use_restrictions ?? false) },
    { name: 'use_restrictions_note', value: (r) => plain(r.use_restrictions_note) },
    { name: 'rights_transferred', value: (r) => yesNo(eventsOf(r, 'copyright_transfer').length > 0) },
    { name: 'rights_transferred_note', value: (r) => { const notes = eventsOf(r, 'copyright_transfer').map((e) => e.outcome_note).filter((n) => n !== undefined && n !== null); return notes.length ? notes.join(', ') : null; } },
    { name: 'acknowledgement_sent', value: (r) => yesNo(eventsOf(r, 'acknowledgement_sent').length > 0) },
    { name: 'extent', value: (r) => extentText(list(r.extents)) },
    { name: 'deaccessions', sub: ['description', 'notification_sent', 'date', 'extent'], value: deaccessions },
    { name: 'locations', sub: ['location', 'container'], value: locations },
    { name: 'names', sub: ['name', 'function', 'role'], value: names },
    { name: 'subjects', sub: ['term', 'type', 'source'], value: subjects },
  ],
};
