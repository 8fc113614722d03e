/**
 * Reading an ArchivesSpace spreadsheet: rows are numbered as the spreadsheet shows them (the
 * first row is 1), header rows are those with something in the first column, the row whose first
 * cell carries the template's marker names the columns by their field codes, and data rows are
 * those with an empty first column. Rows are handed over one at a time, so a sheet of any size is
 * read in bounded memory. Every problem names its row and column.
 */
import { readCsv } from '../../exchange/import/csv';
import { ImportFailed } from '../../exchange/import/types';
import { readXlsx } from './xlsx';

/** A data row's cells by field code, empty cells left out. */
export type Cells = Map<string, string>;

/** How much a problem costs: the value is dropped and the row kept (as ArchivesSpace does), or the row (and with it the sheet) fails. */
export type Severity = 'dropped' | 'error';

export interface Problem {
  row: number;
  column?: string;
  severity: Severity;
  message: string;
}

/** Every problem of a sheet, in the order found. */
export class Problems {
  readonly all: Problem[] = [];

  add(problem: Problem): void {
    this.all.push(problem);
  }

  get errors(): number {
    return this.all.filter((p) => p.severity === 'error').length;
  }
}

export const describeProblem = (p: Problem) => `row ${p.row}${p.column ? `, column '${p.column}'` : ''}: ${p.message}`;

/** One data row: its cells and where its problems go. */
export class SheetRow {
  /** Whether the row has an error: it is not written. */
  failed = false;

  constructor(readonly number: number, readonly cells: Cells, private readonly problems: Problems) {}

  get(column: string): string | undefined {
    return this.cells.get(column);
  }

  /** The value is not used; the row is written without it. */
  dropped(column: string | undefined, message: string): void {
    this.problems.add({ row: this.number, column, severity: 'dropped', message });
  }

  /** The row cannot be written: the sheet fails. */
  error(column: string | undefined, message: string): void {
    this.failed = true;
    this.problems.add({ row: this.number, column, severity: 'error', message });
  }

  /** Numbered repeats of a group of columns present in the header ('' for the unnumbered one, then _2, _3...). */
  static suffixes(header: readonly string[], stem: RegExp): string[] {
    const found = new Set<string>();
    for (const h of header) {
      const m = stem.exec(h);
      if (m) found.add(m[1] ?? '');
    }
    return [...found].sort((a, b) => Number(a.slice(1) || 0) - Number(b.slice(1) || 0));
  }
}

/** The limit on columns a sheet may have: a row wider than this is not one of ArchivesSpace's templates. */
const MOST_COLUMNS = 1000;

/** The spreadsheet formats read. */
export const SHEET_FORMATS = ['csv', 'xlsx'];

/** Each row of a CSV file or of a workbook's first worksheet, with its number as a spreadsheet shows it. */
async function eachRow(file: { path: string; name: string }, format: string, onRow: (number: number, cells: string[]) => Promise<void>, signal?: AbortSignal): Promise<void> {
  if (format === 'xlsx') return readXlsx(file, onRow, signal);
  let count = 0;
  await readCsv(file.path, file.name, async ({ cells }) => {
    count++;
    // A file in another encoding than UTF-8 (Latin-1...) reads as replacement characters: refused, not imported garbled.
    if (cells.some((c) => c.includes('\uFFFD'))) throw new ImportFailed(`${file.name}: row ${count}: the file is not UTF-8 text; save it from the spreadsheet as "CSV UTF-8"`);
    await onRow(count, cells);
  }, signal);
}

/**
 * Reads a sheet (CSV or XLSX): finds the field-code row by `marker`, then hands each data row over.
 * Fails (ImportFailed) on a sheet without the marker row, with duplicate field codes, or too wide.
 */
export async function readSheet(
  file: { path: string; name: string }, format: string, marker: RegExp, problems: Problems,
  onRow: (row: SheetRow, header: readonly string[]) => Promise<void>, signal?: AbortSignal,
): Promise<{ rows: number; header: readonly string[] }> {
  let header: string[] | undefined;
  let dataRows = 0;
  // The rows let the event loop turn as they are read (csv.ts, xlsx.ts: event-loop.ts).
  await eachRow(file, format, async (count, cells) => {
    if (cells.length > MOST_COLUMNS) throw new ImportFailed(`${file.name}: row ${count} has ${cells.length} columns; a template has at most ${MOST_COLUMNS}`);
    const values = cells.map((c) => c.trim());
    if (!header) {
      if (marker.test(values[0] ?? '')) header = checkedHeader(file.name, count, values);
      return;
    }
    // Rows below the field codes with something in the first column are more header rows (labels, hints).
    if (values[0] !== '' || values.every((v) => v === '')) return;
    const row: Cells = new Map();
    values.forEach((v, i) => {
      if (v !== '' && header![i]) row.set(header![i], v);
    });
    dataRows++;
    await onRow(new SheetRow(count, row, problems), header);
  }, signal);
  if (!header) throw new ImportFailed(`${file.name}: no row starts with the template's field-code marker (${marker.source}); is this sheet made from ArchivesSpace's template?`);
  if (!dataRows) throw new ImportFailed(`${file.name}: no data rows below the field codes`);
  return { rows: dataRows, header };
}

function checkedHeader(name: string, row: number, values: string[]): string[] {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const v of values.slice(1)) {
    if (v && seen.has(v)) dups.add(v);
    seen.add(v);
  }
  if (dups.size) throw new ImportFailed(`${name}: row ${row}: the field codes ${[...dups].join(', ')} appear more than once`);
  return ['', ...values.slice(1)];
}
