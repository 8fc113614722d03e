/**
 * EAC-CPF 2010 (revised) of an agent: `/repositories/:repo_id/archival_contexts/<plural>/:id.xml`.
 * Valid against cpf.xsd: where ArchivesSpace leaves a required element out when the agent has no
 * record-control data (recordId, maintenanceAgency, maintenanceHistory), this export writes one
 * from the record itself (its URI, the repository, its create and modify times).
 *
 * record field → element:
 *   agent_record_identifiers (primary / others) → control/recordId, otherRecordId@localType
 *   agent_record_controls[0] → maintenanceStatus, publicationStatus, maintenanceAgency, languageDeclaration
 *   agent_conventions_declarations → conventionDeclaration(abbreviation, citation)
 *   agent_maintenance_histories → maintenanceHistory/maintenanceEvent
 *   agent_sources → sources/source(sourceEntry)
 *   agent_identifiers → identity/entityId@localType
 *   (type, from the schema's export.eac_cpf.entityType) → identity/entityType
 *   names → nameEntry(part@localType per export.eac_cpf.nameParts, useDates, authorizedForm | alternativeForm)
 *   dates_of_existence → description/existDates (dateSet when several)
 *   used_languages → languagesUsed/languageUsed; agent_places / occupations / functions → places, occupations, functions
 *   notes: bioghist, general_context, mandate, legal_status, structure_or_genealogy → biogHist, generalContext...
 *     with p, chronList, list, citation, abstract
 *   related_agents → relations/cpfRelation@cpfRelationType; linked archival records → resourceRelation creatorOf/subjectOf/other
 */
import type {
  AgentFunction, AgentOccupation, AgentPlace, AgentRecordControl, NoteOutlineLevel, Repository, StructuredDateLabel,
} from '../../../generated/types';
import { isoSeconds } from '../../records/context';
import type { XmlWriter } from '../xml';
import { type Agent, type AgentNameForm, agentName, mappedField, plainText, termsOf } from './common';
import { EacMapping, StructuredDate, structuredDate } from './agents';

const EAC_NS = 'urn:isbn:1-931666-33-4';

const MAINTENANCE_STATUS: Record<string, string> = {
  new: 'new', upgraded: 'revised', revised_corrected: 'revised', derived: 'derived', deleted: 'deleted',
  cancelled_obsolete: 'cancelled', deleted_split: 'deletedSplit', deleted_replaced: 'deletedReplaced', deleted_merged: 'deletedMerged',
};

/** Agent note types → EAC-CPF description elements, in the order the description lists them. */
const NOTE_ELEMENTS: Array<[string, string]> = [
  ['note_general_context', 'generalContext'],
  ['note_bioghist', 'biogHist'],
  ['note_mandate', 'mandate'],
  ['note_legal_status', 'legalStatus'],
  ['note_structure_or_genealogy', 'structureOrGenealogy'],
];

/** Relationship relators → cpfRelationType. */
const CPF_RELATION: Record<string, string> = {
  is_identified_with: 'identity', is_hierarchical_with: 'hierarchical', is_parent_of: 'hierarchical-parent',
  is_superior_of: 'hierarchical-parent', is_child_of: 'hierarchical-child', is_subordinate_to: 'hierarchical-child',
  is_temporal_with: 'temporal', is_earlier_form_of: 'temporal-earlier', is_later_form_of: 'temporal-later', is_related_with: 'family',
};

export interface EacInput {
  agent: Agent;
  mapping: EacMapping;
  /** The repository of the path (maintenance agency when the agent names none). */
  repository: Repository;
  /** Archival records that link to the agent. */
  linkedRecords: Array<{ role: string; uri: string; title: string }>;
}

