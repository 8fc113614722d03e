/**
 * The renderers: one per format, each reading any definition's rows as the engine yields them
 * and writing as it goes (the sink waits while the reader is behind), so no format holds a
 * report in memory. JSON and CSV are laid out as ArchivesSpace writes them ({info, records};
 * info lines, a blank line, then the rows with each sub-report spread over columns of its own).
 */
import { fonts, plainText } from '../exchange/export/ead/pdf';
import type { Cell, ReportDefinition, Row, RunParams, SubColumn, SubRow } from './definition';
import { columnsOf, reportInfo, reportRows } from './engine';

export type Write = (chunk: string | Buffer) => Promise<void>;

/** A column name as a label: accession_number → Accession Number. */
export const label = (name: string): string => name.replace(/^_+/, '').split('_').filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const text = String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
const csvLine = (cells: unknown[]) => `${cells.map(csvCell).join(',')}\n`;

const subName = (k: SubColumn): string => (typeof k === 'string' ? k : k.name);

/** A sub-report's CSV header cells: each column prefixed by the sub-report's name, nested ones spread too. */
const subHeaders = (prefix: string, sub: SubColumn[]): string[] =>
  sub.flatMap((k) => (typeof k === 'string' ? [`${prefix}_${k}`] : subHeaders(`${prefix}_${k.name}`, k.sub)));

/** A sub-report's cells: one line per combination of its rows and their nested sub-reports' rows (one empty line when it has none). */
function subLines(sub: SubColumn[], rows: unknown): unknown[][] {
  const each: Array<SubRow | null> = Array.isArray(rows) && rows.length ? rows : [null];
  return each.flatMap((r) => {
    let lines: unknown[][] = [[]];
    for (const k of sub) {
      if (typeof k === 'string') lines = lines.map((l) => [...l, r ? r[k] : null]);
      else {
        const nested = subLines(k.sub, r ? r[k.name] : null);
        lines = lines.flatMap((l) => nested.map((n) => [...l, ...n]));
      }
    }
    return lines;
  });
}

/** A row as CSV lines: one per combination of its sub-reports' rows (ArchivesSpace's expansion). */
function expandedLines(row: Row, columns: ReturnType<typeof columnsOf>): string[] {
  let lines: unknown[][] = [[]];
  for (const c of columns) {
    const v = row[c.name];
    if (!c.sub) {
      lines = lines.map((l) => [...l, v]);
      continue;
    }
    const nested = subLines(c.sub, v);
    lines = lines.flatMap((l) => nested.map((n) => [...l, ...n]));
  }
  return lines.map(csvLine);
}

async function renderJson(info: object, rows: AsyncIterable<Row>, write: Write) {
  await write(`{"info":${JSON.stringify(info)},"records":[`);
  let first = true;
  for await (const row of rows) {
    await write(`${first ? '' : ','}${JSON.stringify(row)}`);
    first = false;
  }
  await write(']}');
}

async function renderCsv(def: ReportDefinition, run: RunParams, info: Record<string, unknown>, rows: AsyncIterable<Row>, write: Write) {
  for (const [k, v] of Object.entries(info)) await write(csvLine([k, v]));
  await write('\n');
  const columns = columnsOf(def, run.format);
  const asJson = run.values.csv_show_json === true;
  let any = false;
  for await (const row of rows) {
    if (!any) {
      await write(csvLine(asJson ? columns.map((c) => c.name) : columns.flatMap((c) => (c.sub ? subHeaders(c.name, c.sub) : [c.name]))));
      any = true;
    }
    if (asJson) await write(csvLine(columns.map((c) => { const v = row[c.name]; return Array.isArray(v) ? JSON.stringify(v) : v; })));
    else for (const line of expandedLines(row, columns)) await write(line);
  }
  if (!any) await write(csvLine(['No results found.']));
}

