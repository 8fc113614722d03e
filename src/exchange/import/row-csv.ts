/**
 * What ArchivesSpace's record spreadsheets (accession_csv, digital_object_csv) share: a header row
 * of template column names and one record per row, each column filling one field of one part of
 * the row (the record, its dates, extent, agent, subject, events...), all rows of a file in one
 * transaction. The template columns common to both are here (dates, extent, agent, subject,
 * user-defined fields); each import adds its own and builds its record from the parts.
 */
import type { Obj } from '../../json';
import { readCsv } from './csv';
import { ImportSession } from './session';
import { ImportFailed, ImportReport } from './types';

export type Parts = Record<string, Obj>;
export type Columns = Record<string, [part: string, field: string]>;

/** The columns both templates have, with the same meaning. */
export const SHARED_COLUMNS: Columns = {
  ...Object.fromEntries([
    ...[1, 2, 3].flatMap((n) => [`boolean_${n}`, `integer_${n}`, `real_${n}`, `date_${n}`]),
    ...[1, 2, 3, 4].flatMap((n) => [`string_${n}`, `enum_${n}`]), ...[1, 2, 3, 4, 5].map((n) => `text_${n}`),
  ].map((f) => [`user_defined_${f}`, ['user_defined', f]])),
  ...Object.fromEntries([1, 2].flatMap((n) => ['label', 'expression', 'begin', 'end', 'type'].map((f) => [`date_${n}_${f}`, [`date_${n}`, f === 'type' ? 'date_type' : f]]))),
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
};

/** The events a row may record (`<prefix>_<event>` true, `<prefix>_<event>_date`). */
export const EVENTS = ['acknowledgement_sent', 'agreement_received', 'agreement_sent', 'cataloged', 'processed'];
/** Event columns of a template whose record columns start with `prefix` (accession_, digital_object_). */
export const eventColumns = (prefix: string): Columns => Object.fromEntries(EVENTS
  .flatMap((e) => [[`${prefix}${e}`, ['event', e]], [`${prefix}${e}_date`, ['event', `${e}_date`]]]));

/** The record type whose schema describes each shared part's fields (for booleans and value lists). */
export const SHARED_PART_TYPES: Record<string, string> = {
  user_defined: 'user_defined', date_1: 'date', date_2: 'date', extent: 'extent', agent_contact: 'agent_contact', subject: 'subject',
};
const AGENT_TYPES = ['agent_person', 'agent_family', 'agent_corporate_entity'];
export const truthy = (v: string) => /^(1|t|y|yes|true)$/i.test(v.trim());

export abstract class RowCsvImport extends ImportSession {
  private header: string[] = [];
  private rows = 0;
  private software?: string;
  /** The template's columns. */
  protected abstract readonly columns: Columns;
  /** The record type whose schema describes each part's fields. */
  protected abstract readonly partTypes: Record<string, string>;
  /** The record type a row makes, for messages. */
  protected abstract readonly recordType: string;
  /** Header names this template reads on its own (file version groups), not by `columns`. */
  protected otherColumn(_column: string): boolean {
    return false;
  }
  /** Writes the row's record(s). */
  protected abstract writeRow(line: number, parts: Parts, cells: Record<string, string>): Promise<void>;

  async onRow(line: number, cells: string[]): Promise<void> {
    if (!this.header.length) return this.readHeader(line, cells);
    const parts: Parts = {};
    const byName: Record<string, string> = {};
    cells.forEach((raw, i) => {
      const column = this.header[i];
      const value = raw.trim();
      if (!column || value === '') return;
      byName[column] = value;
      if (!this.columns[column]) return;
      const [part, field] = this.columns[column];
      (parts[part] ??= {})[field] = this.cell(line, column, part, field, value);
    });
    if (!Object.keys(parts).length && !Object.keys(byName).some((c) => this.otherColumn(c))) return;
    await this.writeRow(line, parts, byName);
    this.out.progress(++this.rows);
  }

  protected async readHeader(line: number, cells: string[]): Promise<void> {
    this.header = cells.map((c) => c.trim());
    if (!this.header.some((c) => this.columns[c])) {
      throw new ImportFailed(`${this.input.name}: line ${line}: no column of ArchivesSpace's ${this.recordType} template (${Object.keys(this.columns).slice(0, 2).join(', ')}, …) in the header; is this ${this.recordType === 'accession' ? 'an' : 'a'} ${this.recordType} CSV?`);
    }
    const unknown = this.header.filter((c) => c && !this.columns[c] && !this.otherColumn(c));
    if (unknown.length) this.warn(`columns not in the ${this.recordType} template are ignored: ${unknown.join(', ')}`);
  }

