/**
 * MODS of an archival record: a digital object with its components (`/digital_objects/mods/:id.xml`,
 * the METS dmdSec, OAI `oai_mods`), also a resource or archival object through OAI. Valid against
 * mods.xsd: unlike ArchivesSpace's export, dates sit inside `originInfo` and uniform-title
 * subjects in `titleInfo/title`.
 *
 * record field → element:
 *   title → titleInfo/title; the schema's export.mods.identifier fields → identifier
 *   digital_object_type → typeOfResource (MODS's words); lang_materials → language/languageTerm (text, code), scriptTerm
 *   dates → originInfo/<element by label> (DATE_ELEMENTS): expression as text, else begin and end with
 *     encoding="w3cdtf" point="start"/"end"; certainty → @qualifier
 *   extents → physicalDescription/extent ("number type"), physical details and dimensions as its notes
 *   notes → NOTE_ELEMENTS (abstract, accessCondition, physicalDescription/note) or note@type
 *   repository → note displayLabel="Digital object made available by"
 *   subjects → subject@authority with topic / geographic / temporal / titleInfo / genre / occupation (by first term)
 *   linked agents → name@type (personal, corporate, family) with namePart and role/roleTerm (relator, else role);
 *     role "subject" → subject/name
 *   components → relatedItem type="constituent", nested
 */
import type { XmlWriter } from '../xml';
import { type Agent, type Archival, type DateSubrecord, agentName, joinedFields, linkedVisible, noteText, plainText, termsOf, visibleNotes } from './common';
import type { ComponentNode } from './components';
import { RELATOR_TERMS } from './marc-tables';

export const MODS_NS = 'http://www.loc.gov/mods/v3';

/** The schema block `x-archive.export.mods`: the fields that make up the record's identifier (joined with "."). */
export interface ModsMapping {
  identifier?: string[];
}

const DATE_ELEMENTS: Record<string, string> = {
  creation: 'dateCreated', digitized: 'dateCaptured', copyright: 'copyrightDate', modified: 'dateModified',
  broadcast: 'dateIssued', issued: 'dateIssued', publication: 'dateIssued',
};

/** Note type → [element, its @type, inside physicalDescription]. Others: note@type. */
const NOTE_ELEMENTS: Record<string, [string, string | undefined, boolean?]> = {
  summary: ['abstract', undefined],
  abstract: ['abstract', undefined],
  scopecontent: ['abstract', 'scope and content'],
  accessrestrict: ['accessCondition', 'restrictionOnAccess'],
  userestrict: ['accessCondition', 'useAndReproduction'],
  legalstatus: ['accessCondition', 'legalstatus'],
  physdesc: ['note', 'physical_description', true],
  dimensions: ['note', 'dimensions', true],
};

const SUBJECT_ELEMENTS: Record<string, string> = {
  geographic: 'geographic', cultural_context: 'geographic', temporal: 'temporal', uniform_title: 'titleInfo',
  genre_form: 'genre', style_period: 'genre', technique: 'genre', function: 'genre', occupation: 'occupation',
};

const NAME_TYPES: Record<string, string> = {
  agent_person: 'personal', agent_corporate_entity: 'corporate', agent_family: 'family',
};

/** digital_object_type values → MODS typeOfResource words. */
const RESOURCE_TYPES: Record<string, string> = {
  text: 'text', cartographic: 'cartographic', notated_music: 'notated music', sound_recording: 'sound recording',
  sound_recording_musical: 'sound recording-musical', sound_recording_nonmusical: 'sound recording-nonmusical',
  still_image: 'still image', moving_image: 'moving image', three_dimensional_object: 'three dimensional object',
  software_multimedia: 'software, multimedia', mixed_materials: 'mixed material',
};

export interface ModsOptions {
  includeUnpublished: boolean;
  mapping: ModsMapping;
  /** The mapping of the components' type (their identifier fields differ). */
  componentMapping?: ModsMapping;
  /** Writes the namespace (and version) on the root; false inside documents that declare it. */
  standalone?: boolean;
  /** MODS version written on a standalone root (ArchivesSpace's export says 3.4; OAI's oai_mods 3.6). */
  version?: string;
}

function writeDates(w: XmlWriter, dates: DateSubrecord[] | undefined): void {
  const list = dates ?? [];
  if (!list.length) return;
  w.open('originInfo');
  for (const d of list) {
    const element = DATE_ELEMENTS[d.label] ?? 'dateOther';
    const qualifier = d.certainty && ['approximate', 'inferred', 'questionable'].includes(d.certainty) ? d.certainty : undefined;
    if (d.expression) {
      w.leaf(element, d.expression, { qualifier });
      continue;
    }
    if (d.begin) w.leaf(element, d.begin, { encoding: 'w3cdtf', point: d.end ? 'start' : undefined, qualifier });
    if (d.end) w.leaf(element, d.end, { encoding: 'w3cdtf', point: 'end', qualifier });
  }
  w.close();
}

