/**
 * The printable finding aid of a resource (`…/resource_descriptions/:id.pdf`, `….xml?print_pdf=true`,
 * `export-ead --pdf`): a title page, a collection overview (summary, notes, access points) and the
 * container list, components indented by level, page numbers in the footer. Made with pdfkit from
 * the same records and the same component walk as the EAD (walker.ts), and streamed: each page goes out as it is
 * laid out, so a resource of 100,000 components prints in bounded memory.
 */
import fs from 'node:fs';
import path from 'node:path';
import type PDFKit from 'pdfkit';
import type { Obj } from '../../../json';
import type { Services } from '../../../records/context';
import { dateText } from '../common';
import { pdfOutput } from '../pdf-output';
import {
  accessPoints, type ArchivalObject, containedInstances, type Described, type EadOptions, notesOf, humanise, identifierOf, noteContent, noteContents, originators, present,
  type Repository, repositoryAddress, type Resource, shownIn, subLevels,
} from './parts';
import { ARCHDESC_NOTES, DID_NOTES, LANGUAGES, NOTE_HEADS } from './tables';
import { findingAidComponents, walkComponents } from './walker';

/** Unicode fonts when the machine has them (Debian's fonts-dejavu-core), else PDF's built-in Helvetica (Latin-1 only). */
const FONT_DIR = process.env.PDF_FONT_DIR ?? '/usr/share/fonts/truetype/dejavu';
export function fonts(): { regular: string; bold: string; italic: string } {
  const file = (name: string) => path.join(FONT_DIR, name);
  if (fs.existsSync(file('DejaVuSans.ttf')) && fs.existsSync(file('DejaVuSans-Bold.ttf')) && fs.existsSync(file('DejaVuSans-Oblique.ttf'))) {
    return { regular: file('DejaVuSans.ttf'), bold: file('DejaVuSans-Bold.ttf'), italic: file('DejaVuSans-Oblique.ttf') };
  }
  return { regular: 'Helvetica', bold: 'Helvetica-Bold', italic: 'Helvetica-Oblique' };
}

/** Typed text as it reads: inline EAD markup dropped, entities read, paragraphs kept. */
export function plainText(text: unknown): string {
  return String(text ?? '')
    .replace(/<lb\s*\/>/g, '\n')
    .replace(/<\/p>\s*<p[^>]*>/g, '\n\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&')
    .trim();
}

const MARGIN = 54;

/** Labels of the summary notes (the other notes take their heads from the EAD's table). */
const SUMMARY_LABELS: Record<string, string> = {
  abstract: 'Abstract', physloc: 'Physical Location', materialspec: 'Materials Specific Details', physdesc: 'Physical Description',
  dimensions: 'Dimensions', physfacet: 'Physical Facet', langmaterial: 'Language of Materials',
};

