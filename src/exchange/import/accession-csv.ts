/**
 * Accession CSV import (`accession_csv`): ArchivesSpace's accession spreadsheet template, a
 * header row of its column names and one accession per row, all rows of a file in one
 * transaction (a bad row fails the file and writes nothing; the log names the line and column).
 *
 * column → record (as ArchivesSpace's accession converter):
 *   accession_title, accession_number_1..4, accession_accession_date, accession_<field> → the accession's field
 *   accession_processing_*, accession_processors, accession_rights_determined → collection_management
 *   user_defined_* → user_defined; lang_material_language / _script → lang_materials
 *   date_1_*, date_2_* (label, expression, begin, end, type) → dates (label "other", type "inclusive" when not given)
 *   extent_number, extent_type, extent_container_summary → extents (portion "whole")
 *   agent_type, agent_name_*, agent_contact_*, agent_name_description_note / _citation → an agent
 *     (matched by authority id, else by sort name, else created) linked with agent_role / agent_relator
 *   subject_term, subject_term_type, subject_source → a subject (matched or created) linked to the accession
 *   accession_{acknowledgement_sent,agreement_received,agreement_sent,cataloged,processed} (true) and
 *     their _date → an event of that type linked to the accession; accession_cataloged_note → its outcome note
 * Booleans read 1, t, y, yes, true (any case) as true. A value missing from an editable value list
 * is added to it (logged); one missing from a fixed list fails its row, naming the allowed values.
 */
import type { Obj } from '../../json';
import { readCsv } from './csv';
import { ImportSession } from './session';
import { ImportFailed, Importer, ImportReport } from './types';

type Part = 'accession' | 'collection_management' | 'user_defined' | 'lang_material' | 'date_1' | 'date_2' | 'extent'
  | 'agent' | 'agent_name' | 'agent_contact' | 'link' | 'subject' | 'event';

/** Each template column: the part of the row it fills and the field there. */
const COLUMNS: Record<string, [Part, string]> = {
  accession_title: ['accession', 'title'],
  ...Object.fromEntries([1, 2, 3, 4].map((n) => [`accession_number_${n}`, ['accession', `id_${n - 1}`]])),
  ...Object.fromEntries(['accession_date', 'access_restrictions', 'access_restrictions_note', 'acquisition_type', 'condition_description',
    'content_description', 'disposition', 'general_note', 'inventory', 'provenance', 'publish', 'resource_type', 'language', 'script',
    'restrictions_apply', 'retention_rule', 'use_restrictions', 'use_restrictions_note'].map((f) => [`accession_${f}`, ['accession', f]])),
  ...Object.fromEntries(['processing_hours_total', 'processing_plan', 'processing_priority', 'processing_total_extent',
    'processing_total_extent_type', 'processing_status', 'processors', 'rights_determined'].map((f) => [`accession_${f}`, ['collection_management', f]])),
  ...Object.fromEntries([
    ...[1, 2, 3].flatMap((n) => [`boolean_${n}`, `integer_${n}`, `real_${n}`, `date_${n}`]),
    ...[1, 2, 3, 4].flatMap((n) => [`string_${n}`, `enum_${n}`]), ...[1, 2, 3, 4, 5].map((n) => `text_${n}`),
  ].map((f) => [`user_defined_${f}`, ['user_defined', f]])),
  lang_material_language: ['lang_material', 'language'],
  lang_material_script: ['lang_material', 'script'],
  ...Object.fromEntries([1, 2].flatMap((n) => ['label', 'expression', 'begin', 'end', 'type'].map((f) => [`date_${n}_${f}`, [`date_${n}` as Part, f === 'type' ? 'date_type' : f]]))),
  extent_number: ['extent', 'number'],
  extent_type: ['extent', 'extent_type'],
  extent_container_summary: ['extent', 'container_summary'],
  agent_type: ['agent', 'type'],
  agent_role: ['link', 'role'],
  agent_relator: ['link', 'relator'],
  agent_name_description_note: ['agent', 'note'],
  agent_name_description_citation: ['agent', 'citation'],
  ...Object.fromEntries(['authority_id', 'dates', 'fuller_form', 'name_order', 'number', 'prefix', 'title', 'primary_name', 'qualifier',
    'rest_of_name', 'rules', 'sort_name', 'source', 'subordinate_name_1', 'subordinate_name_2', 'suffix'].map((f) => [`agent_name_${f}`, ['agent_name', f]])),
  ...Object.fromEntries(['address_1', 'address_2', 'address_3', 'city', 'country', 'email', 'name', 'post_code', 'region', 'salutation',
    'fax', 'telephone', 'telephone_ext'].map((f) => [`agent_contact_${f}`, ['agent_contact', f]])),
  subject_term: ['subject', 'term'],
  subject_term_type: ['subject', 'term_type'],
  subject_source: ['subject', 'source'],
  ...Object.fromEntries(['acknowledgement_sent', 'agreement_received', 'agreement_sent', 'cataloged', 'processed']
    .flatMap((e) => [[`accession_${e}`, ['event', e]], [`accession_${e}_date`, ['event', `${e}_date`]]])),
  accession_cataloged_note: ['event', 'cataloged_note'],
};

