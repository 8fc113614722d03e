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
 * The columns and the agent, subject and event rules it shares with digital_object_csv are in row-csv.ts.
 */
import type { Obj } from '../../json';
import { importFile } from './session';
import { Columns, eventColumns, Parts, readRows, RowCsvImport, SHARED_COLUMNS, SHARED_PART_TYPES } from './row-csv';
import type { Importer } from './types';

const COLUMNS: Columns = {
  accession_title: ['accession', 'title'],
  ...Object.fromEntries([1, 2, 3, 4].map((n) => [`accession_number_${n}`, ['accession', `id_${n - 1}`]])),
  ...Object.fromEntries(['accession_date', 'access_restrictions', 'access_restrictions_note', 'acquisition_type', 'condition_description',
    'content_description', 'disposition', 'general_note', 'inventory', 'provenance', 'publish', 'resource_type', 'language', 'script',
    'restrictions_apply', 'retention_rule', 'use_restrictions', 'use_restrictions_note'].map((f) => [`accession_${f}`, ['accession', f]])),
  ...Object.fromEntries(['processing_hours_total', 'processing_plan', 'processing_priority', 'processing_total_extent',
    'processing_total_extent_type', 'processing_status', 'processors', 'rights_determined'].map((f) => [`accession_${f}`, ['collection_management', f]])),
  lang_material_language: ['lang_material', 'language'],
  lang_material_script: ['lang_material', 'script'],
  ...SHARED_COLUMNS,
  ...eventColumns('accession_'),
  accession_cataloged_note: ['event', 'cataloged_note'],
};

class AccessionCsvImport extends RowCsvImport {
  protected readonly columns = COLUMNS;
  protected readonly partTypes = { ...SHARED_PART_TYPES, accession: 'accession', collection_management: 'collection_management' };
  protected readonly recordType = 'accession';

  protected async writeRow(line: number, parts: Parts): Promise<void> {
    const where = `line ${line}`;
    const body: Obj = { ...parts.accession };
    if (typeof body.accession_date === 'string') body.accession_date = this.isoDate(line, 'accession_accession_date', body.accession_date);
    if (parts.collection_management) body.collection_management = parts.collection_management;
    if (parts.user_defined) body.user_defined = parts.user_defined;
    if (parts.lang_material) body.lang_materials = [{ language_and_script: parts.lang_material }];
    const dates = this.rowDates(parts, { label: 'other', date_type: 'inclusive' });
    if (dates.length) body.dates = dates;
    if (parts.extent) body.extents = [{ portion: 'whole', ...parts.extent }];
    const agent = await this.rowAgentLink(line, parts);
    if (agent) body.linked_agents = [agent];
    const subject = await this.rowSubject(line, parts);
    if (subject) body.subjects = [subject];
    const uri = await this.translate(() => this.create('accession', body, [where]));
    await this.rowEvents(line, parts, uri, 'accession_');
  }
}

export const accessionCsvImporter: Importer = {
  type: 'accession_csv',
  label: 'Import Accession records from a CSV file',
  async run(s, repoId, actor, input, out) {
    return importFile(s, out, (writer) => readRows(new AccessionCsvImport(s, writer, repoId, actor, input, out), input.path, input.name, out.signal));
  },
};
