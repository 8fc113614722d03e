/**
 * MARC 21 authority record of an agent: `/repositories/:repo_id/agents/<plural>/marc21/:id.xml`.
 *
 * record field → field:
 *   agent_record_controls[0] maintenance_status / level_of_detail → leader/05, /17; maintenance_agency → 003, 040 $a; language → 040 $b
 *   agent_record_identifiers[0] (else agent_identifiers, authority_id, the URI) → 001
 *   system_mtime → 005; create_time → 008/00-05
 *   agent_record_identifiers by identifier_type: loc → 010, lac → 016, local → 035, others → 024
 *   agent_conventions_declarations[0].name_rule → 040 $e
 *   dates_of_existence → 046 (subfields from the schema's export.marc_auth.datesOfExistence)
 *   the authorized name → 100 / 110; other names → 400 / 410; related_agents → 500 / 510
 *   agent_places, occupations, functions and topics (their subjects) → 370, 374, 372
 *   used_languages → 377; agent_sources → 670; bioghist notes → 678 ($a abstract, $b text)
 */
import type { AgentRecordControl, NoteAbstract, NoteText } from '../../../generated/types';
import { type Agent, type AgentNameForm, plainText, termsOf } from './common';
import { MarcAuthMapping, structuredDate } from './agents';
import { addSubfields, agentNameSubfields, MarcRecord, writeMarcCollection } from './marc-record';
import type { XmlWriter } from '../xml';

const LEADER_STATUS: Record<string, string> = {
  new: 'n', upgraded: 'a', revised_corrected: 'c', deleted: 'd', cancelled_obsolete: 'o', deleted_split: 's', deleted_replaced: 'x',
};

/** agent_record_identifiers.identifier_type → the field that carries it. */
const IDENTIFIER_FIELDS: Record<string, { tag: string; ind1: string; withSource: boolean }> = {
  loc: { tag: '010', ind1: ' ', withSource: false },
  lac: { tag: '016', ind1: '7', withSource: true },
  local: { tag: '035', ind1: ' ', withSource: true },
};
const OTHER_IDENTIFIER = { tag: '024', ind1: '7', withSource: true };

/** Subject sub-records of agents → authority fields. */
const SUBJECT_FIELDS: Array<['agent_places' | 'agent_functions' | 'agent_topics' | 'agent_occupations', string, string]> = [
  ['agent_places', '370', 'e'],
  ['agent_functions', '372', 'a'],
  ['agent_topics', '372', 'a'],
  ['agent_occupations', '374', 'a'],
];

function recordId(agent: Agent): string {
  const names: AgentNameForm[] = agent.names ?? [];
  return agent.agent_record_identifiers?.[0]?.record_identifier
    ?? agent.agent_identifiers?.[0]?.entity_identifier
    ?? names.find((n) => n.authority_id)?.authority_id
    ?? agent.uri ?? '';
}

/** 005: yyyymmddhhmmss.f */
const latestTransaction = (iso: string) => `${iso.replace(/[-:TZ]/g, '').slice(0, 14)}.0`;