/** The record type whose schema describes each part's fields (for booleans and value lists). */
const PART_TYPES: Partial<Record<Part, string>> = {
  accession: 'accession', collection_management: 'collection_management', user_defined: 'user_defined', date_1: 'date', date_2: 'date',
  extent: 'extent', agent_contact: 'agent_contact', subject: 'subject',
};
const AGENT_TYPES = ['agent_person', 'agent_family', 'agent_corporate_entity'];
const truthy = (v: string) => /^(1|t|y|yes|true)$/i.test(v.trim());

class AccessionCsvImport extends ImportSession {
  private header: string[] = [];
  private rows = 0;
  private software?: string;

  async onRow(line: number, cells: string[]): Promise<void> {
    if (!this.header.length) return this.readHeader(line, cells);
    const parts: Partial<Record<Part, Obj>> = {};
    cells.forEach((raw, i) => {
      const column = this.header[i];
      const value = raw.trim();
      if (!column || value === '' || !COLUMNS[column]) return;
      const [part, field] = COLUMNS[column];
      (parts[part] ??= {})[field] = this.cell(line, column, part, field, value);
    });
    if (!parts.accession && !Object.keys(parts).length) return;
    const where = `line ${line}`;
    const body: Obj = { ...parts.accession };
    if (typeof body.accession_date === 'string') body.accession_date = this.isoDate(line, 'accession_accession_date', body.accession_date);
    if (parts.collection_management) body.collection_management = parts.collection_management;
    if (parts.user_defined) body.user_defined = parts.user_defined;
    if (parts.lang_material) body.lang_materials = [{ language_and_script: parts.lang_material }];
    const dates = (['date_1', 'date_2'] as const).filter((d) => parts[d]).map((d) => ({ label: 'other', date_type: 'inclusive', ...parts[d] }));
    if (dates.length) body.dates = dates;
    if (parts.extent) body.extents = [{ portion: 'whole', ...parts.extent }];
    if (parts.agent || parts.agent_name) {
      const ref = await this.rowAgent(line, parts);
      const role = parts.link?.role ?? (this.warn(`${where}: agent_role is empty; the agent is linked as creator`), 'creator');
      body.linked_agents = [{ ref, role, ...(parts.link?.relator ? { relator: parts.link.relator } : {}) }];
    }
    if (parts.subject?.term) {
      const s = parts.subject;
      if (!s.term_type) throw new ImportFailed(`${this.input.name}: ${where}, column subject_term_type: a subject needs its term type`);
      body.subjects = [{ ref: await this.subject(s.term_type, s.term, { source: s.source ?? 'local' }) }];
    }
    const uri = await this.translate(() => this.create('accession', body, [where]));
    for (const event of ['acknowledgement_sent', 'agreement_received', 'agreement_sent', 'cataloged', 'processed']) {
      if (!parts.event?.[event]) continue;
      const expression = parts.event[`${event}_date`] ?? 'unknown';
      await this.translate(() => this.create('event', {
        event_type: event,
        date: { expression, label: 'other', date_type: 'inclusive' },
        ...(event === 'cataloged' && parts.event?.cataloged_note ? { outcome_note: parts.event.cataloged_note } : {}),
        linked_agents: [{ role: 'executing_program', ref: this.software }],
        linked_records: [{ role: 'source', ref: uri }],
      }, [where, `accession_${event}`]));
    }
    this.out.progress(++this.rows);
  }

  private async readHeader(line: number, cells: string[]): Promise<void> {
    this.header = cells.map((c) => c.trim());
    const known = this.header.filter((c) => COLUMNS[c]);
    if (!known.length) {
      throw new ImportFailed(`${this.input.name}: line ${line}: no column of ArchivesSpace's accession template (accession_title, accession_number_1, …) in the header; is this an accession CSV?`);
    }
    const unknown = this.header.filter((c) => c && !COLUMNS[c]);
    if (unknown.length) this.warn(`columns not in the accession template are ignored: ${unknown.join(', ')}`);
    // Events name the program that recorded them, as ArchivesSpace's converter does.
    if (this.header.some((c) => COLUMNS[c]?.[0] === 'event')) this.software = await this.agent('agent_software', 'Archive Records Backend', { source: 'local' });
  }

  /** One cell as its field's value: booleans read, value lists checked or extended. */
  private cell(line: number, column: string, part: Part, field: string, value: string): unknown {
    const typeName = PART_TYPES[part];
    if (part === 'event') return field.endsWith('_date') || field === 'cataloged_note' ? value : truthy(value);
    if (!typeName) return value;
    const schema = (this.s.registry.schemas[typeName]?.properties as Obj | undefined)?.[field];
    if (schema?.type === 'boolean') return truthy(value);
    const list = this.s.registry.types[typeName]?.props[field]?.enumName;
    return list ? this.listValue(line, column, list, value) : value;
  }