  /** One cell as its field's value: booleans read, value lists checked or extended. */
  private cell(line: number, column: string, part: string, field: string, value: string): unknown {
    const typeName = this.partTypes[part];
    if (part === 'event') return field.endsWith('_date') ? this.isoDate(line, column, value) : field === 'cataloged_note' ? value : truthy(value);
    if (!typeName) return value;
    const schema = (this.s.registry.schemas[typeName]?.properties as Obj | undefined)?.[field];
    if (schema?.type === 'boolean') return truthy(value);
    const list = this.s.registry.types[typeName]?.props[field]?.enumName;
    return list ? this.listValue(line, column, list, value) : value;
  }

  /** YYYY-MM-DD as it is; M/D/YYYY (spreadsheets' US dates) turned into it, with a warning. */
  protected isoDate(line: number, column: string, value: string): string {
    const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
    if (!us) return value;
    const iso = `${us[3]}-${us[1].padStart(2, '0')}-${us[2].padStart(2, '0')}`;
    this.warn(`line ${line}, column ${column}: ${value} read as month/day/year: ${iso}`);
    return iso;
  }

  /** The dates of the row (date_1, date_2) with the template's defaults for label and type. */
  protected rowDates(parts: Parts, defaults: Obj): Obj[] {
    return ['date_1', 'date_2'].filter((d) => parts[d]).map((d) => ({ ...defaults, ...parts[d] }));
  }

  /** The agent of the row, linked with agent_role (creator, with a warning, when empty) and agent_relator. */
  protected async rowAgentLink(line: number, parts: Parts): Promise<Obj | undefined> {
    if (!parts.agent && !parts.agent_name) return undefined;
    const ref = await this.rowAgent(line, parts);
    const role = parts.link?.role ?? (this.warn(`line ${line}: agent_role is empty; the agent is linked as creator`), 'creator');
    return { ref, role, ...(parts.link?.relator ? { relator: parts.link.relator } : {}) };
  }

  private async rowAgent(line: number, parts: Parts): Promise<string> {
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

  /** The subject of the row (subject_term, _term_type, _source), matched or created. */
  protected async rowSubject(line: number, parts: Parts): Promise<Obj | undefined> {
    const s = parts.subject;
    if (!s?.term) return undefined;
    if (!s.term_type) throw new ImportFailed(`${this.input.name}: line ${line}, column subject_term_type: a subject needs its term type`);
    return { ref: await this.subject(s.term_type, s.term, { source: s.source ?? 'local' }) };
  }

  /**
   * An event for each of the row's event columns that is true, linked to the record it was
   * recorded for, its date the column's `_date` ("unknown" without one); executed by the program
   * that imported it, as ArchivesSpace's converters record it.
   */
  protected async rowEvents(line: number, parts: Parts, uri: string, prefix: string): Promise<void> {
    for (const event of EVENTS) {
      if (!parts.event?.[event]) continue;
      this.software ??= await this.agent('agent_software', 'Archive Records Backend', { source: 'local' });
      const expression = parts.event[`${event}_date`] ?? 'unknown';
      await this.translate(() => this.create('event', {
        event_type: event,
        date: { expression, label: 'other', date_type: 'inclusive' },
        ...(event === 'cataloged' && parts.event?.cataloged_note ? { outcome_note: parts.event.cataloged_note } : {}),
        linked_agents: [{ role: 'executing_program', ref: this.software }],
        linked_records: [{ role: 'source', ref: uri }],
      }, [`line ${line}`, `${prefix}${event}`]));
    }
  }

  /** A value of a list as it is; added to an editable list that lacks it; refused, with the allowed values, from a fixed one. */
  protected listValue(line: number, column: string, list: string, value: string): string {
    const known = this.s.enums.get(list);
    if (known?.values.includes(value)) return value;
    if (!known?.editable) throw new ImportFailed(`${this.input.name}: line ${line}, column ${column}: "${value}" is not one of ${known?.values.join(', ') ?? 'its value list'}`);
    return this.value(list, value);
  }

  /** A refusal of a record names the template's column for each field it names. */
  protected async translate<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof ImportFailed)) throw err;
      const columns = new Map<string, string>();
      for (const [column, [, field]] of Object.entries(this.columns)) if (!columns.has(field)) columns.set(field, column);
      throw new ImportFailed(err.message.replace(/(?<=[:;] )([a-z_0-9]+)(?=: )/g, (f) => (columns.has(f) ? `${f} (column ${columns.get(f)})` : f)));
    }
  }

  result(): ImportReport {
    if (!this.header.length) throw new ImportFailed(`${this.input.name}: the file is empty`);
    if (!this.rows) throw new ImportFailed(`${this.input.name}: no ${this.recordType} rows below the header`);
    return this.report;
  }
}

/** Reads a file's rows into a row import (inside the file's transaction) and answers its report. */
export async function readRows(job: RowCsvImport, path: string, name: string, signal?: AbortSignal): Promise<ImportReport> {
  await readCsv(path, name, (row) => job.onRow(row.line, row.cells), signal);
  return job.result();
}
