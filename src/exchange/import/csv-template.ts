/**
 * The CSV imports of ArchivesSpace's one-record-per-row templates (its CSVConvert converters:
 * locations, subjects): a header row of the template's column names (in any order; unknown ones
 * named in the log and ignored) and one record per row, streamed, all rows of a file in one
 * transaction (a bad row fails the file and writes nothing; the log names its line). Each column
 * fills one field of one part of the row; the template builds the record from the parts. A value
 * missing from an editable value list is added to it (logged), as ArchivesSpace's importer does.
 */
import type { Obj } from '../../json';
import { readCsv } from './csv';
import { importFile, ImportSession } from './session';
import { ImportFailed, Importer, ImportReport } from './types';

export interface CsvTemplate {
  /** The import_type. */
  type: string;
  label: string;
  /** The record type each row makes. */
  recordType: string;
  /** column → [part of the row, field of that part]. */
  columns: Record<string, [part: string, field: string]>;
  /** The record type whose schema describes each part's fields (for value lists). */
  partTypes: Record<string, string>;
  /** Fields read as booleans (`1`, `t`, `y`, `yes`, `true`, any case, are true). */
  booleans?: string[];
  /** The record made from a row's parts. */
  build(parts: Record<string, Obj>): Obj;
}

const truthy = (v: string) => /^(1|t|y|yes|true)$/i.test(v);

class TemplateCsvImport extends ImportSession {
  private header: string[] = [];
  private rows = 0;
  template!: CsvTemplate;

  async onRow(line: number, cells: string[]): Promise<void> {
    if (!this.header.length) return this.readHeader(line, cells);
    const t = this.template;
    const parts: Record<string, Obj> = {};
    cells.forEach((raw, i) => {
      const column = t.columns[this.header[i]];
      const value = raw.trim();
      if (!column || value === '') return;
      const [part, field] = column;
      const list = this.s.registry.types[t.partTypes[part]]?.props[field]?.enumName;
      (parts[part] ??= {})[field] = t.booleans?.includes(field) ? truthy(value) : list ? this.value(list, value) : value;
    });
    if (!Object.keys(parts).length) return;
    await this.create(t.recordType, t.build(parts), [`line ${line}`]);
    this.out.progress(++this.rows);
  }

  private readHeader(line: number, cells: string[]): void {
    const t = this.template;
    this.header = cells.map((c) => c.trim());
    if (!this.header.some((c) => t.columns[c])) {
      throw new ImportFailed(`${this.input.name}: line ${line}: no column of ArchivesSpace's ${t.recordType} template (${Object.keys(t.columns).slice(0, 2).join(', ')}, …) in the header; is this a ${t.recordType} CSV?`);
    }
    const unknown = this.header.filter((c) => c && !t.columns[c]);
    if (unknown.length) this.warn(`columns not in the ${t.recordType} template are ignored: ${unknown.join(', ')}`);
  }

  result(): ImportReport {
    if (!this.header.length) throw new ImportFailed(`${this.input.name}: the file is empty`);
    if (!this.rows) throw new ImportFailed(`${this.input.name}: no ${this.template.recordType} rows below the header`);
    return this.report;
  }
}

export function templateCsvImporter(template: CsvTemplate): Importer {
  return {
    type: template.type,
    label: template.label,
    async run(s, repoId, actor, input, out) {
      return importFile(s, out, async (writer) => {
        const job = new TemplateCsvImport(s, writer, repoId, actor, input, out);
        job.template = template;
        await readCsv(input.path, input.name, (row) => job.onRow(row.line, row.cells), out.signal);
        return job.result();
      });
    },
  };
}
