/**
 * The bulk archival-object updater's spreadsheet (POST .../generate_spreadsheet): one row per
 * archival object, in ArchivesSpace's layout (updater-columns.ts), written as a stream
 * (xlsx-writer.ts) so that rows go out as they are made. The sheet "Updates" is protected: the
 * identity columns (id, version, ref_id) are locked, every other cell of a data row is open; a
 * second sheet, "Enums", holds each value list a column offers, which the data validations point at.
 * Each repeated group (dates, extents, instances, notes...) gets as many columns as the records
 * hold at most, plus extra_subrecords empty ones to add to, and at least min_subrecords (min_notes).
 */
import { isPlainObject, type Obj } from '../../json';
import type { Services } from '../../records/context';
import type { Handle } from '../../store/database';
import { jsonOfRids, jsonOfUris } from '../../store/domain-reads';
import { ALWAYS, type Column, type Counts, enumCell, labelOf, NOTE_TYPES, pathOf, sheetColumns } from './updater-columns';
import { columnLetters, stylesPart, textCell, WorkbookWriter, worksheetEnd, worksheetStart } from './xlsx-writer';

export const SHEET_NAME = 'Updates';

export interface SheetOptions {
  minSubrecords: number;
  extraSubrecords: number;
  minNotes: number;
  selected: string[];
}

/**
 * The archival objects a sheet is made from, in the sheet's order, a batch at a time: read once to
 * size the repeated groups and once to write the rows, so a resource of any size is never held whole.
 */
export interface SheetSource {
  batches(): AsyncIterable<Obj[]>;
}

/** A record the sheet is made of: its row id (what it is read by) and URI. */
export interface SheetNode {
  rid: number;
  uri: string;
}

/**
 * The records of `nodes`, a batch at a time in their order. They are read by row id (the primary
 * key), a batch a statement: by URI the same reads took five times as long (a lookup through the
 * URI's index for each, and a statement per hundred). `nodes` may be a function that finds them,
 * called once, when the first batch is asked for: a sheet's first bytes then go out before the
 * walk of a large tree.
 */
