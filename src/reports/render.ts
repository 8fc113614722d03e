/**
 * The renderers: one per format, each reading any definition's rows as the engine yields them
 * and writing as it goes (the sink waits while the reader is behind), so no format holds a
 * report in memory. JSON and CSV are laid out as ArchivesSpace writes them ({info, records};
 * info lines, a blank line, then the rows with each sub-report spread over columns of its own).
 */
import type { Cell, ReportDefinition, Row, RunParams, SubColumn, SubRow } from './definition';
import { columnsOf, reportInfo, reportRows } from './engine';
import { renderPdf } from './render-pdf';
import { label } from './values';

export type Write = (chunk: string | Buffer) => Promise<void>;

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
  return each.flatMap((r) => spread(sub.map((k) => (typeof k === 'string' ? r ? r[k] : null : subLines(k.sub, r ? r[k.name] : null))), (i) => typeof sub[i] !== 'string'));
}

/**
 * Lines from cells, a cell being a value or a sub-report's lines: one line per combination of the
 * sub-reports' lines. Each line is built once, by pushing onto it (most rows are one line).
 */
function spread(cells: unknown[], isSub: (i: number) => boolean): unknown[][] {
  let lines: unknown[][] = [[]];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (!isSub(i)) {
      for (const l of lines) l.push(cell);
      continue;
    }
    const nested = cell as unknown[][];
    if (nested.length === 1) for (const l of lines) l.push(...nested[0]);
    else lines = lines.flatMap((l) => nested.map((n) => [...l, ...n]));
  }
  return lines;
}

/** A row as CSV lines: one per combination of its sub-reports' rows (ArchivesSpace's expansion). */
function expandedLines(row: Row, columns: ReturnType<typeof columnsOf>): string {
  const cells = columns.map((c) => (c.sub ? subLines(c.sub, row[c.name]) : row[c.name]));
  return spread(cells, (i) => !!columns[i].sub).map(csvLine).join('');
}

/** Output gathered into chunks of about 64 KB: a chunk per line cost a stream write (and a file write) each. */
function batched(write: Write) {
  let buffer = '';
  return {
    async add(text: string) {
      buffer += text;
      if (buffer.length >= 65536) {
        const chunk = buffer;
        buffer = '';
        await write(chunk);
      }
    },
    async end() {
      if (buffer) await write(buffer);
      buffer = '';
    },
  };
}

async function renderJson(info: object, rows: AsyncIterable<Row>, write: Write) {
  const out = batched(write);
  await out.add(`{"info":${JSON.stringify(info)},"records":[`);
  let first = true;
  for await (const row of rows) {
    await out.add(`${first ? '' : ','}${JSON.stringify(row)}`);
    first = false;
  }
  await out.add(']}');
  await out.end();
}

async function renderCsv(def: ReportDefinition, run: RunParams, info: Record<string, unknown>, rows: AsyncIterable<Row>, write: Write) {
  const out = batched(write);
  for (const [k, v] of Object.entries(info)) await out.add(csvLine([k, v]));
  await out.add('\n');
  const columns = columnsOf(def, run.format);
  const asJson = run.values.csv_show_json === true;
  let any = false;
  for await (const row of rows) {
    if (!any) {
      await out.add(csvLine(asJson ? columns.map((c) => c.name) : columns.flatMap((c) => (c.sub ? subHeaders(c.name, c.sub) : [c.name]))));
      any = true;
    }
    if (asJson) await out.add(csvLine(columns.map((c) => { const v = row[c.name]; return Array.isArray(v) ? JSON.stringify(v) : v; })));
    else await out.add(expandedLines(row, columns));
  }
  if (!any) await out.add(csvLine(['No results found.']));
  await out.end();
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
  const out = batched(write);
  await out.add(`<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${esc(def.title)}</title><style>${REPORT_CSS}</style></head><body>\n<h1>${esc(def.title)}</h1>\n`);
  await out.add(`<dl class="info">${Object.entries(info).map(([k, v]) => `<dt>${esc(label(k))}</dt><dd>${esc(v)}</dd>`).join('')}</dl>\n`);
  let any = false;
  for await (const row of rows) {
    any = true;
    const cells = columns.filter((c) => row[c.name] !== null).map((c) => {
      const v = row[c.name] as Cell;
      return `<tr><th>${esc(label(c.name))}</th><td>${Array.isArray(v) ? htmlSub(v, c.sub ?? Object.keys(v[0] ?? {})) : esc(v)}</td></tr>`;
    });
    await out.add(`<section class="record"><table>${cells.join('')}</table></section>\n`);
  }
  if (!any) await out.add('<p class="empty">No results found.</p>\n');
  await out.add('</body></html>\n');
  await out.end();
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