  /** YYYY-MM-DD as it is; M/D/YYYY (spreadsheets' US dates) turned into it, with a warning. */
  private isoDate(line: number, column: string, value: string): string {
    const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
    if (!us) return value;
    const iso = `${us[3]}-${us[1].padStart(2, '0')}-${us[2].padStart(2, '0')}`;
    this.warn(`line ${line}, column ${column}: ${value} read as month/day/year: ${iso}`);
    return iso;
  }

  private async rowAgent(line: number, parts: Partial<Record<Part, Obj>>): Promise<string> {
    const type = String(parts.agent?.type ?? '');
    if (!AGENT_TYPES.includes(type)) {
      throw new ImportFailed(`${this.input.name}: line ${line}, column agent_type: "${type}" is not one of ${AGENT_TYPES.join(', ')}`);
    }
    const given = { ...parts.agent_name };
    const primary = given.primary_name;
    if (!primary) throw new ImportFailed(`${this.input.name}: line ${line}, column agent_name_primary_name: an agent needs a primary name`);
    const nameType = type.replace(/^agent_/, 'name_');
    const nameProps = (this.s.registry.schemas[nameType]?.properties ?? {}) as Obj;
    const name: Obj = {};
    for (const [field, value] of Object.entries(given)) {
      const target = field === 'primary_name' && !nameProps.primary_name ? 'family_name' : field;
      if (!nameProps[target]) {
        this.warn(`line ${line}: agent_name_${field} does not apply to ${type} and is ignored`);
        continue;
      }
      const list = this.s.registry.types[nameType]?.props[target]?.enumName;
      name[target] = list ? this.listValue(line, `agent_name_${field}`, list, String(value)) : value;
    }
    if (name.sort_name) name.sort_name_auto_generate = false;
    else delete name.sort_name;
    const heading = String(given.sort_name ?? [primary, given.rest_of_name, given.dates].filter(Boolean).join(', '));
    const record: Obj = {};
    const c = parts.agent_contact;
    if (c) {
      const { fax, telephone, telephone_ext: ext, ...contact } = c;
      const telephones = [
        ...(telephone ? [{ number: telephone, ...(ext ? { ext } : {}), number_type: 'home' }] : []),
        ...(fax ? [{ number: fax, number_type: 'fax' }] : []),
      ];
      record.agent_contacts = [{ name: contact.name ?? heading, ...contact, ...(telephones.length ? { telephones } : {}) }];
    }
    if (parts.agent?.note) {
      record.notes = [{
        jsonmodel_type: 'note_bioghist', publish: true,
        subnotes: [{ jsonmodel_type: 'note_text', content: parts.agent.note },
          ...(parts.agent.citation ? [{ jsonmodel_type: 'note_citation', content: [parts.agent.citation] }] : [])],
      }];
    }
    return this.translate(() => this.agent(type, heading, { authfilenumber: given.authority_id, source: given.source, rules: given.rules }, { name, record }));
  }

  /** A value of a list as it is; added to an editable list that lacks it; refused, with the allowed values, from a fixed one. */
  private listValue(line: number, column: string, list: string, value: string): string {
    const known = this.s.enums.get(list);
    if (known?.values.includes(value)) return value;
    if (!known?.editable) throw new ImportFailed(`${this.input.name}: line ${line}, column ${column}: "${value}" is not one of ${known?.values.join(', ') ?? 'its value list'}`);
    return this.value(list, value);
  }

  /** A refusal of a record names the template's column for each field it names. */
  private async translate<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof ImportFailed)) throw err;
      const columns = new Map<string, string>();
      for (const [column, [, field]] of Object.entries(COLUMNS)) if (!columns.has(field)) columns.set(field, column);
      throw new ImportFailed(err.message.replace(/(?<=[:;] )([a-z_0-9]+)(?=: )/g, (f) => (columns.has(f) ? `${f} (column ${columns.get(f)})` : f)));
    }
  }

  result(): ImportReport {
    if (!this.header.length) throw new ImportFailed(`${this.input.name}: the file is empty`);
    if (!this.rows) throw new ImportFailed(`${this.input.name}: no accession rows below the header`);
    return this.report;
  }
}

export const accessionCsvImporter: Importer = {
  type: 'accession_csv',
  label: 'Accession CSV (ArchivesSpace\'s accession template)',
  async run(s, repoId, actor, input, out) {
    return s.db.transaction(async (trx) => {
      const job = new AccessionCsvImport(s, trx, repoId, actor, input, out);
      await readCsv(input.path, input.name, (row) => job.onRow(row.line, row.cells), out.signal);
      return job.result();
    });
  },
};
