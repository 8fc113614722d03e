/**
 * MARCXML (MARC 21 bibliographic) of an archival record: a resource through
 * `/repositories/:repo_id/resources/marc21/:id.xml`, and any type whose schema carries an
 * `x-archive.export.marc21` block through OAI-PMH (`oai_marc`).
 *
 * Common to every archival type (the fields of abstract_archival_object): 245 title and dates,
 * 1XX/7XX creators, 6XX agents and subjects, 300 extents, 041/546 languages, 852/040/049 the
 * holding repository, 5XX notes. The schema block names the type's own fields:
 *
 *   "export": { "marc21": {
 *     "identifier": ["id_0", "id_1", "id_2", "id_3"],   // 099 $a, joined with "."
 *     "findingAidUrl": "ead_location",                   // 856 42 $u
 *     "descriptionRules": "finding_aid_description_rules", // 040 $e
 *     "cataloguingLanguage": "finding_aid_language",    // 040 $b
 *     "notes": true                                      // 5XX from notes (resources; ArchivesSpace leaves components' out)
 *   } }
 */
import type { Repository } from '../../../generated/types';
import type { XmlWriter } from '../xml';
import { type Archival, type ArchivalNote, agentName, dateText, joinedFields, linkedVisible, mappedField, noteText, termsOf, visibleNotes } from './common';
import {
  addSubfields, agentNameSubfields, MarcRecord, relatorSubfields, Subfield, termSubfields, writeMarcCollection,
} from './marc-record';
import { MARC_COUNTRY, NOTE_FIELDS, sourceInd2, SUBJECT_TAG } from './marc-tables';

export interface Marc21Mapping {
  identifier?: string[];
  findingAidUrl?: string;
  descriptionRules?: string;
  cataloguingLanguage?: string;
  notes?: boolean;
}

/** The links a MARC export reads resolved. */
export const MARC21_RESOLVE = ['repository', 'linked_agents', 'subjects'];

interface Options {
  includeUnpublished: boolean;
}

/** Enumeration values shown as words ("linear_feet" → "linear feet"). */
const words = (value: unknown): string => String(value ?? '').replace(/_/g, ' ');

/** 008: entry date (yymmdd), date type and years, country, language, then the fixed tail. */
function field008(record: Archival, repo: Repository | undefined): string {
  const mtime = String(record.system_mtime ?? record.create_time ?? new Date().toISOString());
  const entered = mtime.slice(2, 4) + mtime.slice(5, 7) + mtime.slice(8, 10);
  const date = record.dates?.[0];
  let value = entered + (date?.date_type === 'single' ? 's' : 'i');
  value += (date?.begin ? String(date.begin).slice(0, 4) : '').padEnd(4, ' ');
  value += (date?.end ? String(date.end).slice(0, 4) : '').padEnd(4, ' ');
  value += repo?.country ? MARC_COUNTRY[repo.country] ?? 'xx' : 'xx';
  const languages = (record.lang_materials ?? []).map((l) => l.language_and_script?.language).filter(Boolean);
  value = value.padEnd(35, ' ') + (languages.length === 1 ? languages[0] : 'mul') + ' d';
  return value;
}

function addRepository(marc: MarcRecord, repo: Repository | undefined, cataloguingLanguage: string | undefined): void {
  if (!repo) return;
  const holding = marc.field('852');
  if (repo.parent_institution_name) addSubfields(holding, ['a', repo.parent_institution_name], ['b', repo.name]);
  else addSubfields(holding, ['a', repo.org_code ?? repo.name]);
  addSubfields(marc.field('040'), ['a', repo.org_code], ['b', cataloguingLanguage], ['c', repo.org_code]);
  if (repo.org_code) addSubfields(marc.field('049'), ['a', repo.org_code]);
}

function addTitle(marc: MarcRecord, record: Archival): void {
  const hasCreator = (record.linked_agents ?? []).some((l) => l.role === 'creator');
  const dates = record.dates ?? [];
  const main = dates.find((d) => d.date_type !== 'bulk');
  const bulk = dates.find((d) => d.date_type === 'bulk');
  const dateSubs: Subfield[] = [];
  if (main) dateSubs.push(['f', dateText(main)]);
  if (bulk) dateSubs.push(['g', dateText(bulk)]);
  const title = String(record.title ?? record.display_string ?? '');
  addSubfields(marc.field('245', hasCreator ? '1' : '0', '0'), ['a', dateSubs.length ? `${title},` : title], ...dateSubs);
}