export function sheetSource(s: Services, nodes: SheetNode[] | (() => Promise<SheetNode[]>), batchSize = 500): SheetSource {
  let found: Promise<SheetNode[]> | undefined;
  const all = () => (found ??= Array.isArray(nodes) ? Promise.resolve(nodes) : nodes());
  return {
    async *batches() {
      const ordered = await all();
      for (let i = 0; i < ordered.length; i += batchSize) {
        const batch = ordered.slice(i, i + batchSize);
        const byRid = new Map((await jsonOfRids(s.db, batch.map((n) => n.rid))).map((r) => [Number(r.rid), JSON.parse(r.json) as Obj]));
        yield batch.map((n) => byRid.get(n.rid)).filter((r): r is Obj => !!r);
      }
    },
  };
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const isDigital = (i: Obj) => i.instance_type === 'digital_object';
export const containerInstances = (ao: Obj) => list(ao.instances).filter((i) => !isDigital(i));
export const digitalInstances = (ao: Obj) => list(ao.instances).filter(isDigital);
/** Languages (lang_materials with a language_and_script and no notes) and language notes, as the sheet splits them. */
export const languagesOf = (ao: Obj) => list(ao.lang_materials).filter((l) => isPlainObject(l.language_and_script) && !list(l.notes).length);
export const languageNotesOf = (ao: Obj) => list(ao.lang_materials).flatMap((l) => list(l.notes));
/** The notes of one type, in the record's order (the sheet's note/<type>/<n>). */
export const notesOf = (ao: Obj, type: string) => list(ao.notes).filter((n) => n.type === type && (n.jsonmodel_type === 'note_multipart' || n.jsonmodel_type === 'note_singlepart'));
/** A note's text as the sheet shows it: a multipart note's first text subnote, a singlepart note's first content. */
export function noteText(note: Obj): string | undefined {
  if (note.jsonmodel_type === 'note_multipart') return list(note.subnotes).find((s) => s.jsonmodel_type === 'note_text')?.content as string | undefined;
  return Array.isArray(note.content) ? note.content[0] as string | undefined : undefined;
}

/** Reads the top containers and digital objects the archival objects' instances link to, in one batch. */
export async function linkedRecords(s: Services, records: Obj[], h: Handle = s.db): Promise<Map<string, Obj>> {
  const uris = new Set<string>();
  for (const ao of records) {
    for (const i of containerInstances(ao)) {
      const ref = ((i.sub_container as Obj | undefined)?.top_container as Obj | undefined)?.ref;
      if (typeof ref === 'string') uris.add(ref);
    }
    for (const i of digitalInstances(ao)) {
      const ref = (i.digital_object as Obj | undefined)?.ref;
      if (typeof ref === 'string') uris.add(ref);
    }
  }
  const linked = new Map<string, Obj>();
  for (const row of await jsonOfUris(h, [...uris])) linked.set(row.uri, JSON.parse(row.json) as Obj);
  return linked;
}

/** How many columns of each group: ArchivesSpace's rule (at least the minimum, or the most any record has plus the extras). */
async function countsOf(source: SheetSource, o: SheetOptions): Promise<Counts> {
  const most: Record<string, number> = {};
  const see = (key: string, n: number) => { most[key] = Math.max(most[key] ?? 0, n); };
  for await (const batch of source.batches()) {
    for (const ao of batch) {
      see('date', list(ao.dates).length);
      see('extent', list(ao.extents).length);
      see('instance', containerInstances(ao).length);
      see('digital_object', digitalInstances(ao).length);
      see('language_and_script', languagesOf(ao).length);
      see('note_langmaterial', languageNotesOf(ao).length);
      for (const type of NOTE_TYPES) see(type, notesOf(ao, type).length);
    }
    // The zip gets its turn between batches (what is ready of the workbook goes out meanwhile).
    await new Promise((resolve) => setImmediate(resolve));
  }
  const counts: Counts = {
    language_and_script: Math.max(1, most.language_and_script ?? 0),
    note_langmaterial: Math.max(1, most.note_langmaterial ?? 0),
  };
  for (const group of ['date', 'extent', 'instance', 'digital_object']) counts[group] = Math.max(o.minSubrecords, (most[group] ?? 0) + o.extraSubrecords);
  // ArchivesSpace counts a note type over the whole sheet; here it is the most one record has, so a sheet does not grow with its length.
  for (const type of NOTE_TYPES) counts[type] = Math.max(o.minNotes, most[type] ?? 0);
  return counts;
}

const text = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
const enumText = (list: string, v: unknown) => (typeof v === 'string' && v !== '' ? enumCell(list, v) : undefined);
const boolText = (v: unknown) => (v === true ? 'true' : 'false');

/** How a column shows a value, by column. */
const showers = new WeakMap<Column, (v: unknown) => string | undefined>();
function showerOf(c: Column): (v: unknown) => string | undefined {
  const show = c.kind === 'enum' ? (v: unknown) => enumText(c.list!, v) : c.kind === 'boolean' ? boolText : text;
  showers.set(c, show);
  return show;
}

/** The parts of a record its cells come from, found once per row rather than once per cell. */
export interface RecordParts {
  dates: Obj[];
  extents: Obj[];
  containers: Obj[];
  digitals: Obj[];
  languages: Obj[];
  languageNotes: Obj[];
  notes: Map<string, Obj[]>;
}

export function partsOf(ao: Obj): RecordParts {
  const notes = new Map<string, Obj[]>();
  for (const n of list(ao.notes)) {
    if (typeof n.type !== 'string' || (n.jsonmodel_type !== 'note_multipart' && n.jsonmodel_type !== 'note_singlepart')) continue;
    notes.set(n.type, [...notes.get(n.type) ?? [], n]);
  }
  return {
    dates: list(ao.dates), extents: list(ao.extents), containers: containerInstances(ao), digitals: digitalInstances(ao),
    languages: languagesOf(ao), languageNotes: languageNotesOf(ao), notes,
  };
}

/** One cell of a record's row: what the sheet shows for the record in that column (`parts`: partsOf the record, when a row's cells are made together). */
export function cellOf(ao: Obj, c: Column, linked: Map<string, Obj>, parts: RecordParts = partsOf(ao)): string | undefined {
  // Made once per column, not once per cell: a row calls this for every column.
  const show = showers.get(c) ?? showerOf(c);
  const i = c.index ?? 0;
  switch (c.group) {
    case 'archival_object':
      // The stored record carries its id in its URI.
      return show(c.name === 'id' ? ao.id ?? String(ao.uri).split('/').pop() : ao[c.name]);
    case 'date':
      return parts.dates[i] ? show(parts.dates[i][c.name]) : undefined;
    case 'extent':
      return parts.extents[i] ? show(parts.extents[i][c.name]) : undefined;
    case 'instance': {
      const instance = parts.containers[i];
      if (!instance) return undefined;
      if (c.name === 'instance_type') return show(instance.instance_type);
      const sub = (instance.sub_container ?? {}) as Obj;
      const top = linked.get(String((sub.top_container as Obj | undefined)?.ref)) ?? {};
      if (c.name.startsWith('top_container_')) return show(top[c.name.slice('top_container_'.length)]);
      return show(sub[c.name.slice('sub_container_'.length)]);
    }
    case 'digital_object': {
      const instance = parts.digitals[i];
      if (!instance) return undefined;
      const dobj = linked.get(String((instance.digital_object as Obj | undefined)?.ref)) ?? {};
      const file = list(dobj.file_versions)[0];
      if (c.name.startsWith('file_version_')) return file ? show(file[c.name.slice('file_version_'.length)]) : undefined;
      return show(c.name === 'digital_object_id' ? dobj.digital_object_id : dobj[c.name.slice('digital_object_'.length)]);
    }
    case 'language_and_script': {
      const l = parts.languages[i];
      return l ? show((l.language_and_script as Obj)[c.name]) : undefined;
    }
    case 'note_langmaterial': {
      const n = parts.languageNotes[i];
      return n && Array.isArray(n.content) ? text(n.content[0]) : undefined;
    }
    case 'note': {
      const note = parts.notes.get(c.noteType!)?.[i];
      if (!note) return undefined;
      if (c.name === 'content') return noteText(note);
      if (c.name === 'label') return text(note.label);
      const restriction = (note.rights_restriction ?? {}) as Obj;
      const v = restriction[c.name];
      return show(Array.isArray(v) ? v[0] : v);
    }
  }
}

export { columnLetters } from './xlsx-writer';

/** Style ids of the sheet's cells (stylesPart's cellXfs, in order): defined once, not per cell. */
const PLAIN = 0;
const LABEL = 1;
const LOCKED = 2;
const OPEN = 3;
const STYLES = stylesPart(
  ['<sz val="11"/><name val="Calibri"/><family val="2"/>', '<b/><sz val="12"/>', '<sz val="8"/><color rgb="FF808080"/>'],
  [
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>',
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>',
    // Locked is a cell's default: the identity cells say nothing more than their grey small font.
    '<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1" applyProtection="1"/>',
    // Text format (@), so that what an archivist types stays text (1900 is not a number, 01 keeps its 0).
    '<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1" applyProtection="1"><protection locked="0"/></xf>',
  ],
);

/** The Enums sheet's columns: each value-list column's list name then its values as the sheet shows them (each boolean: true, false). */
function listColumnsOf(s: Services, columns: Column[]): Array<string[] | undefined> {
  return columns.map((c) => {
    if (c.kind === 'boolean') return ['boolean', 'true', 'false'];
    if (c.kind !== 'enum') return undefined;
    const values = (s.enums.get(c.list!)?.values ?? []).filter((v) => !(c.group === 'instance' && c.name === 'instance_type' && v === 'digital_object')).map((v) => enumCell(c.list!, v));
    return [c.list!, ...values.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))];
  });
}

