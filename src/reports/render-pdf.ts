/**
 * The PDF renderer: any definition's rows laid out by pdfkit as they arrive, each record a list of
 * `Label: value` lines with its sub-reports indented below, written page by page.
 *
 * Memory stays flat however many pages: pdfkit keeps, for the whole document, every word its
 * fonts have laid out (each font's layout cache, one entry per distinct word: a report's values
 * are mostly distinct) and every ended page's objects (its dictionary, resources and content
 * references stay in the page tree's list until the end). Both are let go as the pages end: each
 * font's layout cache keeps two generations of words, the older dropped every few pages (a word
 * met in either is kept, so labels and common words are laid out once), and an ended page keeps
 * only its reference (all the page tree writes of it at the end).
 *
 * Speed: the renderer breaks values into lines at spaces itself (each word measured once, through
 * the layout cache) and writes each line, label and value, as one text object, rather than
 * through pdfkit's line wrapping and a text object (with its own buffers) per fragment; a word
 * wider than a line goes through pdfkit's wrapping.
 */
import { fonts, plainText } from '../exchange/export/ead/pdf';
import type { ReportDefinition, Row, RunParams, SubRow } from './definition';
import { columnsOf } from './engine';
import { label } from './values';

type Write = (chunk: string | Buffer) => Promise<void>;

const MARGIN = 54;
const SIZE = 9;
/** Pages between two generations of the fonts' layout caches. */
const CACHE_PAGES = 20;

/** What of pdfkit's internals the renderer uses (pdfkit 0.15: `_root.data.Pages.data.Kids`, each embedded font's `layoutCached` and `layoutRun`, `_fragment`). */
interface Font {
  id: string;
  ascender: number;
  encode(text: string): [string[], Array<{ xAdvance: number; advanceWidth: number; xOffset: number; yOffset: number }>];
  ref(): object;
}
interface Internals {
  _fragment: (text: string, x: number, y: number, options: object) => void;
  _font: Font;
  _root: { data: { Pages: { data: { Kids: Array<{ data: object }> } } } };
  _fontFamilies: Record<string, { layoutCached?: (text: string) => unknown; layoutRun?: (text: string) => unknown }>;
}