const esc = (v: unknown) => String(v ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The stylesheet of HTML reports (inlined, and served at /reports/static/report.css). */
export const REPORT_CSS = `body{font-family:sans-serif;font-size:11pt;margin:2em}
h1{font-size:18pt}dl.info dt{font-weight:bold}section.record{border-top:1px solid #999;padding:.5em 0;page-break-inside:avoid}
table{border-collapse:collapse}th{text-align:left;padding-right:1em;vertical-align:top}td{vertical-align:top}
table.subreport{margin:.3em 0 .3em 1em;font-size:10pt}table.subreport th,table.subreport td{border:1px solid #ccc;padding:2px 4px}
`;

function htmlSub(rows: SubRow[], columns: SubColumn[]): string {
  const cell = (r: SubRow, k: SubColumn) => {
    const v = r[subName(k)];
    return Array.isArray(v) ? htmlSub(v, typeof k === 'string' ? Object.keys(v[0] ?? {}) : k.sub) : esc(v);
  };
  return `<table class="subreport"><tr>${columns.map((c) => `<th>${esc(label(subName(c)))}</th>`).join('')}</tr>${rows.map((r) => `<tr>${columns.map((c) => `<td>${cell(r, c)}</td>`).join('')}</tr>`).join('')}</table>`;
}

async function renderHtml(def: ReportDefinition, run: RunParams, info: Record<string, unknown>, rows: AsyncIterable<Row>, write: Write) {
  const columns = columnsOf(def, run.format);
  await write(`<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${esc(def.title)}</title><style>${REPORT_CSS}</style></head><body>\n<h1>${esc(def.title)}</h1>\n`);
  await write(`<dl class="info">${Object.entries(info).map(([k, v]) => `<dt>${esc(label(k))}</dt><dd>${esc(v)}</dd>`).join('')}</dl>\n`);
  let any = false;
  for await (const row of rows) {
    any = true;
    const cells = columns.filter((c) => row[c.name] !== null).map((c) => {
      const v = row[c.name] as Cell;
      return `<tr><th>${esc(label(c.name))}</th><td>${Array.isArray(v) ? htmlSub(v, c.sub ?? Object.keys(v[0] ?? {})) : esc(v)}</td></tr>`;
    });
    await write(`<section class="record"><table>${cells.join('')}</table></section>\n`);
  }
  if (!any) await write('<p class="empty">No results found.</p>\n');
  await write('</body></html>\n');
}

const MARGIN = 54;

async function renderPdf(def: ReportDefinition, run: RunParams, info: Record<string, unknown>, rows: AsyncIterable<Row>, write: Write) {
  const f = fonts();
  // Loaded on the first PDF only: pdfkit's font tables are memory a server that never prints should not carry.
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ size: 'LETTER', margin: MARGIN, info: { Title: def.title, Creator: 'Archive Records Backend', Producer: 'Archive Records Backend' } });
  let pending: Promise<void> = Promise.resolve();
  let failed: unknown;
  doc.on('data', (chunk: Buffer) => {
    pending = pending.then(() => write(chunk)).catch((err) => { failed = err; });
  });
  const ended = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  const drain = async () => {
    await pending;
    if (failed) throw failed;
  };
  const width = () => doc.page.width - 2 * MARGIN;
  const line = (name: string, value: unknown, indent = 0) => {
    doc.font(f.bold).fontSize(9).text(`${label(name)}: `, MARGIN + indent, undefined, { continued: true, width: width() - indent })
      .font(f.regular).text(plainText(value));
  };
  // A sub-report under its name, each row's cells indented below it (nested sub-reports further in).
  const subRows = (name: string, rows: SubRow[], indent: number): void => {
    doc.font(f.bold).fontSize(9).text(label(name), MARGIN + indent, undefined, { width: width() - indent });
    for (const sub of rows) {
      for (const [k, sv] of Object.entries(sub)) {
        if (Array.isArray(sv)) subRows(k, sv, indent + 18);
        else if (sv !== null) line(k, sv, indent + 18);
      }
      doc.moveDown(0.2);
    }
  };
  doc.font(f.bold).fontSize(18).text(def.title);
  doc.moveDown(0.5);
  for (const [k, v] of Object.entries(info)) line(k, v);
  const columns = columnsOf(def, run.format);
  let any = false;
  for await (const row of rows) {
    any = true;
    doc.moveDown(0.6);
    for (const c of columns) {
      const v = row[c.name];
      if (v === null) continue;
      if (!Array.isArray(v)) {
        line(c.name, v);
        continue;
      }
      subRows(c.name, v, 0);
    }
    await drain();
  }
  if (!any) doc.moveDown().font(f.regular).fontSize(10).text('No results found.');
  doc.end();
  await ended;
  await drain();
}

async function* counted(rows: AsyncIterable<Row>, progress?: (rows: number) => void): AsyncGenerator<Row> {
  let n = 0;
  for await (const row of rows) {
    yield row;
    progress?.(++n);
  }
}

/** Writes a report in its format. */
export async function renderReport(report: ReportDefinition, run: RunParams, write: Write, signal?: AbortSignal, progress?: (rows: number) => void): Promise<void> {
  const def = report.prepare ? await report.prepare(run.s, run.repoId, run.values) : report;
  const info = await reportInfo(def, run);
  const rows = counted(reportRows(def, run, signal), progress);
  switch (run.format) {
    case 'json': return renderJson(info, rows, write);
    case 'csv': return renderCsv(def, run, info, rows, write);
    case 'html': return renderHtml(def, run, info, rows, write);
    case 'pdf': return renderPdf(def, run, info, rows, write);
  }
}
