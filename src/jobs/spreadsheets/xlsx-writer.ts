/**
 * Writing an XLSX workbook as a stream (zip-writer.ts), its sheets' XML made here as text: a
 * workbook of a few sheets of text cells, with the styles the caller gives once (cell style ids,
 * not a style per cell). The parts that do not depend on the rows (content types, relations, the
 * workbook, the styles) go out first, so the first byte does not wait for the rows; each sheet is
 * then one streamed entry, written row by row. Strings are written in the cells themselves (no
 * shared-strings table to hold), as exceljs's streaming writer wrote them (`t="str"`).
 */
import { ZipWriter, type ZipEntryWriter } from './zip-writer';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Characters XML 1.0 cannot carry at all (control characters but tab, newline and return; unpaired surrogates; U+FFFE, U+FFFF). */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const NEEDS_WORK = /[&<>"\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text as XML character data or an attribute's value. */
export function xmlText(s: string): string {
  // Most cells need nothing done: one test, and the text itself.
  if (!NEEDS_WORK.test(s)) return s;
  return s.replace(INVALID, '').replace(/[&<>"]/g, (c) => ESCAPES[c]);
}

/** One text cell: `ref` (A1), its style id (0: none), its text (undefined: the cell is written only when it has a style). */
export function textCell(ref: string, style: number, value: string | undefined): string {
  const s = style ? ` s="${style}"` : '';
  if (value === undefined) return style ? `<c r="${ref}"${s}/>` : '';
  return `<c r="${ref}"${s} t="str"><v>${xmlText(value)}</v></c>`;
}

/** Spreadsheet column letters of a 0-based index (A, ..., Z, AA...). */
export function columnLetters(n: number): string {
  return n < 26 ? String.fromCharCode(65 + n) : columnLetters(Math.floor(n / 26) - 1) + columnLetters(n % 26);
}

/** The opening of a worksheet part up to its rows: frozen panes and column widths where given. */
export function worksheetStart(options: { frozen?: { columns: number; rows: number }; widths?: Array<number | undefined> }): string {
  let xml = `${HEAD}<worksheet xmlns="${MAIN}" xmlns:r="${REL}">`;
  const f = options.frozen;
  if (f) {
    xml += `<sheetViews><sheetView workbookViewId="0"><pane xSplit="${f.columns}" ySplit="${f.rows}" topLeftCell="${columnLetters(f.columns)}${f.rows + 1}"`
      + ' activePane="bottomRight" state="frozen"/><selection pane="bottomRight"/></sheetView></sheetViews>';
  }
  xml += '<sheetFormatPr defaultRowHeight="15"/>';
  const cols = (options.widths ?? []).map((w, i) => (w === undefined ? '' : `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`)).join('');
  if (cols) xml += `<cols>${cols}</cols>`;
  return `${xml}<sheetData>`;
}

/**
 * The end of a worksheet part after its rows. `protection`: the sheet is protected (locked cells
 * cannot be edited), with the attributes given (e.g. formatColumns="0" to allow it); `lists`: data
 * validations offering a list, by range (A3:A10) and the formula of the list's cells.
 */
export function worksheetEnd(options: { protection?: string; lists?: Array<{ range: string; formula: string }> }): string {
  let xml = '</sheetData>';
  // The schema's order: the protection comes before the data validations.
  if (options.protection !== undefined) xml += `<sheetProtection sheet="1"${options.protection ? ` ${options.protection}` : ''}/>`;
  const lists = options.lists ?? [];
  if (lists.length) {
    xml += `<dataValidations count="${lists.length}">${lists.map((l) => `<dataValidation type="list" allowBlank="1" sqref="${l.range}"><formula1>${xmlText(l.formula)}</formula1></dataValidation>`).join('')}</dataValidations>`;
  }
  return `${xml}<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`;
}

/** A workbook written to `send`: begin() sends its fixed parts, sheet(i) opens each sheet's part in turn, end() completes it. */
export class WorkbookWriter {
  private readonly zip: ZipWriter;

  /** `styles`: the styles part (xl/styles.xml), whose cellXfs the cells' style ids index. */
  constructor(send: (chunk: Buffer) => Promise<void>, private readonly sheetNames: string[], private readonly styles: string) {
    this.zip = new ZipWriter(send);
  }

  async begin(): Promise<void> {
    const sheets = this.sheetNames.map((_, i) => i + 1);
    await this.zip.file('[Content_Types].xml', `${HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`
      + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
      + '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
      + '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
      + sheets.map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')
      + '</Types>');
    await this.zip.file('_rels/.rels', `${HEAD}<Relationships xmlns="${PACKAGE_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
    await this.zip.file('xl/workbook.xml', `${HEAD}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>`
      + this.sheetNames.map((name, i) => `<sheet name="${xmlText(name)}" sheetId="${i + 1}" r:id="rId${i + 2}"/>`).join('')
      + '</sheets></workbook>');
    await this.zip.file('xl/_rels/workbook.xml.rels', `${HEAD}<Relationships xmlns="${PACKAGE_REL}"><Relationship Id="rId1" Type="${REL}/styles" Target="styles.xml"/>`
      + sheets.map((n) => `<Relationship Id="rId${n + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${n}.xml"/>`).join('')
      + '</Relationships>');
    await this.zip.file('xl/styles.xml', this.styles);
  }

  /** The part of sheet `index` (0-based), to write and close before the next. */
  sheet(index: number): Promise<ZipEntryWriter> {
    return this.zip.stream(`xl/worksheets/sheet${index + 1}.xml`);
  }

  end(): Promise<void> {
    return this.zip.end();
  }
}

/** A styles part: `fonts` (each a <font>'s content) and `cellXfs` (each an <xf>, whose fontId indexes fonts); style id 0 is the first xf. */
export function stylesPart(fonts: string[], cellXfs: string[]): string {
  return `${HEAD}<styleSheet xmlns="${MAIN}">`
    + `<fonts count="${fonts.length}">${fonts.map((f) => `<font>${f}</font>`).join('')}</fonts>`
    + '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
    + '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    + '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    + `<cellXfs count="${cellXfs.length}">${cellXfs.join('')}</cellXfs>`
    + '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>';
}
