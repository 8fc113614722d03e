/**
 * Location CSV import (`location_csv`): ArchivesSpace's location template, a header row of its
 * column names and one location per row, all rows of a file in one transaction (a bad row fails
 * the file and writes nothing; the log names the line).
 *
 * column → location field (as ArchivesSpace's LocationConverter): location_building, _floor,
 * _room, _area, _barcode, _classification, _coordinate_{1,2,3}_label, _coordinate_{1,2,3}_indicator,
 * _temporary (a value of the editable location_temporary list, added when missing). Locations are
 * global records: the job's repository does not own them.
 */
import type { Obj } from '../../json';
import { readCsv } from './csv';
import { ImportSession } from './session';
import { ImportFailed, Importer, ImportReport } from './types';

const FIELDS = ['building', 'floor', 'room', 'area', 'barcode', 'classification',
  ...[1, 2, 3].flatMap((n) => [`coordinate_${n}_label`, `coordinate_${n}_indicator`]), 'temporary'];
const COLUMNS: Record<string, string> = Object.fromEntries(FIELDS.map((f) => [`location_${f}`, f]));

class LocationCsvImport extends ImportSession {
  private header: string[] = [];
  private rows = 0;

  async onRow(line: number, cells: string[]): Promise<void> {
    if (!this.header.length) return this.readHeader(line, cells);
    const body: Obj = {};
    const props = this.s.registry.type('location').props;
    cells.forEach((raw, i) => {
      const field = COLUMNS[this.header[i]];
      const value = raw.trim();
      if (!field || value === '') return;
      const list = props[field]?.enumName;
      body[field] = list ? this.value(list, value) : value;
    });
    if (!Object.keys(body).length) return;
    await this.create('location', body, [`line ${line}`]);
    this.out.progress(++this.rows);
  }

  private readHeader(line: number, cells: string[]): void {
    this.header = cells.map((c) => c.trim());
    if (!this.header.some((c) => COLUMNS[c])) {
      throw new ImportFailed(`${this.input.name}: line ${line}: no column of ArchivesSpace's location template (location_building, location_barcode, …) in the header; is this a location CSV?`);
    }
    const unknown = this.header.filter((c) => c && !COLUMNS[c]);
    if (unknown.length) this.warn(`columns not in the location template are ignored: ${unknown.join(', ')}`);
  }

  result(): ImportReport {
    if (!this.header.length) throw new ImportFailed(`${this.input.name}: the file is empty`);
    if (!this.rows) throw new ImportFailed(`${this.input.name}: no location rows below the header`);
    return this.report;
  }
}

export const locationCsvImporter: Importer = {
  type: 'location_csv',
  label: 'Import Location records from a CSV file',
  async run(s, repoId, actor, input, out) {
    return s.db.transaction(async (trx) => {
      const job = new LocationCsvImport(s, trx, repoId, actor, input, out);
      await readCsv(input.path, input.name, (row) => job.onRow(row.line, row.cells), out.signal);
      return job.result();
    });
  },
};