export async function writePdf(
  s: Services, write: (chunk: Buffer) => Promise<void>, loaded: Obj, loadedRepository: Obj, o: EadOptions,
): Promise<void> {
  const resource = loaded as Resource;
  const repository = loadedRepository as Repository;
  const f = fonts();
  const title = plainText(present(resource.finding_aid_title) ? resource.finding_aid_title : resource.title);
  // Loaded on the first PDF, not at start: pdfkit and its font tables hold about 27 MB of memory
  // that a server which never prints a finding aid should not carry.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const PDFDocument = require('pdfkit') as typeof PDFKit;
  const doc = new PDFDocument({
    size: 'LETTER', margin: MARGIN, autoFirstPage: false,
    info: { Title: title, Author: plainText(resource.finding_aid_author ?? repository.name ?? ''), Creator: 'Archive Records Backend', Producer: 'Archive Records Backend' },
  });
  const { drain, ended } = pdfOutput(doc, write);
  let pageNumber = 0;
  doc.on('pageAdded', () => {
    pageNumber++;
    // The footer sits in the bottom margin: drawn with the margin lifted, so it never starts a page.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    const { x, y } = doc;
    doc.font(f.regular).fontSize(8).fillColor('#555555')
      .text(`${title} — page ${pageNumber}`, MARGIN, doc.page.height - 36, { width: doc.page.width - 2 * MARGIN, align: 'center', lineBreak: false });
    doc.fillColor('black');
    doc.page.margins.bottom = bottom;
    doc.x = x;
    doc.y = y;
  });
  const shown = shownIn(o);
  const width = () => doc.page.width - 2 * MARGIN;
  const heading = (text: string, size = 14) => doc.moveDown(0.6).font(f.bold).fontSize(size).text(text, MARGIN, undefined, { width: width() }).moveDown(0.3);
  const para = (text: string, indent = 0) => {
    for (const part of plainText(text).split(/\n\s*\n/).filter(Boolean)) {
      doc.font(f.regular).fontSize(10).text(part, MARGIN + indent, undefined, { width: width() - indent }).moveDown(0.4);
    }
  };
  const field = (label: string, value: string) => {
    if (!value) return;
    doc.font(f.bold).fontSize(10).text(`${label}: `, MARGIN, undefined, { continued: true, width: width() }).font(f.regular).text(value);
  };
  const dates = (r: Described) => (r.dates ?? []).filter(shown).map((d) => `${dateText(d, '-')}${d.date_type === 'bulk' ? ' (bulk)' : ''}`).join('; ');
  const extents = (r: Described) => (r.extents ?? []).filter(shown)
    .map((e) => [`${e.number ?? ''} ${humanise(String(e.extent_type ?? ''))}`.trim(), e.container_summary ? `(${e.container_summary})` : ''].filter(Boolean).join(' ')).join('; ');
  const containers = (r: Described) => containedInstances(r).map(({ sub, top }) => [
    `${humanise(String(top.type ?? 'container'))} ${top.indicator ?? ''}`.trim(),
    ...subLevels(sub).map((level) => `${humanise(level.type)} ${level.indicator ?? ''}`.trim()),
  ].join(', ')).join('; ');

  // Title page.
  doc.addPage();
  doc.moveDown(6).font(f.regular).fontSize(12).text(plainText(repository.name ?? ''), { align: 'center' });
  doc.moveDown(2).font(f.bold).fontSize(22).text(title, { align: 'center' });
  if (present(resource.finding_aid_subtitle)) doc.moveDown(0.5).font(f.regular).fontSize(14).text(plainText(resource.finding_aid_subtitle), { align: 'center' });
  doc.moveDown(1).font(f.regular).fontSize(12);
  if (identifierOf(resource)) doc.text(identifierOf(resource), { align: 'center' });
  if (dates(resource)) doc.text(dates(resource), { align: 'center' });
  doc.moveDown(3).fontSize(10);
  if (present(resource.finding_aid_author)) doc.text(plainText(resource.finding_aid_author), { align: 'center' });
  if (present(resource.finding_aid_date)) doc.text(plainText(resource.finding_aid_date), { align: 'center' });
  const address = await repositoryAddress(s, repository);
  if (address.length) doc.moveDown(2).text(address.map(plainText).join('\n'), { align: 'center' });
  await drain();

  // Collection overview.
  doc.addPage();
  heading('Collection Overview', 16);
  field('Title', plainText(resource.title));
  field('Identifier', identifierOf(resource));
  field('Dates', dates(resource));
  field('Extent', extents(resource));
  const languages = (resource.lang_materials ?? []).map((m: Obj) => m.language_and_script?.language).filter(Boolean);
  field('Language', languages.map((l: string) => LANGUAGES[l] ?? l).join(', '));
  field('Creator', originators(resource, o).filter((a) => a.role === 'creator').map((a) => plainText(a.name)).join('; '));
  field('Repository', plainText(repository.name ?? ''));
  for (const note of notesOf(resource).filter((n: Obj) => shown(n) && DID_NOTES.has(n.type))) {
    field(plainText(note.label ?? SUMMARY_LABELS[note.type] ?? humanise(String(note.type))), plainText(noteContent(note, o.includeUnpublished)));
  }
  for (const note of notesOf(resource).filter((n: Obj) => shown(n) && (ARCHDESC_NOTES.has(n.type) || n.jsonmodel_type === 'note_bibliography'))) {
    heading(plainText(note.label ?? NOTE_HEADS[note.type] ?? NOTE_HEADS.bibliography), 12);
    for (const text of noteContents(note)) para(text);
    for (const sub of (note.subnotes ?? []).filter(shown)) {
      if (sub.jsonmodel_type === 'note_text') para(String(sub.content ?? ''));
      else if (sub.jsonmodel_type === 'note_chronology') for (const item of sub.items ?? []) para(`${item.event_date ?? ''}: ${(item.events ?? []).join('; ')}`, 12);
      else if (sub.jsonmodel_type === 'note_orderedlist') (sub.items ?? []).forEach((item: unknown, i: number) => para(`${i + 1}. ${item}`, 12));
      else if (sub.jsonmodel_type === 'note_definedlist') for (const item of sub.items ?? []) para(`${item.label ?? ''}: ${item.value ?? ''}`, 12);
    }
    for (const item of note.items ?? []) if (typeof item === 'string') para(item, 12);
  }
  const access = accessPoints(resource, o)
    .map((p) => `${p.terms.map((t) => t[0]).join(' -- ')}${p.role !== undefined ? ` (${humanise(p.role)})` : ''}`).filter(Boolean).map(plainText);
  if (access.length) {
    heading('Controlled Access Headings', 12);
    for (const a of access) para(`• ${a}`, 12);
  }
  await drain();

  // Container list.
  doc.addPage();
  heading('Container List', 16);
  await walkComponents(s, String(resource.uri), findingAidComponents(o), {
    enter: ({ record, depth }) => {
      const c = record as ArchivalObject;
      const indent = Math.min(depth - 1, 8) * 18;
      const level = c.level === 'otherlevel' ? c.other_level : c.level;
      const line = [plainText(c.title ?? c.display_string ?? ''), dates(c)].filter(Boolean).join(', ');
      doc.font(depth === 1 ? f.bold : f.regular).fontSize(10)
        .text(line || '[untitled]', MARGIN + indent, undefined, { width: width() - indent });
      const details = [level ? humanise(String(level)) : '', c.component_id ? String(c.component_id) : '', containers(c), extents(c)].filter(Boolean).join(' · ');
      if (details) doc.font(f.italic).fontSize(8).fillColor('#333333').text(details, MARGIN + indent, undefined, { width: width() - indent }).fillColor('black');
      for (const note of notesOf(c).filter((n: Obj) => shown(n) && (n.type === 'scopecontent' || n.type === 'abstract'))) {
        const text = plainText(noteContent(note, o.includeUnpublished) || (note.subnotes ?? []).filter(shown).map((x: Obj) => x.content ?? '').join('\n\n'));
        if (text) doc.font(f.regular).fontSize(8).text(text, MARGIN + indent + 9, undefined, { width: width() - indent - 9 });
      }
      doc.moveDown(0.25);
    },
    leave: drain,
  });
  doc.end();
  await ended;
  await drain();
}
