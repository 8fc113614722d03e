/**
 * The first worksheet of an XLSX workbook, row by row. The workbook is a ZIP of XML parts: the
 * workbook part names its sheets in order, its relationships say which part holds each, the
 * shared strings and styles are read first (strings kept, as every reader must), then the sheet's
 * part is streamed through a SAX parser, so memory does not grow with the rows. Elements are matched
 * by their local names: workbooks rewritten by tools that prefix the spreadsheet namespace
 * (`<ns0:row>`, as Python's ElementTree writes) read like any other (exceljs read none of their
 * rows). Cells become the text the archivist sees: numbers as written, dates as YYYY-MM-DD (with
 * the time when there is one), booleans as true/false, a formula as its last computed result.
 */
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { letEventLoopTurn } from '../../event-loop';
import { ImportFailed } from '../../exchange/import/types';
import { NotAZip, type ZipEntry, zipEntries, zipEntryStream } from './zip';

const local = (name: string) => name.slice(name.indexOf(':') + 1);
const attr = (tag: SaxesTagPlain, name: string): string | undefined => {
  for (const [k, v] of Object.entries(tag.attributes)) if (local(k) === name) return v;
  return undefined;
};

/** Runs `handlers` over the XML of a part as it streams. `each` runs after every chunk (the rows a chunk completed are handed over there). */
async function parsePart(
  file: string, entry: ZipEntry, handlers: { open?: (tag: SaxesTagPlain) => void; close?: (name: string) => void; text?: (text: string) => void },
  each?: () => Promise<void>,
): Promise<void> {
  const parser = new SaxesParser({ xmlns: false });
  if (handlers.open) parser.on('opentag', (tag) => handlers.open!(tag as SaxesTagPlain));
  if (handlers.close) parser.on('closetag', (tag) => handlers.close!(local(tag.name)));
  if (handlers.text) parser.on('text', handlers.text);
  const decoder = new StringDecoder('utf8');
  for await (const chunk of await zipEntryStream(file, entry)) {
    parser.write(decoder.write(chunk as Buffer));
    if (each) await each();
  }
  parser.write(decoder.end());
  parser.close();
  if (each) await each();
}