function writeDate(w: XmlWriter, d: StructuredDate): void {
  const attrs = (p: NonNullable<StructuredDate['single']>) => ({ [p.kind]: p.standard });
  if (d.single) {
    w.leaf('date', d.single.text ?? d.single.standard, { localType: d.label, ...attrs(d.single) });
    return;
  }
  w.open('dateRange', { localType: d.label });
  if (d.from) w.leaf('fromDate', d.from.text ?? d.from.standard, attrs(d.from));
  if (d.to) w.leaf('toDate', d.to.text ?? d.to.standard, attrs(d.to));
  w.close();
}

/** One m.dates: a date, a range, or a dateSet holding several. */
function writeDates(w: XmlWriter, wrapper: string, dates: StructuredDateLabel[] | undefined): void {
  const list = (dates ?? []).map(structuredDate).filter((d): d is StructuredDate => !!d);
  if (!list.length) return;
  w.open(wrapper);
  if (list.length > 1) w.open('dateSet');
  for (const d of list) writeDate(w, d);
  if (list.length > 1) w.close();
  w.close();
}

function descriptiveNote(w: XmlWriter, text: unknown): void {
  if (!text) return;
  w.open('descriptiveNote').leaf('p', String(text)).close();
}

/** recordId is an NMTOKEN: characters it cannot hold (spaces, slashes) become `-`. */
const asNmtoken = (id: string) => id.replace(/[^\p{L}\p{N}._:-]+/gu, '-');

