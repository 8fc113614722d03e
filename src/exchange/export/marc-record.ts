/**
 * A MARC record being assembled (leader, control fields, data fields with subfields) and its
 * MARCXML form. Shared by the bibliographic export of archival records and the authority export
 * of agents. Also the agent-name subfields both of them write (1XX/6XX/7XX).
 */
import type { Term } from '../../../generated/types';
import type { XmlWriter } from '../xml';
import { type Agent, type AgentNameForm, plainText } from './common';
import { MARC_NS, MARC_SCHEMA_LOCATION, RELATOR_TERMS, TERM_SUBFIELD } from './marc-tables';

export type Subfield = [code: string, text: string | undefined | null];

export interface DataField {
  tag: string;
  ind1: string;
  ind2: string;
  subfields: Array<[string, string]>;
}

export class MarcRecord {
  leader = '00000nz  a2200000n  4500';
  readonly control: Array<[string, string]> = [];
  private readonly fields: DataField[] = [];
  private readonly keyed = new Map<string, DataField>();

  /**
   * The field with these tag and indicators (and `key`), created on first use: fields such as
   * 041 or 040 collect subfields from several parts of the record.
   */
  field(tag: string, ind1 = ' ', ind2 = ' ', key = ''): DataField {
    const id = `${tag}|${ind1}|${ind2}|${key}`;
    let f = this.keyed.get(id);
    if (!f) {
      f = { tag, ind1, ind2, subfields: [] };
      this.keyed.set(id, f);
      this.fields.push(f);
    }
    return f;
  }

  /** A new field every time (notes, extents, subjects). */
  newField(tag: string, ind1 = ' ', ind2 = ' '): DataField {
    const f: DataField = { tag, ind1, ind2, subfields: [] };
    this.fields.push(f);
    return f;
  }

  /** Fields in tag order (stable: fields of one tag keep the order they were made in); empty ones left out. */
  dataFields(): DataField[] {
    return this.fields.filter((f) => f.subfields.length).sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  }
}

/** Adds the subfields that have text. */
export function addSubfields(field: DataField, ...subfields: Subfield[]): DataField {
  for (const [code, text] of subfields) {
    if (text === undefined || text === null) continue;
    const value = String(text);
    if (value.trim()) field.subfields.push([code, value]);
  }
  return field;
}

export function writeMarcRecord(w: XmlWriter, record: MarcRecord, namespaced = false): void {
  w.open('record', namespaced ? { xmlns: MARC_NS } : undefined);
  w.leaf('leader', record.leader);
  for (const [tag, text] of record.control) w.leaf('controlfield', text, { tag });
  for (const f of record.dataFields()) {
    w.open('datafield', { tag: f.tag, ind1: f.ind1, ind2: f.ind2 });
    // Markup typed into notes is not MARC: its text is kept, the tags dropped.
    for (const [code, text] of f.subfields) w.leaf('subfield', plainText(text), { code });
    w.close();
  }
  w.close();
}

/** The `collection` document ArchivesSpace's MARC exports write, with one record. */
export function writeMarcCollection(w: XmlWriter, record: MarcRecord): void {
  w.open('collection', {
    xmlns: MARC_NS,
    'xmlns:marc': MARC_NS,
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': MARC_SCHEMA_LOCATION,
  });
  writeMarcRecord(w, record);
  w.close();
}

/** The relator code in $4 and, when the code is known, its term in $e. */
export function relatorSubfields(relator: string | undefined, fallbackTerm?: string): Subfield[] {
  if (!relator) return fallbackTerm ? [['e', fallbackTerm]] : [];
  const term = RELATOR_TERMS[relator];
  return term ? [['e', term.toLowerCase()], ['4', relator]] : [['4', relator]];
}

/** Subdivisions of an agent used as a subject ($x, $y, $z...). */
export function termSubfields(terms: Term[]): Subfield[] {
  return terms
    .filter((t) => TERM_SUBFIELD[t.term_type])
    .map((t): Subfield => [TERM_SUBFIELD[t.term_type], t.term]);
}