const partPath = (target: string) => (target.startsWith('/') ? target.slice(1) : `xl/${target}`).replace(/\/[^/]+\/\.\.\//g, '/');

/** The part that holds the workbook's first sheet. */
async function firstSheetPart(file: string, entries: Map<string, ZipEntry>): Promise<{ part: ZipEntry; date1904: boolean }> {
  const workbook = entries.get('xl/workbook.xml');
  const rels = entries.get('xl/_rels/workbook.xml.rels');
  if (!workbook || !rels) throw new NotAZip('it has no workbook part (xl/workbook.xml)');
  let sheetRel: string | undefined;
  let date1904 = false;
  await parsePart(file, workbook, {
    open(tag) {
      const name = local(tag.name);
      if (name === 'sheet' && sheetRel === undefined) sheetRel = attr(tag, 'id') ?? '';
      if (name === 'workbookPr') date1904 = ['1', 'true'].includes(attr(tag, 'date1904') ?? '');
    },
  });
  if (sheetRel === undefined) throw new ImportFailed('the workbook has no worksheet');
  let target: string | undefined;
  await parsePart(file, rels, {
    open(tag) {
      if (local(tag.name) === 'Relationship' && tag.attributes.Id === sheetRel) target = tag.attributes.Target;
    },
  });
  const part = target === undefined ? undefined : entries.get(partPath(target));
  if (!part) throw new NotAZip(`its first sheet's part (${target ?? sheetRel}) is missing`);
  return { part, date1904 };
}

/** The workbook's shared strings, in order (a string's runs joined; phonetic guides left out). */
async function sharedStrings(file: string, entry: ZipEntry | undefined): Promise<string[]> {
  const strings: string[] = [];
  if (!entry) return strings;
  let current = '';
  let inText = false;
  let inPhonetic = false;
  await parsePart(file, entry, {
    open(tag) {
      const name = local(tag.name);
      if (name === 'si') current = '';
      else if (name === 't') inText = !inPhonetic;
      else if (name === 'rPh') inPhonetic = true;
    },
    close(name) {
      if (name === 'si') strings.push(current);
      else if (name === 't') inText = false;
      else if (name === 'rPh') inPhonetic = false;
    },
    text(text) {
      if (inText) current += text;
    },
  });
  return strings;
}

/** Number formats that show a date or a time (Excel's built-in ones, and custom codes with date or time parts). */
const BUILT_IN_DATES = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
const isDateCode = (code: string) => /[dmyhs]/i.test(code.replace(/"[^"]*"|\[[^\]]*\]|\\./g, '')) && !/^general$/i.test(code);

/** For each cell style (its index in cellXfs), whether it shows a date. */
async function dateStyles(file: string, entry: ZipEntry | undefined): Promise<boolean[]> {
  const styles: boolean[] = [];
  if (!entry) return styles;
  const custom = new Map<number, boolean>();
  let inCellXfs = false;
  await parsePart(file, entry, {
    open(tag) {
      const name = local(tag.name);
      if (name === 'numFmt') custom.set(Number(attr(tag, 'numFmtId')), isDateCode(attr(tag, 'formatCode') ?? ''));
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) {
        const id = Number(attr(tag, 'numFmtId') ?? 0);
        styles.push(custom.get(id) ?? BUILT_IN_DATES.has(id));
      }
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return styles;
}

const iso = (d: Date) => d.toISOString().slice(0, d.getUTCHours() || d.getUTCMinutes() || d.getUTCSeconds() ? 19 : 10);

/** A column's index (0 for A) from a cell reference such as AB12. */
function columnOf(ref: string): number {
  let n = 0;
  for (const ch of ref) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90) break;
    n = n * 26 + code - 64;
  }
  return n - 1;
}

/** Hands each row of the first worksheet over with its row number; fails (ImportFailed) on a file that is not a readable workbook. */
export async function readXlsx(file: { path: string; name: string }, onRow: (number: number, cells: string[]) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let entries: Map<string, ZipEntry>;
  let sheet: { part: ZipEntry; date1904: boolean };
  let strings: string[];
  let dates: boolean[];
  try {
    entries = await zipEntries(file.path);
    sheet = await firstSheetPart(file.path, entries);
    strings = await sharedStrings(file.path, entries.get('xl/sharedStrings.xml'));
    dates = await dateStyles(file.path, entries.get('xl/styles.xml'));
  } catch (err) {
    if (err instanceof ImportFailed) throw new ImportFailed(`${file.name}: ${err.message}`);
    throw new ImportFailed(`${file.name}: not a readable XLSX workbook (${(err as Error).message}); an encrypted or damaged workbook must be saved again without a password`);
  }
  const epoch = sheet.date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  const ready: Array<[number, string[]]> = [];
  let rowNumber = 0;
  let cells: string[] = [];
  let cell: { column: number; type: string; style: number; value: string; hasValue: boolean; formula: boolean; ref: string } | undefined;
  let inValue = false;
  let problem: string | undefined;
  let fromRow: unknown;

  const finishCell = () => {
    const c = cell!;
    cell = undefined;
    let text: string;
    if (!c.hasValue) {
      if (c.formula && problem === undefined) problem = `row ${rowNumber}, column ${c.ref || c.column + 1}: the cell holds a formula with no computed value; enter the value itself`;
      text = '';
    } else if (c.type === 's') text = strings[Number(c.value)] ?? '';
    else if (c.type === 'b') text = c.value.trim() === '1' ? 'true' : 'false';
    else if (c.type === 'e') {
      if (problem === undefined) problem = `row ${rowNumber}, column ${c.ref || c.column + 1}: the cell holds an error (${c.value}); enter the value itself`;
      text = '';
    } else if (c.type === 'str' || c.type === 'inlineStr') text = c.value;
    else if (c.type === 'd') text = c.value.replace(/T00:00:00(\.0+)?Z?$/, '');
    else {
      const n = Number(c.value);
      text = Number.isNaN(n) || c.value.trim() === '' ? c.value : dates[c.style] ? iso(new Date(epoch + Math.round(n * 86_400_000))) : String(n);
    }
    while (cells.length < c.column) cells.push('');
    cells[c.column] = text;
  };

  try {
    await parsePart(file.path, sheet.part, {
      open(tag) {
        const name = local(tag.name);
        if (name === 'row') {
          const r = Number(attr(tag, 'r'));
          rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1;
          cells = [];
        } else if (name === 'c') {
          const ref = attr(tag, 'r') ?? '';
          cell = { column: ref ? columnOf(ref) : cells.length, type: attr(tag, 't') ?? 'n', style: Number(attr(tag, 's') ?? 0), value: '', hasValue: false, formula: false, ref };
        } else if (cell && (name === 'v' || (name === 't' && cell.type === 'inlineStr'))) {
          inValue = true;
          cell.hasValue = true;
        } else if (cell && name === 'f') cell.formula = true;
      },
      close(name) {
        if (name === 'v' || name === 't') inValue = false;
        else if (name === 'c' && cell) finishCell();
        else if (name === 'row') ready.push([rowNumber, cells]);
      },
      text(text) {
        if (inValue && cell) cell.value += text;
      },
    }, async () => {
      if (problem !== undefined) throw new ImportFailed(`${file.name}: ${problem}`);
      for (const [number, row] of ready.splice(0)) {
        if (signal?.aborted) throw new ImportFailed(`${file.name}: canceled`);
        await letEventLoopTurn();
        try {
          await onRow(number, row);
        } catch (err) {
          fromRow = err;
          throw err;
        }
        await letEventLoopTurn();
      }
    });
  } catch (err) {
    if (err instanceof ImportFailed || err === fromRow) throw err;
    throw new ImportFailed(`${file.name}: not a readable XLSX workbook (${(err as Error).message}); an encrypted or damaged workbook must be saved again without a password`);
  }
}
