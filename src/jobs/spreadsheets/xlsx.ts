/**
 * The first worksheet of an XLSX workbook, row by row, with exceljs's streaming reader (it reads
 * the zip's entries as they come, so memory does not grow with the sheet; it is the maintained
 * reader that streams, and it writes XLSX too). Cells become the text the archivist sees: numbers
 * as written, dates as YYYY-MM-DD, a formula as its last computed result.
 */
import ExcelJS from 'exceljs';
import { ImportFailed } from '../../exchange/import/types';

const iso = (d: Date) => d.toISOString().slice(0, d.getUTCHours() || d.getUTCMinutes() || d.getUTCSeconds() ? 19 : 10);

/** A cell's value as text; undefined for one that holds none (a formula never computed, an error). */
function cellText(value: ExcelJS.CellValue): string | undefined {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return iso(value);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value) return value.result === undefined ? undefined : cellText(value.result as ExcelJS.CellValue);
  if ('hyperlink' in value) return typeof value.text === 'string' ? value.text : cellText(value.text as ExcelJS.CellValue);
  if ('error' in value) return undefined;
  return String(value);
}

/** Hands each row of the first worksheet over with its row number; fails (ImportFailed) on a file that is not a readable workbook. */
export async function readXlsx(file: { path: string; name: string }, onRow: (number: number, cells: string[]) => Promise<void>, signal?: AbortSignal): Promise<void> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file.path, { worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', entries: 'ignore' });
  let sheets = 0;
  let fromRow: unknown;
  try {
    for await (const sheet of reader) {
      if (sheets++) break;
      for await (const row of sheet) {
        if (signal?.aborted) throw new ImportFailed(`${file.name}: canceled`);
        const values = Array.isArray(row.values) ? row.values : [];
        const cells: string[] = [];
        for (let i = 1; i < values.length; i++) {
          const text = cellText(values[i] as ExcelJS.CellValue);
          if (text === undefined) throw new ImportFailed(`${file.name}: row ${row.number}, column ${i}: the cell holds a formula with no computed value or an error; enter the value itself`);
          cells.push(text);
        }
        try {
          await onRow(row.number, cells);
        } catch (err) {
          fromRow = err;
          throw err;
        }
      }
    }
  } catch (err) {
    if (err instanceof ImportFailed || err === fromRow) throw err;
    throw new ImportFailed(`${file.name}: not a readable XLSX workbook (${(err as Error).message}); an encrypted or damaged workbook must be saved again without a password`);
  }
  if (!sheets) throw new ImportFailed(`${file.name}: the workbook has no worksheet`);
}