export async function renderPdf(def: ReportDefinition, run: RunParams, info: Record<string, unknown>, rows: AsyncIterable<Row>, write: Write) {
  const f = fonts();
  // Loaded on the first PDF only: pdfkit's font tables are memory a server that never prints should not carry.
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ size: 'LETTER', margin: MARGIN, info: { Title: def.title, Creator: 'Archive Records Backend', Producer: 'Archive Records Backend' } });
  const internals = doc as unknown as Internals;
  // Each embedded font's cache of laid out words in two generations (pdfkit's own keeps every word of the document).
  const generations: Array<{ young: Map<string, unknown>; old: Map<string, unknown> }> = [];
  for (const path of [f.bold, f.regular]) doc.font(path);
  for (const font of Object.values(internals._fontFamilies)) {
    const layoutRun = font.layoutRun?.bind(font);
    if (!font.layoutCached || !layoutRun) continue;
    const cache = { young: new Map<string, unknown>(), old: new Map<string, unknown>() };
    generations.push(cache);
    font.layoutCached = (text: string) => {
      let run = cache.young.get(text);
      if (run === undefined) cache.young.set(text, run = cache.old.get(text) ?? layoutRun(text));
      return run;
    };
  }
  let pages = 1;
  let trimmed = 0;
  doc.on('pageAdded', () => {
    // The pages before this one are ended (written): their objects are no longer needed, only their references.
    const kids = internals._root.data.Pages.data.Kids;
    for (; trimmed < kids.length - 1; trimmed++) kids[trimmed].data = {};
    if (++pages % CACHE_PAGES === 0) {
      for (const cache of generations) {
        cache.old = cache.young;
        cache.young = new Map();
      }
    }
  });
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
  const labelWidths = new Map<string, number>();
  const boldWidth = (text: string) => {
    let w = labelWidths.get(text);
    if (w === undefined) labelWidths.set(text, w = doc.font(f.bold).fontSize(SIZE).widthOfString(text));
    return w;
  };
  const fragment = internals._fragment.bind(doc);
  const num = (n: number) => String(Math.round(n * 1e6) / 1e6);
  /**
   * Pieces of one line of text (each in its font, at its x) as one text object written in one
   * piece, as pdfkit's `_fragment` writes each (its TJ arrays with the fonts' kerning); pdfkit's
   * own when a glyph is offset (marks).
   */
  const emit = (pieces: Array<{ font: string; text: string; x: number }>, y: number) => {
    const ops = [`q\n1 0 0 -1 0 ${num(doc.page.height)} cm\nBT`];
    for (const piece of pieces) {
      doc.font(piece.font).fontSize(SIZE);
      const font = internals._font;
      const [encoded, positions] = font.encode(piece.text);
      if (positions.some((p) => p.xOffset || p.yOffset)) {
        fragment(piece.text, piece.x, y, {});
        continue;
      }
      if (doc.page.fonts[font.id] == null) doc.page.fonts[font.id] = font.ref();
      ops.push(`1 0 0 1 ${num(piece.x)} ${num(doc.page.height - y - font.ascender / 1000 * SIZE)} Tm`, `/${font.id} ${SIZE} Tf`);
      const commands: string[] = [];
      let last = 0;
      for (let i = 0; i < positions.length; i++) {
        const pos = positions[i];
        if (pos.xAdvance - pos.advanceWidth !== 0 || i === positions.length - 1) {
          commands.push(`<${encoded.slice(last, i + 1).join('')}> ${num(-(pos.xAdvance - pos.advanceWidth))}`);
          last = i + 1;
        }
      }
      if (commands.length) ops.push(`[${commands.join(' ')}] TJ`);
    }
    if (ops.length > 1) doc.addContent(`${ops.join('\n')}\nET\nQ`);
  };
  /**
   * `text` broken into lines greedily at spaces, the first `firstRoom` wide and the others `room`
   * (each paragraph of it on lines of its own); null when a word is wider than a line.
   */
  const wrapped = (text: string, firstRoom: number, room: number): string[] | null => {
    doc.font(f.regular).fontSize(SIZE);
    const space = doc.widthOfString(' ');
    const lines: string[] = [];
    for (const paragraph of text.split('\n')) {
      let current: string | null = null;
      let width = 0;
      for (const word of paragraph.split(' ')) {
        const w = doc.widthOfString(word);
        if (w > room) return null;
        if (current === null) {
          // The paragraph's first word: the first line (after the head) is the narrower, and the word may have to begin the next.
          if (!lines.length && w > firstRoom) lines.push('');
          current = word;
          width = w;
        } else if (width + space + w <= (lines.length ? room : firstRoom)) {
          current += ` ${word}`;
          width += space + w;
        } else {
          lines.push(current);
          current = word;
          width = w;
        }
      }
      lines.push(current ?? '');
    }
    return lines;
  };
  /** `head` in bold then `text` at x, broken into lines `room` wide, a new page begun where this one is full; false when a word is wider than a line. */
  const placed = (head: string, text: string, x: number, room: number): boolean => {
    const headWidth = head ? boldWidth(head) : 0;
    const lines = wrapped(text, room - headWidth, room);
    if (!lines) return false;
    doc.font(f.regular).fontSize(SIZE);
    const height = doc.currentLineHeight(true);
    for (const [i, text] of lines.entries()) {
      if (doc.y + height > doc.page.maxY()) doc.continueOnNewPage();
      const pieces = [];
      if (i === 0 && head) pieces.push({ font: f.bold, text: head, x });
      if (text) pieces.push({ font: f.regular, text, x: i === 0 ? x + headWidth : x });
      emit(pieces, doc.y);
      doc.y += height;
    }
    doc.x = MARGIN;
    return true;
  };
  const line = (name: string, value: unknown, indent = 0) => {
    const head = `${label(name)}: `;
    const text = plainText(value);
    if (placed(head, text, MARGIN + indent, width() - indent)) return;
    doc.font(f.bold).fontSize(SIZE).text(head, MARGIN + indent, undefined, { continued: true, width: width() - indent })
      .font(f.regular).text(text);
  };
  // A sub-report under its name, each row's cells indented below it (nested sub-reports further in).
  const subRows = (name: string, rows: SubRow[], indent: number): void => {
    if (!placed(label(name), '', MARGIN + indent, width() - indent)) doc.font(f.bold).fontSize(SIZE).text(label(name), MARGIN + indent, undefined, { width: width() - indent });
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
