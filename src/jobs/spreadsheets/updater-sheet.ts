/**
 * The bulk archival-object updater's spreadsheet (POST .../generate_spreadsheet): one row per
 * archival object, in ArchivesSpace's layout (updater-columns.ts), written with exceljs's streaming
 * workbook writer so that rows go out as they are made. The sheet "Updates" is protected: the
 * identity columns (id, version, ref_id) are locked, every other cell of a data row is open; a
 * second sheet, "Enums", holds each value list a column offers, which the data validations point at.
 * Each repeated group (dates, extents, instances, notes...) gets as many columns as the records
 * hold at most, plus extra_subrecords empty ones to add to, and at least min_subrecords (min_notes).
 */
import { once } from 'node:events';
import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { isPlainObject, type Obj } from '../../json';
import type { Services } from '../../records/context';
import type { Handle } from '../../store/database';
import { jsonOfUris } from '../../store/domain-reads';
import { ALWAYS, type Column, type Counts, enumCell, labelOf, NOTE_TYPES, pathOf, sheetColumns } from './updater-columns';

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
  count: number;
  batches(): AsyncIterable<Obj[]>;
}

/** The records of `uris`, a batch at a time in their order. */
export function sheetSource(s: Services, uris: string[], batchSize = 200): SheetSource {
  return {
    count: uris.length,
    async *batches() {
      for (let i = 0; i < uris.length; i += batchSize) {
        const batch = uris.slice(i, i + batchSize);
        const byUri = new Map((await jsonOfUris(s.db.knex, batch)).map((r) => [r.uri, JSON.parse(r.json) as Obj]));
        yield batch.map((u) => byUri.get(u)).filter((r): r is Obj => !!r);
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
export async function linkedRecords(s: Services, records: Obj[], h: Handle = s.db.knex): Promise<Map<string, Obj>> {
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
const enumText = (v: unknown) => (typeof v === 'string' && v !== '' ? enumCell(v) : undefined);
const boolText = (v: unknown) => (v === true ? 'true' : 'false');

/** One cell of a record's row: what the sheet shows for the record in that column. */
export function cellOf(ao: Obj, c: Column, linked: Map<string, Obj>): string | undefined {
  const show = (v: unknown) => (c.kind === 'enum' ? enumText(v) : c.kind === 'boolean' ? boolText(v) : text(v));
  const i = c.index ?? 0;
  switch (c.group) {
    case 'archival_object':
      // The stored record carries its id in its URI.
      return show(c.name === 'id' ? ao.id ?? String(ao.uri).split('/').pop() : ao[c.name]);
    case 'date':
      return list(ao.dates)[i] ? show(list(ao.dates)[i][c.name]) : undefined;
    case 'extent':
      return list(ao.extents)[i] ? show(list(ao.extents)[i][c.name]) : undefined;
    case 'instance': {
      const instance = containerInstances(ao)[i];
      if (!instance) return undefined;
      if (c.name === 'instance_type') return show(instance.instance_type);
      const sub = (instance.sub_container ?? {}) as Obj;
      const top = linked.get(String((sub.top_container as Obj | undefined)?.ref)) ?? {};
      if (c.name.startsWith('top_container_')) return show(top[c.name.slice('top_container_'.length)]);
      return show(sub[c.name.slice('sub_container_'.length)]);
    }
    case 'digital_object': {
      const instance = digitalInstances(ao)[i];
      if (!instance) return undefined;
      const dobj = linked.get(String((instance.digital_object as Obj | undefined)?.ref)) ?? {};
      const file = list(dobj.file_versions)[0];
      if (c.name.startsWith('file_version_')) return file ? show(file[c.name.slice('file_version_'.length)]) : undefined;
      return show(c.name === 'digital_object_id' ? dobj.digital_object_id : dobj[c.name.slice('digital_object_'.length)]);
    }
    case 'language_and_script': {
      const l = languagesOf(ao)[i];
      return l ? show((l.language_and_script as Obj)[c.name]) : undefined;
    }
    case 'note_langmaterial': {
      const n = languageNotesOf(ao)[i];
      return n && Array.isArray(n.content) ? text(n.content[0]) : undefined;
    }
    case 'note': {
      const note = notesOf(ao, c.noteType!)[i];
      if (!note) return undefined;
      if (c.name === 'content') return noteText(note);
      if (c.name === 'label') return text(note.label);
      const restriction = (note.rights_restriction ?? {}) as Obj;
      const v = restriction[c.name];
      return show(Array.isArray(v) ? v[0] : v);
    }
  }
}

/** Spreadsheet column letters of a 0-based index (A, ..., Z, AA...). */
export function columnLetters(n: number): string {
  return n < 26 ? String.fromCharCode(65 + n) : columnLetters(Math.floor(n / 26) - 1) + columnLetters(n % 26);
}

/** A Node stream that hands each chunk to the reply's sink and waits for it (the socket's pace). */
function sinkStream(send: (chunk: Buffer) => Promise<void>): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      send(chunk).then(() => done(), done);
    },
  });
}

/** Writes the updater workbook for `source` to `send`, a row at a time. */
export async function writeUpdaterSheet(s: Services, send: (chunk: Buffer) => Promise<void>, source: SheetSource, options: SheetOptions): Promise<void> {
  const enums = (name: string) => s.enums.get(name)?.values ?? [];
  const columns = sheetColumns(new Set([...options.selected, ...ALWAYS]), await countsOf(source, options));
  const stream = sinkStream(send);
  const finished = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
  const sheet = book.addWorksheet(SHEET_NAME, { views: [{ state: 'frozen', xSplit: 3, ySplit: 1 }] });
  // Locked cells are only protected in a protected sheet; formatting and sorting stay allowed, as in ArchivesSpace's.
  await sheet.protect('', { formatColumns: true, formatRows: true, sort: true });
  sheet.columns = columns.map((c) => ({ width: c.width }));
  const lockedStyle: Partial<ExcelJS.Style> = { protection: { locked: true }, font: { color: { argb: 'FF808080' }, size: 8 } };
  const openStyle: Partial<ExcelJS.Style> = { protection: { locked: false }, numFmt: '@' };
  const labels = sheet.addRow(columns.map(labelOf));
  labels.font = { bold: true, size: 12 };
  labels.commit();
  const paths = sheet.addRow(columns.map(pathOf));
  paths.eachCell((cell) => { cell.style = lockedStyle; });
  paths.commit();
  let written = 0;
  for await (const batch of source.batches()) {
    const linked = await linkedRecords(s, batch);
    for (const ao of batch) {
      const values = columns.map((c) => cellOf(ao, c, linked));
      const row = sheet.addRow(values.map((v) => v ?? null));
      // The row's own style opens its empty cells (as ArchivesSpace formats the row), so only the
      // cells written, and the locked ones, carry a style of their own.
      (row as unknown as { style: Partial<ExcelJS.Style> }).style = openStyle;
      columns.forEach((c, i) => {
        if (c.locked) row.getCell(i + 1).style = lockedStyle;
        else if (values[i] !== undefined) row.getCell(i + 1).style = openStyle;
      });
      row.commit();
      written++;
    }
    // Rows are made faster than a client reads them: after each batch the zip is let out to the
    // client, and the loop waits while the reply's buffer is full, so memory stays bounded.
    await new Promise((resolve) => setImmediate(resolve));
    if (stream.writableNeedDrain) await once(stream, 'drain');
  }
  // Each value-list column offers its list (and each boolean true or false) from the Enums sheet.
  const lists = book.addWorksheet('Enums');
  await lists.protect('', {});
  const listColumns: Array<string[] | undefined> = columns.map((c) => {
    if (c.kind === 'boolean') return ['boolean', 'true', 'false'];
    if (c.kind !== 'enum') return undefined;
    const values = enums(c.list!).filter((v) => !(c.group === 'instance' && c.name === 'instance_type' && v === 'digital_object')).map(enumCell);
    return [c.list!, ...values.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))];
  });
  const longest = listColumns.reduce((m, l) => Math.max(m, l?.length ?? 0), 0);
  for (let r = 0; r < longest; r++) lists.addRow(listColumns.map((l) => l?.[r] ?? null)).commit();
  listColumns.forEach((l, i) => {
    if (!l || !written) return;
    const letters = columnLetters(i);
    const range = `${letters}3:${letters}${2 + written}`;
    (sheet as unknown as { dataValidations: { add(range: string, v: ExcelJS.DataValidation): void } }).dataValidations.add(range, {
      type: 'list', allowBlank: true, formulae: [`Enums!$${letters}$2:$${letters}$${l.length}`],
    });
  });
  sheet.commit();
  lists.commit();
  await book.commit();
  await finished;
}

/** The file name ArchivesSpace gives the sheet. */
export const sheetFilename = (resourceId: number) => `bulk_update.resource_${resourceId}.${new Date().toISOString().slice(0, 10)}.xlsx`;