export function buildMarcAuth(agent: Agent, mapping: MarcAuthMapping): MarcRecord {
  const marc = new MarcRecord();
  const control: Partial<AgentRecordControl> = agent.agent_record_controls?.[0] ?? {};
  const status = LEADER_STATUS[control.maintenance_status ?? ''] ?? 'n';
  marc.leader = `00000${status}z  a2200000${control.level_of_detail === 'fully_established' ? 'n' : 'o'}i 4500`;
  marc.control.push(['001', recordId(agent)]);
  if (control.maintenance_agency) marc.control.push(['003', control.maintenance_agency]);
  if (agent.system_mtime) marc.control.push(['005', latestTransaction(agent.system_mtime)]);
  const created = String(agent.create_time ?? '').replace(/-/g, '').slice(2, 8).padEnd(6, '0');
  // 008: date entered, then the fixed positions of a personal/corporate name heading (AACR2/RDA, established or not).
  marc.control.push(['008', `${created}n| azannaabn          |${control.level_of_detail === 'fully_established' ? 'a' : 'b'} a|     |  `.padEnd(40, ' ').slice(0, 40)]);

  for (const id of agent.agent_record_identifiers ?? []) {
    const spec = IDENTIFIER_FIELDS[id.identifier_type ?? ''] ?? OTHER_IDENTIFIER;
    const f = addSubfields(marc.newField(spec.tag, spec.ind1, ' '), ['a', id.record_identifier]);
    if (spec.withSource) addSubfields(f, ['2', id.source]);
  }
  const rules = (agent.agent_conventions_declarations ?? [])[0]?.name_rule;
  addSubfields(marc.field('040'), ['a', control.maintenance_agency], ['b', control.language], ['e', rules]);

  for (const d of agent.dates_of_existence ?? []) {
    const sd = structuredDate(d);
    if (!sd) continue;
    const start = sd.single ?? sd.from;
    addSubfields(marc.newField('046'), [mapping.datesOfExistence[0], start?.text ?? start?.standard], [mapping.datesOfExistence[1], sd.to?.text ?? sd.to?.standard]);
  }

  const names: AgentNameForm[] = agent.names ?? [];
  const heading = names.find((n) => n.authorized) ?? names.find((n) => n.is_display_name) ?? names[0];
  for (const name of names) {
    const { suffix, ind1, subfields } = agentNameSubfields(agent, name);
    // Only the heading carries the record's identifier; variants are just names.
    const subs = name === heading ? subfields : subfields.filter(([code]) => code !== '0');
    marc.newField(`${name === heading ? '1' : '4'}${suffix}`, ind1, ' ').subfields.push(...subs);
  }
  for (const related of agent.related_agents ?? []) {
    const other: Agent | undefined = related._resolved;
    if (!other) continue;
    const otherNames: AgentNameForm[] = other.names ?? [];
    const name = otherNames.find((n) => n.authorized) ?? otherNames[0];
    if (!name) continue;
    const { suffix, ind1, subfields } = agentNameSubfields(other, name);
    const f = marc.newField(`5${suffix}`, ind1, ' ');
    f.subfields.push(...subfields.filter(([code]) => code !== '0'));
    addSubfields(f, ['i', related.specific_relator ?? related.relator]);
  }
  for (const [property, tag, code] of SUBJECT_FIELDS) {
    for (const entry of agent[property] ?? []) {
      for (const link of entry.subjects ?? []) {
        const term = link._resolved && (link._resolved.title ?? termsOf(link._resolved)[0]?.term);
        addSubfields(marc.newField(tag), [code, term]);
      }
    }
  }
  for (const lang of agent.used_languages ?? []) if (lang.language) addSubfields(marc.newField('377', ' ', ' '), ['a', lang.language]);
  for (const src of agent.agent_sources ?? []) addSubfields(marc.newField('670'), ['a', src.source_entry], ['b', src.descriptive_note], ['u', src.file_uri]);
  for (const note of agent.notes ?? []) {
    if (note.jsonmodel_type !== 'note_bioghist' || note.publish === false) continue;
    const subnotes = note.subnotes ?? [];
    const abstract = subnotes.find((s): s is NoteAbstract => s.jsonmodel_type === 'note_abstract')?.content?.[0];
    const text = subnotes.filter((s): s is NoteText => s.jsonmodel_type === 'note_text').map((s) => s.content).join(' ');
    const ind1 = agent.jsonmodel_type === 'agent_corporate_entity' ? '1' : '0';
    addSubfields(marc.newField('678', ind1, ' '), ['a', abstract && plainText(abstract)], ['b', text && plainText(text)]);
  }
  return marc;
}

export function writeMarcAuthDocument(w: XmlWriter, agent: Agent, mapping: MarcAuthMapping): void {
  writeMarcCollection(w, buildMarcAuth(agent, mapping));
}