/**
 * Writes the updater workbook for `source` to `send`, a batch of rows at a time: the sheet's XML is
 * made here as text with shared style ids (exceljs's per-cell style objects cost more than all the
 * rest), deflated and sent at the reply's pace, so memory holds a batch, not the sheet.
 */
export async function writeUpdaterSheet(s: Services, send: (chunk: Buffer) => Promise<void>, source: SheetSource, options: SheetOptions): Promise<void> {
  const book = new WorkbookWriter(send, [SHEET_NAME, 'Enums'], STYLES);
  // The workbook's parts that do not depend on the records go out while the records are sized:
  // the first byte does not wait for a pass over the whole resource.
  await book.begin();
  const columns = sheetColumns(new Set([...options.selected, ...ALWAYS]), await countsOf(source, options));
  const letters = columns.map((_, i) => columnLetters(i));
  const sheet = await book.sheet(0);
  sheet.write(worksheetStart({ frozen: { columns: 3, rows: 1 }, widths: columns.map((c) => c.width) }));
  sheet.write(`<row r="1" s="${LABEL}" customFormat="1">${columns.map((c, i) => textCell(`${letters[i]}1`, LABEL, labelOf(c))).join('')}</row>`);
  sheet.write(`<row r="2">${columns.map((c, i) => textCell(`${letters[i]}2`, LOCKED, pathOf(c))).join('')}</row>`);
  let r = 2;
  for await (const batch of source.batches()) {
    const linked = await linkedRecords(s, batch);
    for (const ao of batch) {
      r++;
      const parts = partsOf(ao);
      // The row's own style opens its empty cells (as ArchivesSpace formats the row), so only the
      // cells written, and the locked ones, carry a style of their own.
      let xml = `<row r="${r}" s="${OPEN}" customFormat="1">`;
      for (let i = 0; i < columns.length; i++) {
        const value = cellOf(ao, columns[i], linked, parts);
        xml += textCell(`${letters[i]}${r}`, columns[i].locked ? LOCKED : value === undefined ? PLAIN : OPEN, value);
      }
      sheet.write(`${xml}</row>`);
    }
    // Rows are made faster than a client reads them: each batch waits for the reply to take it.
    await sheet.flush();
  }
  const written = r - 2;
  const listColumns = listColumnsOf(s, columns);
  // Each value-list column offers its list from the Enums sheet; locked cells stay as they are,
  // formatting and sorting stay allowed (as in ArchivesSpace's sheet).
  const lists = written ? listColumns.flatMap((l, i) => (l ? [{ range: `${letters[i]}3:${letters[i]}${r}`, formula: `Enums!$${letters[i]}$2:$${letters[i]}$${l.length}` }] : [])) : [];
  sheet.write(worksheetEnd({ protection: 'formatColumns="0" formatRows="0" sort="0"', lists }));
  await sheet.close();
  const enums = await book.sheet(1);
  enums.write(worksheetStart({}));
  const longest = listColumns.reduce((m, l) => Math.max(m, l?.length ?? 0), 0);
  for (let row = 0; row < longest; row++) {
    enums.write(`<row r="${row + 1}">${listColumns.map((l, i) => textCell(`${letters[i]}${row + 1}`, PLAIN, l?.[row])).join('')}</row>`);
    if (enums.full) await enums.flush();
  }
  enums.write(worksheetEnd({ protection: '' }));
  await enums.close();
  await book.end();
}

/** The file name ArchivesSpace gives the sheet. */
export const sheetFilename = (resourceId: number) => `bulk_update.resource_${resourceId}.${new Date().toISOString().slice(0, 10)}.xlsx`;