/** 1XX for the primary creator, 7XX for other creators and sources, 6XX for agents as subjects. */
function addAgents(marc: MarcRecord, record: Archival, o: Options): void {
  const links = record.linked_agents ?? [];
  const creators = links.filter((l) => l.role === 'creator');
  const primary = creators.find((l) => l.is_primary) ?? creators[0];
  links.forEach((link, i) => {
    const agent = linkedVisible(link, o.includeUnpublished);
    if (!agent) return;
    const name = agentName(agent);
    if (link.role === 'subject') {
      const { suffix, ind1, subfields } = agentNameSubfields(agent, name, {
        relator: relatorSubfields(link.relator), terms: termSubfields(termsOf(link)),
      });
      const ind2 = suffix === '53' ? ' ' : sourceInd2(name.source);
      const f = marc.field(`6${suffix}`, ind1, ind2, String(i));
      f.subfields.push(...subfields);
      if (ind2 === '7') addSubfields(f, ['2', name.source]);
      return;
    }
    if (link.role !== 'creator' && link.role !== 'source') return;
    const isMain = link === primary;
    const fallback = link.role === 'source' ? 'former owner' : 'creator';
    const { suffix, ind1, subfields } = agentNameSubfields(agent, name, { relator: relatorSubfields(link.relator, fallback) });
    // Software has no 1XX/7XX name layout: it is an uncontrolled name (720).
    const tag = suffix === '53' ? '720' : `${isMain ? '1' : '7'}${suffix === '10' ? '10' : '00'}`;
    marc.field(tag, suffix === '53' ? ' ' : ind1, ' ', String(i)).subfields.push(...subfields);
  });
}

function addSubjects(marc: MarcRecord, record: Archival, o: Options): void {
  for (const link of record.subjects ?? []) {
    const subject = linkedVisible(link, o.includeUnpublished);
    if (!subject) continue;
    const [first, ...rest] = termsOf(subject);
    if (!first) continue;
    const tag = SUBJECT_TAG[first.term_type] ?? '650';
    const ind2 = tag === '656' ? '7' : sourceInd2(subject.source);
    const f = addSubfields(marc.newField(tag, tag === '630' ? '0' : ' ', ind2), ['a', first.term], ...termSubfields(rest));
    if (ind2 === '7') addSubfields(f, ['2', subject.source]);
    addSubfields(f, ['0', subject.authority_id]);
  }
}

function addExtents(marc: MarcRecord, record: Archival): void {
  for (const e of record.extents ?? []) {
    const type = words(e.extent_type) + (e.container_summary ? ` (${e.container_summary})` : '');
    addSubfields(marc.newField('300'), ['a', e.number], ['f', type], ['c', e.dimensions], ['b', e.physical_details]);
  }
}

function addNote(marc: MarcRecord, note: ArchivalNote, o: Options): void {
  if (note.jsonmodel_type === 'note_bibliography') {
    // A bibliography's items are citations (an index's, which are objects, do not come here).
    const items = [...(note.content ?? []), ...(note.items ?? [])].filter((i): i is string => typeof i === 'string');
    for (const item of items) addSubfields(marc.newField('581'), ['a', item]);
    return;
  }
  const spec = note.type ? NOTE_FIELDS[note.type] : undefined;
  if (!spec) return;
  let text = noteText(note, o.includeUnpublished);
  if (!text) return;
  if (!/[.!?]$/.test(text)) text += '.';
  if (spec.prefix) text = `${spec.prefix}: ${text}`;
  const ind1 = spec.privacyIndicator ? (note.publish ? '1' : '0') : spec.ind1 ?? ' ';
  addSubfields(marc.newField(spec.tag, ind1, ' '), [spec.code, text]);
}

function addLanguages(marc: MarcRecord, record: Archival, o: Options): void {
  for (const lm of record.lang_materials ?? []) {
    const code = lm.language_and_script?.language;
    if (code) addSubfields(marc.field('041'), ['a', code]);
    for (const note of lm.notes ?? []) if (o.includeUnpublished || note.publish !== false) addNote(marc, note, o);
  }
}

/** The MARC record of an archival record whose links (repository, agents, subjects) are resolved. */
export function buildMarc21(record: Archival, mapping: Marc21Mapping, o: Options): MarcRecord {
  const marc = new MarcRecord();
  marc.leader = `00000np${record.level === 'item' ? 'm' : 'c'}aa2200000 u 4500`;
  const repo = record.repository?._resolved;
  marc.control.push(['008', field008(record, repo)]);
  addRepository(marc, repo, mapping.cataloguingLanguage ? mappedField(record, mapping.cataloguingLanguage) : undefined);
  addTitle(marc, record);
  addAgents(marc, record, o);
  addSubjects(marc, record, o);
  addExtents(marc, record);
  addLanguages(marc, record, o);
  if (mapping.identifier) {
    addSubfields(marc.field('099'), ['a', joinedFields(record, mapping.identifier)]);
  }
  const findingAidUrl = mapping.findingAidUrl ? mappedField(record, mapping.findingAidUrl) : undefined;
  if (findingAidUrl) {
    addSubfields(marc.field('856', '4', '2'), ['z', 'Finding aid online:'], ['u', findingAidUrl]);
  }
  if (record.ark_name?.current) {
    addSubfields(marc.field('856', '4', '2', 'ark'), ['z', 'Archival Resource Key:'], ['u', record.ark_name.current]);
  }
  if (mapping.notes) for (const note of visibleNotes(record, o.includeUnpublished)) addNote(marc, note, o);
  if (mapping.descriptionRules) addSubfields(marc.field('040'), ['e', mappedField(record, mapping.descriptionRules)]);
  return marc;
}

/** The whole MARCXML document (a `collection` with one `record`), as the resource export answers it. */
export function writeMarc21Document(w: XmlWriter, record: Archival, mapping: Marc21Mapping, o: Options): void {
  writeMarcCollection(w, buildMarc21(record, mapping, o));
}