function writeName(w: XmlWriter, link: { role?: string; relator?: string }, agent: Agent): void {
  const name = agentName(agent);
  w.open('name', { type: agent.jsonmodel_type && NAME_TYPES[agent.jsonmodel_type], authority: name.source, valueURI: /^https?:/.test(name.authority_id ?? '') ? name.authority_id : undefined });
  switch (agent.jsonmodel_type) {
    case 'agent_person':
      w.leaf('namePart', name.primary_name, { type: 'family' });
      w.leaf('namePart', name.rest_of_name, { type: 'given' });
      w.leaf('namePart', [name.prefix, name.title, name.suffix].filter(Boolean).join(', '), { type: 'termsOfAddress' });
      w.leaf('namePart', name.dates, { type: 'date' });
      break;
    case 'agent_family':
      w.leaf('namePart', name.family_name);
      w.leaf('namePart', name.dates, { type: 'date' });
      break;
    case 'agent_corporate_entity':
      w.leaf('namePart', name.primary_name);
      w.leaf('namePart', name.subordinate_name_1);
      w.leaf('namePart', name.subordinate_name_2);
      break;
    default:
      w.leaf('namePart', name.software_name ?? name.sort_name);
  }
  const role = link.relator ? RELATOR_TERMS[link.relator]?.toLowerCase() ?? link.relator : link.role;
  if (role) {
    w.open('role');
    w.leaf('roleTerm', role, { type: 'text', authority: link.relator ? 'marcrelator' : undefined });
    if (link.relator) w.leaf('roleTerm', link.relator, { type: 'code', authority: 'marcrelator' });
    w.close();
  }
  w.close();
}

function writeNotes(w: XmlWriter, record: Archival, o: ModsOptions, inPhysicalDescription: boolean): void {
  for (const note of visibleNotes(record, o.includeUnpublished)) {
    const [element, type, physical] = NOTE_ELEMENTS[note.type ?? ''] ?? ['note', note.type];
    if (!!physical !== inPhysicalDescription) continue;
    const text = plainText(noteText(note, o.includeUnpublished));
    if (text) w.leaf(element, text, { type, displayLabel: note.label });
  }
}

function writeBody(w: XmlWriter, record: Archival, children: ComponentNode[], o: ModsOptions, mapping: ModsMapping): void {
  w.open('titleInfo').leaf('title', record.title ?? record.display_string ?? '[untitled]').close();
  w.leaf('identifier', joinedFields(record, mapping.identifier ?? []));
  const typeOfResource = record.digital_object_type && RESOURCE_TYPES[record.digital_object_type];
  if (typeOfResource) w.leaf('typeOfResource', typeOfResource);
  for (const lm of record.lang_materials ?? []) {
    const ls = lm.language_and_script;
    if (ls?.language) {
      w.open('language');
      w.leaf('languageTerm', ls.language, { type: 'code', authority: 'iso639-2b' });
      w.leaf('scriptTerm', ls.script, { type: 'code', authority: 'iso15924' });
      w.close();
    }
    for (const n of lm.notes ?? []) {
      if (o.includeUnpublished || n.publish !== false) w.leaf('note', plainText(noteText(n, o.includeUnpublished)), { type: 'language' });
    }
  }
  writeDates(w, record.dates);
  const extents = record.extents ?? [];
  const physicalNotes = visibleNotes(record, o.includeUnpublished).some((n) => NOTE_ELEMENTS[n.type ?? '']?.[2]);
  if (extents.length || physicalNotes) {
    w.open('physicalDescription');
    for (const e of extents) w.leaf('extent', `${e.number} ${String(e.extent_type ?? '').replace(/_/g, ' ')}`.trim());
    for (const e of extents) {
      w.leaf('note', e.physical_details, { type: 'physical_description', displayLabel: 'Physical Details' });
      w.leaf('note', e.dimensions, { type: 'dimensions', displayLabel: 'Dimensions' });
    }
    writeNotes(w, record, o, true);
    w.close();
  }
  writeNotes(w, record, o, false);
  const repo = record.repository?._resolved;
  if (repo?.name) w.leaf('note', repo.name, { displayLabel: 'Digital object made available by' });
  for (const link of record.subjects ?? []) {
    const subject = linkedVisible(link, o.includeUnpublished);
    const terms = subject ? termsOf(subject) : [];
    if (!subject || !terms.length) continue;
    const element = SUBJECT_ELEMENTS[terms[0].term_type] ?? 'topic';
    const text = terms.map((t) => t.term).join(' -- ');
    w.open('subject', { authority: subject.source, valueURI: /^https?:/.test(subject.authority_id ?? '') ? subject.authority_id : undefined });
    if (element === 'titleInfo') w.open('titleInfo').leaf('title', text).close();
    else w.leaf(element, text);
    w.close();
  }
  for (const link of record.linked_agents ?? []) {
    const agent = linkedVisible(link, o.includeUnpublished);
    if (!agent) continue;
    if (link.role === 'subject') {
      w.open('subject');
      writeName(w, link, agent);
      w.close();
    } else writeName(w, link, agent);
  }
  for (const child of children) {
    w.open('relatedItem', { type: 'constituent' });
    writeBody(w, child.record, child.children, o, o.componentMapping ?? mapping);
    w.close();
  }
}

export function writeMods(w: XmlWriter, record: Archival, children: ComponentNode[], o: ModsOptions): void {
  w.open('mods', o.standalone === false ? { xmlns: MODS_NS } : {
    xmlns: MODS_NS,
    'xmlns:xlink': 'http://www.w3.org/1999/xlink',
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': `${MODS_NS} https://www.loc.gov/standards/mods/v3/mods-3-6.xsd`,
    version: o.version ?? '3.4',
  });
  writeBody(w, record, children, o, o.mapping);
  w.close();
}
