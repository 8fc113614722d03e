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
 * Speed: the renderer breaks values into lines at spaces itself and writes each line, label and
 * value, as one text object, rather than through pdfkit's line wrapping and a text object (with
 * its own buffers) per fragment; a word wider than a line goes through pdfkit's wrapping. Text of
 * scripts that need no shaping (Latin, Greek, Cyrillic, their punctuation: `UNSHAPED`) is encoded
 * and measured a character at a time from a table of each embedded font's glyphs, filled as
 * characters are met (`Glyphs`), not laid out a word at a time by fontkit (its shaping was most of
 * a report's time: 45 µs a line); such text is set without the font's kerning pairs, as a
 * report's plain lines need. Other text (marks, scripts that join) keeps pdfkit's shaping.
 */
import { fonts, plainText } from '../exchange/export/ead/pdf';
import { pdfOutput } from '../exchange/export/pdf-output';
import type { ReportDefinition, Row, RunParams, SubRow } from './definition';
import { columnsOf } from './engine';
import { label } from './values';

type Write = (chunk: string | Buffer) => Promise<void>;

const MARGIN = 54;
const SIZE = 9;
/** Pages between two generations of the fonts' layout caches. */
const CACHE_PAGES = 20;

/**
 * What of pdfkit's internals the renderer uses (pdfkit 0.15: `_root.data.Pages.data.Kids`, each
 * embedded font's `layoutCached` and `layoutRun`, its fontkit font, subset, widths and unicode
 * tables, `_fragment`).
 */
interface Font {
  id: string;
  ascender: number;
  encode(text: string): [string[], Array<{ xAdvance: number; advanceWidth: number; xOffset: number; yOffset: number }>];
  widthOfString(text: string, size: number): number;
  ref(): object;
  /** Embedded fonts only (not the built-in Helvetica): */
  font?: { glyphForCodePoint(codePoint: number): { id: number; advanceWidth: number } };
  subset?: { includeGlyph(id: number): number };
  widths?: number[];
  unicode?: number[][];
  scale?: number;
}

/** Characters set glyph by glyph without shaping: Latin, IPA, Greek, Cyrillic, Armenian, Latin and Greek extended, punctuation, currency, letterlike symbols (no combining marks). */
const UNSHAPED = /^[\u0020-\u007e\u00a0-\u02ff\u0370-\u058f\u1e00-\u206f\u20a0-\u20bf\u2100-\u214f]*$/;

/**
 * An embedded font's glyph of each character met (its id in the font's subset as the two bytes of a
 * literal string, and its width in 1/1000 em), entered in the font's subset, widths and unicode
 * tables as pdfkit's own encoding enters them, so the embedded subset, its widths and the text's
 * extraction are the same.
 */
class Glyphs {
  private byCode = new Map<number, { code: string; width: number }>();
  constructor(private readonly font: Required<Pick<Font, 'font' | 'subset' | 'widths' | 'unicode' | 'scale'>>) {}

  private glyph(code: number): { code: string; width: number } {
    let g = this.byCode.get(code);
    if (g === undefined) {
      const f = this.font;
      const glyph = f.font.glyphForCodePoint(code);
      const gid = f.subset.includeGlyph(glyph.id);
      f.widths[gid] ??= glyph.advanceWidth * f.scale;
      f.unicode[gid] ??= [code];
      this.byCode.set(code, g = { code: literalBytes(gid >> 8) + literalBytes(gid & 0xff), width: glyph.advanceWidth * f.scale });
    }
    return g;
  }

  /** The width of `text` at `size` points. */
  width(text: string, size: number): number {
    let w = 0;
    for (let i = 0; i < text.length; i++) w += this.glyph(text.charCodeAt(i)).width;
    return w * size / 1000;
  }

  /** `text` as the bytes of its glyph ids (two each), for a literal string `(…)`, one character a byte. */
  codes(text: string): string {
    let out = '';
    for (let i = 0; i < text.length; i++) out += this.glyph(text.charCodeAt(i)).code;
    return out;
  }
}

/** A byte in a PDF literal string: as itself (pdfkit writes content as latin1, a character a byte), the delimiters and line ends escaped. */
function literalBytes(byte: number): string {
  if (byte === 0x28 || byte === 0x29 || byte === 0x5c) return `\\${String.fromCharCode(byte)}`;
  if (byte === 0x0a) return '\\n';
  if (byte === 0x0d) return '\\r';
  return String.fromCharCode(byte);
}

/** The glyph table of an embedded font; none for a built-in one (encoded by pdfkit). */
function glyphsOf(font: Font): Glyphs | undefined {
  const { font: f, subset, widths, unicode, scale } = font;
  return f && subset && widths && unicode && scale ? new Glyphs({ font: f, subset, widths, unicode, scale }) : undefined;
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
  const { drain, ended } = pdfOutput(doc, write);
  const width = () => doc.page.width - 2 * MARGIN;
  // Each font as pdfkit holds it, with its glyph table (where it is embedded).
  const faces = new Map([f.bold, f.regular].map((name) => {
    const font = (doc.font(name), internals._font);
    return [name, { font, glyphs: glyphsOf(font) }];
  }));
  const face = (name: string) => faces.get(name)!;
  /** The width of `text` in a font at the report's size. */
  const widthIn = (name: string, text: string) => {
    const { font, glyphs } = face(name);
    return glyphs && UNSHAPED.test(text) ? glyphs.width(text, SIZE) : font.widthOfString(text, SIZE);
  };
  const labelWidths = new Map<string, number>();
  const boldWidth = (text: string) => {
    let w = labelWidths.get(text);
    if (w === undefined) labelWidths.set(text, w = widthIn(f.bold, text));
    return w;
  };
  const fragment = internals._fragment.bind(doc);
  const num = (n: number) => String(Math.round(n * 1e6) / 1e6);
  /**
   * Pieces of one line of text (each in its font, at its x) as one text object written in one
   * piece: unshaped text as a literal string of glyph ids, shaped text as pdfkit's `_fragment`
   * writes it (TJ arrays with the fonts' kerning); pdfkit's own when a glyph is offset (marks).
   */
  const emit = (pieces: Array<{ font: string; text: string; x: number }>, y: number) => {
    const ops: string[] = [];
    for (const piece of pieces) {
      const { font, glyphs } = face(piece.font);
      let shown: string;
      if (glyphs && UNSHAPED.test(piece.text)) {
        shown = `(${glyphs.codes(piece.text)}) Tj`;
      } else {
        doc.font(piece.font).fontSize(SIZE);
        const [encoded, positions] = font.encode(piece.text);
        if (positions.some((p) => p.xOffset || p.yOffset)) {
          fragment(piece.text, piece.x, y, {});
          continue;
        }
        const commands: string[] = [];
        let last = 0;
        for (let i = 0; i < positions.length; i++) {
          const pos = positions[i];
          if (pos.xAdvance - pos.advanceWidth !== 0 || i === positions.length - 1) {
            commands.push(`<${encoded.slice(last, i + 1).join('')}> ${num(-(pos.xAdvance - pos.advanceWidth))}`);
            last = i + 1;
          }
        }
        if (!commands.length) continue;
        shown = `[${commands.join(' ')}] TJ`;
      }
      if (doc.page.fonts[font.id] == null) doc.page.fonts[font.id] = font.ref();
      // The page's user space runs downwards (pdfkit flips it): the text matrix flips back, at the baseline.
      ops.push(`/${font.id} ${SIZE} Tf 1 0 0 -1 ${num(piece.x)} ${num(y + font.ascender / 1000 * SIZE)} Tm ${shown}`);
    }
    if (ops.length) doc.addContent(`BT\n${ops.join('\n')}\nET`);
  };
  /**
   * `text` broken into lines greedily at spaces, the first `firstRoom` wide and the others `room`
   * (each paragraph of it on lines of its own); null when a word is wider than a line.
   */
  const wrapped = (text: string, firstRoom: number, room: number): string[] | null => {
    const space = widthIn(f.regular, ' ');
    const lines: string[] = [];
    for (const paragraph of text.split('\n')) {
      let current: string | null = null;
      let width = 0;
      for (const word of paragraph.split(' ')) {
        const w = widthIn(f.regular, word);
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
