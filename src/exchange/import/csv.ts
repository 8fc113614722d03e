/**
 * A streaming CSV reader (RFC 4180: comma separated, fields in double quotes may hold commas,
 * newlines and doubled quotes; CRLF or LF line ends; a UTF-8 byte order mark is skipped). Rows
 * are handed over one at a time with the line they start on, so a file of any size is read in
 * bounded memory and errors can name their line.
 */
import fs from 'node:fs';
import { ImportFailed } from './types';
import { letEventLoopTurn } from '../../event-loop';

export interface CsvRow {
  /** The 1-based line of the file the row starts on. */
  line: number;
  cells: string[];
}

export async function readCsv(file: string, name: string, onRow: (row: CsvRow) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let rowLine = 1;
  let first = true;
  const pending: CsvRow[] = [];
  const endCell = () => {
    cells.push(cell);
    cell = '';
    afterQuote = false;
  };
  const endRow = () => {
    endCell();
    if (cells.length > 1 || cells[0] !== '') pending.push({ line: rowLine, cells });
    cells = [];
  };
  for await (const chunk of fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 16 })) {
    if (signal?.aborted) throw new ImportFailed(`${name}: canceled`);
    let text = chunk as string;
    if (first) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.includes('\u0000')) throw new ImportFailed(`${name}: not a CSV file (it holds binary data)`);
    }
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quoted) {
        if (c === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i++;
          } else {
            // At the end of a chunk, a doubled quote shows itself with the next chunk (afterQuote).
            quoted = false;
            afterQuote = true;
          }
        } else {
          if (c === '\n') line++;
          cell += c;
        }
        continue;
      }
      if (c === '"') {
        if (afterQuote) {
          cell += '"';
          quoted = true;
          afterQuote = false;
          continue;
        }
        // A quote opens a quoted field only at its start; inside an unquoted one it is text (as spreadsheets read it).
        if (cell.trim() !== '') cell += c;
        else {
          cell = '';
          quoted = true;
        }
      } else if (c === ',') endCell();
      else if (c === '\n') {
        endRow();
        line++;
        rowLine = line;
      } else if (c === '\r') {
        // CRLF ends a row at its LF; a lone CR (old Mac files) ends it here.
        if (i + 1 < text.length && text[i + 1] !== '\n') {
          endRow();
          line++;
          rowLine = line;
        }
      } else if (afterQuote) {
        if (!/\s/.test(c)) throw new ImportFailed(`${name}: line ${line}: text after the closing quote of a field`);
      } else cell += c;
    }
    for (const row of pending.splice(0)) {
      await onRow(row);
      // Each row's records are written before the next is read: others are answered meanwhile (event-loop.ts).
      await letEventLoopTurn();
    }
  }
  if (quoted) throw new ImportFailed(`${name}: line ${rowLine}: a quoted field is not closed before the end of the file`);
  if (cell !== '' || cells.length) endRow();
  for (const row of pending.splice(0)) await onRow(row);
}