function writeControl(w: XmlWriter, input: EacInput): void {
  const { agent, repository } = input;
  const ids = agent.agent_record_identifiers ?? [];
  const primary = ids.find((i) => i.primary_identifier) ?? ids[0];
  const control: Partial<AgentRecordControl> = agent.agent_record_controls?.[0] ?? {};
  w.open('control');
  w.leaf('recordId', asNmtoken(primary?.record_identifier ?? String(agent.uri).replace(/^\//, '')));
  for (const other of ids.filter((i) => i !== primary)) w.leaf('otherRecordId', other.record_identifier, { localType: other.identifier_type });
  w.leaf('maintenanceStatus', MAINTENANCE_STATUS[control.maintenance_status ?? ''] ?? 'derived');
  w.leaf('publicationStatus', control.publication_status);
  w.open('maintenanceAgency');
  w.leaf('agencyCode', control.maintenance_agency ?? repository.org_code);
  w.leaf('agencyName', control.agency_name ?? repository.name);
  descriptiveNote(w, control.maintenance_agency_note);
  w.close();
  if (control.language) {
    w.open('languageDeclaration');
    w.leaf('language', control.language, { languageCode: control.language });
    w.leaf('script', control.script ?? 'Zyyy', { scriptCode: control.script ?? 'Zyyy' });
    descriptiveNote(w, control.language_note);
    w.close();
  }
  for (const cd of agent.agent_conventions_declarations ?? []) {
    if (!cd.name_rule && !cd.citation) continue;
    w.open('conventionDeclaration');
    w.leaf('abbreviation', cd.name_rule);
    w.leaf('citation', cd.citation ?? cd.name_rule, { 'xlink:href': cd.file_uri });
    descriptiveNote(w, cd.descriptive_note);
    w.close();
  }
  w.open('maintenanceHistory');
  const events = agent.agent_maintenance_histories ?? [];
  if (events.length) {
    for (const e of events) {
      w.open('maintenanceEvent');
      w.leaf('eventType', e.maintenance_event_type ?? 'updated');
      w.leaf('eventDateTime', e.event_date, { standardDateTime: e.event_date });
      w.leaf('agentType', e.maintenance_agent_type ?? 'human');
      w.leaf('agent', e.agent ?? 'unknown');
      w.leaf('eventDescription', e.descriptive_note);
      w.close();
    }
  } else {
    // The history is required: the record's own creation and last change stand in for it.
    for (const [type, time, who] of [['created', agent.create_time, agent.created_by], ['updated', agent.system_mtime, agent.last_modified_by]]) {
      if (!time) continue;
      w.open('maintenanceEvent');
      w.leaf('eventType', type);
      w.leaf('eventDateTime', time, { standardDateTime: time });
      w.leaf('agentType', 'human');
      w.leaf('agent', who ?? 'unknown');
      w.close();
    }
    if (!agent.create_time) {
      const now = isoSeconds(Date.now());
      w.open('maintenanceEvent').leaf('eventType', 'derived').leaf('eventDateTime', now, { standardDateTime: now })
        .leaf('agentType', 'machine').leaf('agent', 'Archive Records Backend').close();
    }
  }
  w.close();
  const sources = (agent.agent_sources ?? []).filter((x) => x.source_entry || x.descriptive_note);
  if (sources.length) {
    w.open('sources');
    for (const src of sources) {
      w.open('source', { 'xlink:href': src.file_uri });
      w.leaf('sourceEntry', src.source_entry);
      descriptiveNote(w, src.descriptive_note);
      w.close();
    }
    w.close();
  }
  w.close();
}

function writeNameEntry(w: XmlWriter, name: AgentNameForm, mapping: EacMapping): void {
  // The mapping's fields are data (the schema's x-archive.export.eac_cpf): read by name.
  const parts = Object.entries(mapping.nameParts).filter(([field]) => mappedField(name, field));
  if (!parts.length) parts.push(['sort_name', 'sort_name']);
  w.open('nameEntry', { 'xml:lang': name.language, scriptCode: name.script, transliteration: name.transliteration });
  for (const [field, localType] of parts) w.leaf('part', mappedField(name, field), { localType });
  writeDates(w, 'useDates', name.use_dates);
  if (name.source || name.rules) w.leaf(name.authorized ? 'authorizedForm' : 'alternativeForm', name.source ?? name.rules);
  w.close();
}

/** An agent's note and its parts, read by their jsonmodel_type. */
type AgentNote = NonNullable<Agent['notes']>[number];
type Subnote = NonNullable<AgentNote['subnotes']>[number];

function writeSubnote(w: XmlWriter, sub: Subnote): void {
  switch (sub.jsonmodel_type) {
    case 'note_text':
      w.leaf('p', plainText(String(sub.content ?? '')));
      break;
    case 'note_abstract':
      // Not a child of the description notes in EAC-CPF: kept as a paragraph.
      w.leaf('p', plainText((sub.content ?? []).join(' -- ')));
      break;
    case 'note_citation':
      w.leaf('citation', plainText((sub.content ?? []).join(' -- ')), { 'xlink:href': sub.xlink?.href });
      break;
    case 'note_orderedlist':
    case 'note_definedlist': {
      const items = sub.items ?? [];
      if (!items.length) break;
      w.open('list', { localType: sub.jsonmodel_type === 'note_orderedlist' ? 'ordered' : 'defined' });
      for (const item of items) {
        if (typeof item === 'string') w.leaf('item', item);
        else w.leaf('item', `${item.label ? `${item.label}: ` : ''}${item.value ?? ''}`);
      }
      w.close();
      break;
    }
    case 'note_chronology': {
      const pairs = (sub.items ?? []).flatMap((i) => (i.events ?? []).map((e) => [i.event_date, e] as const));
      if (!pairs.length) break;
      w.open('chronList', { localType: sub.title });
      for (const [date, event] of pairs) w.open('chronItem').leaf('date', date ?? 'undated').leaf('event', event).close();
      w.close();
      break;
    }
    case 'note_outline':
      for (const level of sub.levels ?? []) for (const item of flattenOutline(level)) w.leaf('p', item);
      break;
    default:
  }
}

function flattenOutline(level: NoteOutlineLevel): string[] {
  return (level.items ?? []).flatMap((i) => (typeof i === 'string' ? [i] : flattenOutline(i)));
}

function writeSubjectTerms(w: XmlWriter, wrapper: string, element: string, entries: Array<AgentPlace | AgentOccupation | AgentFunction> | undefined): void {
  const terms = (entries ?? []).flatMap((e) => (e.subjects ?? []).map((l) => l._resolved && (l._resolved.title ?? termsOf(l._resolved)[0]?.term)).filter(Boolean));
  if (!terms.length) return;
  w.open(wrapper);
  for (const term of terms) w.open(element).leaf('term', term).close();
  w.close();
}

function writeDescription(w: XmlWriter, agent: Agent): void {
  const languages = (agent.used_languages ?? []).filter((l) => l.language);
  const notes = NOTE_ELEMENTS.flatMap(([type, element]) =>
    (agent.notes ?? []).filter((n) => n.jsonmodel_type === type && n.publish !== false).map((n) => [element, n] as const));
  const hasSubjects = [agent.agent_places, agent.agent_occupations, agent.agent_functions].some((entries) => (entries ?? []).some((e) => (e.subjects ?? []).length));
  if (!(agent.dates_of_existence ?? []).length && !languages.length && !notes.length && !hasSubjects) return;
  w.open('description');
  writeDates(w, 'existDates', agent.dates_of_existence);
  if (languages.length) {
    w.open('languagesUsed');
    for (const l of languages) {
      w.open('languageUsed').leaf('language', l.language, { languageCode: l.language }).leaf('script', l.script ?? 'Zyyy', { scriptCode: l.script ?? 'Zyyy' }).close();
    }
    w.close();
  }
  writeSubjectTerms(w, 'places', 'place', agent.agent_places);
  writeSubjectTerms(w, 'occupations', 'occupation', agent.agent_occupations);
  writeSubjectTerms(w, 'functions', 'function', agent.agent_functions);
  for (const [element, note] of notes) {
    // An agent's notes hold their text in subnotes only (their schemas have no content).
    w.open(element);
    for (const sub of note.subnotes ?? []) writeSubnote(w, sub);
    w.close();
  }
  w.close();
}

function relatedName(agent: Agent): string {
  const n = agentName(agent);
  return n.sort_name ?? n.primary_name ?? n.family_name ?? n.software_name ?? agent.uri ?? '';
}

function writeRelations(w: XmlWriter, input: EacInput): void {
  const related = (input.agent.related_agents ?? []).filter((r) => r._resolved);
  if (!related.length && !input.linkedRecords.length) return;
  w.open('relations');
  for (const r of related) {
    w.open('cpfRelation', { cpfRelationType: CPF_RELATION[r.relator ?? ''] ?? 'associative', 'xlink:type': 'simple', 'xlink:href': r.ref });
    w.leaf('relationEntry', relatedName(r._resolved!));
    descriptiveNote(w, r.description);
    w.close();
  }
  for (const rec of input.linkedRecords) {
    const type = rec.role === 'creator' ? 'creatorOf' : rec.role === 'subject' ? 'subjectOf' : 'other';
    w.open('resourceRelation', { resourceRelationType: type, 'xlink:type': 'simple', 'xlink:href': rec.uri });
    w.leaf('relationEntry', rec.title);
    w.close();
  }
  w.close();
}

export function writeEacCpf(w: XmlWriter, input: EacInput): void {
  w.open('eac-cpf', {
    xmlns: EAC_NS,
    'xmlns:xlink': 'http://www.w3.org/1999/xlink',
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': `${EAC_NS} https://eac.staatsbibliothek-berlin.de/schema/cpf.xsd`,
    'xml:lang': 'eng',
  });
  writeControl(w, input);
  w.open('cpfDescription');
  w.open('identity');
  for (const id of input.agent.agent_identifiers ?? []) w.leaf('entityId', id.entity_identifier, { localType: id.identifier_type });
  w.leaf('entityType', input.mapping.entityType);
  const names: AgentNameForm[] = input.agent.names ?? [];
  for (const name of names.length ? names : [{ sort_name: input.agent.title ?? input.agent.uri }]) writeNameEntry(w, name, input.mapping);
  w.close();
  writeDescription(w, input.agent);
  writeRelations(w, input);
  w.close();
  w.close();
}