function primaryIdentifier(agent: Agent): string | undefined {
  const ids = agent.agent_record_identifiers ?? [];
  return (ids.find((i) => i.primary_identifier) ?? ids[0])?.record_identifier;
}

function authorityId(agent: Agent): string | undefined {
  const names: AgentNameForm[] = agent.names ?? [];
  return names.find((n) => n.authority_id)?.authority_id;
}

/** Ends the last name subfield with a period unless it ends with one already or a parenthesis. */
function terminalPeriod(subs: Array<[string, string]>): void {
  const last = [...subs].reverse().find(([code]) => !/^[0-9]$/.test(code));
  if (last && !/[.)]$/.test(last[1])) last[1] += '.';
}

/** A comma at the end of the subfield before each of `codes`. */
function commaBefore(subs: Array<[string, string]>, codes: string[]): void {
  subs.forEach(([code], i) => {
    if (i > 0 && codes.includes(code) && !subs[i - 1][1].endsWith(',')) subs[i - 1][1] += ',';
  });
}

/**
 * The name subfields of an agent's display name, by the kind of agent: MARC's X00 (persons and
 * families) and X10 (corporate bodies) layouts with their punctuation, then the relator, terms
 * and identifiers. Returns the tag suffix ('00' or '10') and first indicator with them.
 */
export function agentNameSubfields(agent: Agent, name: AgentNameForm, extra: { relator?: Subfield[]; terms?: Subfield[] } = {}) {
  const subs: Array<[string, string]> = [];
  const push = (code: string, text: unknown) => {
    if (text !== undefined && text !== null && String(text).trim()) subs.push([code, String(text)]);
  };
  const relator = extra.relator ?? [];
  const roleTerm = relator.find(([c]) => c === 'e');
  const roleCode = relator.find(([c]) => c === '4');
  let suffix = '00';
  let ind1: string;
  switch (agent.jsonmodel_type) {
    case 'agent_corporate_entity':
      suffix = '10';
      ind1 = '2';
      push('a', name.primary_name);
      push('b', name.subordinate_name_1);
      push('b', name.subordinate_name_2);
      if (roleTerm) push('e', roleTerm[1]);
      if (name.number) push('n', `(${name.number})`);
      if (name.qualifier) push('g', `(${name.qualifier})`);
      for (const t of extra.terms ?? []) push(t[0], t[1]);
      commaBefore(subs, ['e', 'n', 'g']);
      break;
    case 'agent_family':
      ind1 = '3';
      push('a', name.family_name);
      push('d', name.dates);
      push('c', name.qualifier);
      if (roleTerm) push('e', roleTerm[1]);
      for (const t of extra.terms ?? []) push(t[0], t[1]);
      commaBefore(subs, ['d', 'c', 'e']);
      break;
    case 'agent_software':
      suffix = '53';
      ind1 = ' ';
      push('a', name.software_name);
      break;
    default: {
      ind1 = name.name_order === 'direct' ? '0' : '1';
      const joint = name.name_order === 'direct' ? ' ' : ', ';
      push('a', [name.primary_name, name.rest_of_name].filter(Boolean).join(joint));
      push('b', name.number);
      push('c', [name.prefix, name.title, name.suffix].filter(Boolean).join(', '));
      push('d', name.dates);
      if (roleTerm) push('e', roleTerm[1]);
      if (name.qualifier) push('g', `(${name.qualifier})`);
      if (name.fuller_form) push('q', `(${name.fuller_form})`);
      for (const t of extra.terms ?? []) push(t[0], t[1]);
      commaBefore(subs, ['c', 'd', 'e']);
    }
  }
  if (suffix !== '53') terminalPeriod(subs);
  if (roleCode) push('4', roleCode[1]);
  // Subject headings with subdivisions name the heading as a whole, not the agent's authority record.
  const subdivided = (extra.terms ?? []).length > 0;
  if (!subdivided) push('0', primaryIdentifier(agent) ?? authorityId(agent));
  return { suffix, ind1, subfields: subs };
}
