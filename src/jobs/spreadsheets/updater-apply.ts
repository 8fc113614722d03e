/**
 * One row of an edited updater sheet applied to its archival object. Only the cells that differ
 * from what the sheet would show for the record now are applied (the row's lock version has been
 * checked before, so that is what the sheet showed when it was made): an untouched cell never
 * rewrites a value. A changed cell of a repeated group (a date, an instance, a note...) applies its
 * group as ArchivesSpace's updater does: merged into the existing subrecord, or a new one when the
 * sheet's column has none yet. Emptying every cell of an existing subrecord would delete it, which
 * ArchivesSpace refuses unless configured to allow it; so does this server, with the row's error.
 */
import { isPlainObject, type Obj } from '../../json';
import { enumerationLabel } from '../../validation/enumeration-labels';
import { type Column, pathOf, SUBRECORD_GROUPS } from './updater-columns';
import { cellOf, containerInstances, languageNotesOf, languagesOf, notesOf, noteText } from './updater-sheet';
import type { SheetRow } from './sheet';

export interface RowInput {
  row: SheetRow;
  columns: Column[];
  /** The record as stored: read only. */
  before: Obj;
  /** The record to write: changed in place. */
  after: Obj;
  /** The top containers and digital objects the record's instances link to. */
  linked: Map<string, Obj>;
  /** A value list's values; undefined for a list that does not exist. */
  values(list: string): string[] | undefined;
  /** The resource's top container of that type, indicator and barcode (created when the job allows); undefined when there is none. */
  container(type: string, indicator: string, barcode: string | undefined): Promise<string | undefined>;
  /**
   * The digital object the cells of a digital_object/N group name by digital_object_id: created, or
   * changed to the cells' title, publish and file version; undefined (with the row's error) when it cannot be.
   */
  digitalObject(column: string, cells: DigitalObjectCells): Promise<string | undefined>;
}

/** The cells of one digital_object/N group, read. */
export interface DigitalObjectCells {
  digital_object_id?: string;
  digital_object_title?: string;
  digital_object_publish?: boolean;
  file_version_file_uri?: string;
  file_version_caption?: string;
  file_version_publish?: boolean;
}

/** Marks a cell whose value could not be read (the row has its error). */
const UNREADABLE = Symbol('unreadable');
type Clean = string | boolean | undefined | typeof UNREADABLE;

const squash = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
const norm = (v: unknown) => (v === undefined || v === null ? '' : String(v).trim());
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const DELETE_REFUSED = 'emptying every cell of an existing one would delete it, which the updater does not do (ArchivesSpace refuses it too unless configured); fix it in the record itself';

/** A value list's value for a cell: from "Label [value]", or the value, or its label; undefined when the list has none such. */
function listValue(text: string, list: string, values: string[]): string | undefined {
  const bracketed = /\[([^\]]*)\]$/.exec(text)?.[1];
  if (bracketed !== undefined) return values.find((v) => v === bracketed);
  const label = (v: string) => enumerationLabel(list, v) ?? v;
  return values.find((v) => v === text) ?? values.find((v) => squash(v) === squash(text)) ?? values.find((v) => squash(label(v)) === squash(text));
}

/** A cell's value as the record stores it: a value list's value, a boolean, or the text. */
function clean(input: RowInput, c: Column): Clean {
  const path = pathOf(c);
  const text = norm(input.row.get(path));
  if (text === '') return undefined;
  if (c.kind === 'boolean') return text.toLowerCase() === 'true';
  if (c.kind !== 'enum') return text;
  const found = listValue(text, c.list!, input.values(c.list!) ?? []);
  if (found !== undefined) return found;
  input.row.error(path, `'${text}' is not a value of the list ${c.list} (pick one from the cell's list, written "Label [value]")`);
  return UNREADABLE;
}

/** Whether a cell differs from what the sheet shows for the stored record. */
function changed(input: RowInput, c: Column): boolean {
  const now = norm(cellOf(input.before, c, input.linked));
  const sent = norm(input.row.get(pathOf(c)));
  if (now === sent) return false;
  // An empty boolean cell is not read as a change: the record keeps its value.
  if (c.kind === 'boolean' && sent === '') return false;
  // A value typed as its value or label ("series", "Series") is the value the sheet showed as "Series [series]".
  // A value not in the list counts as changed, so that it is reported.
  if (c.kind === 'enum' && sent !== '') {
    const value = listValue(sent, c.list!, input.values(c.list!) ?? []);
    return value === undefined || value !== /\[([^\]]*)\]$/.exec(now)?.[1];
  }
  return true;
}

const setOrDrop = (target: Obj, key: string, value: unknown) => {
  if (value === undefined || value === '') delete target[key];
  else target[key] = value;
};

/** Applies the row's changed cells to `after`; answers whether anything changed. Problems are the row's errors. */
export async function applyRow(input: RowInput): Promise<boolean> {
  const groups = new Map<string, Column[]>();
  for (const c of input.columns) {
    if (c.group === 'archival_object' && (c.name === 'id' || c.name === 'lock_version')) continue;
    const key = c.group === 'archival_object' ? c.name : c.group === 'note' ? `note/${c.noteType}/${c.index}` : `${c.group}/${c.index}`;
    groups.set(key, [...groups.get(key) ?? [], c]);
  }
  let any = false;
  for (const cols of groups.values()) {
    if (!cols.some((c) => changed(input, c))) continue;
    const cells = new Map<string, Clean>(cols.map((c) => [c.name, clean(input, c)]));
    if ([...cells.values()].includes(UNREADABLE)) continue;
    const values = cells as Map<string, string | boolean | undefined>;
    const first = cols[0];
    switch (first.group) {
      case 'archival_object':
        setOrDrop(input.after, first.name, values.get(first.name));
        break;
      case 'date':
      case 'extent':
        applySubrecord(input, first, values);
        break;
      case 'instance':
        await applyInstance(input, first, values);
        break;
      case 'digital_object':
        await applyDigitalObject(input, first, values);
        break;
      case 'language_and_script':
        applyLanguage(input, first, values);
        break;
      case 'note_langmaterial':
        applyLanguageNote(input, first, values.get('content') as string | undefined);
        break;
      case 'note':
        applyNote(input, first, values);
        break;
    }
    any = true;
  }
  return any;
}

const allEmpty = (values: Map<string, unknown>) => [...values.values()].every((v) => v === undefined);

/** A date or an extent: merged into the one at its index, or added. */
function applySubrecord(input: RowInput, c: Column, values: Map<string, string | boolean | undefined>): void {
  const prop = SUBRECORD_GROUPS[c.group as 'date' | 'extent'].prefix;
  const items = list(input.after[prop]);
  const existing = items[c.index!];
  if (existing && allEmpty(values)) {
    input.row.error(`${prop}/${c.index}`, `the ${c.group} ${c.index! + 1}: ${DELETE_REFUSED}`);
    return;
  }
  if (!existing && allEmpty(values)) return;
  const merged: Obj = existing ? { ...existing } : { jsonmodel_type: c.group };
  for (const [k, v] of values) setOrDrop(merged, k, v);
  // A new date without a label is a creation date (ArchivesSpace's default for the updater's dates).
  if (c.group === 'date' && merged.label === undefined) merged.label = 'creation';
  // As ArchivesSpace: a changed date is single without an end, inclusive with one.
  if (c.group === 'date') merged.date_type = merged.end === undefined ? 'single' : 'inclusive';
  if (existing) items[c.index!] = merged;
  else items.push(merged);
  input.after[prop] = items;
}

/** A container instance: its type, its top container (one of the resource's, found by type, indicator and barcode) and its child containers. */
async function applyInstance(input: RowInput, c: Column, values: Map<string, string | boolean | undefined>): Promise<void> {
  const path = `instances/${c.index}`;
  const instances = list(input.after.instances);
  const existing = containerInstances(input.after)[c.index!];
  if (existing && allEmpty(values)) {
    input.row.error(path, `the instance ${c.index! + 1}: ${DELETE_REFUSED}`);
    return;
  }
  if (!existing && allEmpty(values)) return;
  const v = (k: string) => values.get(k) as string | undefined;
  if (v('instance_type') === undefined) input.row.error(`${path}/instance_type`, 'an instance needs its type');
  const [type, indicator, barcode] = [v('top_container_type'), v('top_container_indicator'), v('top_container_barcode')];
  let ref: string | undefined;
  if (type === undefined || indicator === undefined) input.row.error(`${path}/top_container_indicator`, 'an instance needs its top container: its type and indicator');
  else {
    ref = await input.container(type, indicator, barcode);
    if (!ref) {
      input.row.error(`${path}/top_container_indicator`, `the resource has no top container ${type} ${indicator}${barcode ? ` [${barcode}]` : ''} (containers are named as the sheet shows them; submit with create_missing_top_containers to create it)`);
    }
  }
  if (!ref || v('instance_type') === undefined) return;
  const sub: Obj = { ...(isPlainObject(existing?.sub_container) ? existing.sub_container : { jsonmodel_type: 'sub_container' }), top_container: { ref } };
  for (const level of ['2', '3']) {
    setOrDrop(sub, `type_${level}`, v(`sub_container_type_${level}`));
    setOrDrop(sub, `indicator_${level}`, v(`sub_container_indicator_${level}`));
  }
  setOrDrop(sub, 'barcode_2', v('sub_container_barcode_2'));
  const instance: Obj = { ...(existing ?? { jsonmodel_type: 'instance' }), instance_type: v('instance_type'), sub_container: sub };
  if (existing) instances[instances.indexOf(existing)] = instance;
  else instances.push(instance);
  input.after.instances = instances;
}

/** A digital object instance: the digital object its identifier names (created or changed as the cells say), linked. */
async function applyDigitalObject(input: RowInput, c: Column, values: Map<string, string | boolean | undefined>): Promise<void> {
  const instances = list(input.after.instances);
  const existing = list(input.after.instances).filter((i) => i.instance_type === 'digital_object')[c.index!];
  if (existing && allEmpty(values)) {
    input.row.error(`instances/${c.index}`, `the digital object ${c.index! + 1}: ${DELETE_REFUSED}`);
    return;
  }
  if (!existing && allEmpty(values)) return;
  const column = `digital_object/${c.index}/digital_object_id`;
  if (values.get('digital_object_id') === undefined) {
    input.row.error(column, 'the digital object identifier is required');
    return;
  }
  const ref = await input.digitalObject(column, Object.fromEntries(values) as DigitalObjectCells);
  if (!ref) return;
  if (existing) {
    if ((existing.digital_object as Obj | undefined)?.ref === ref) return;
    instances[instances.indexOf(existing)] = { ...existing, digital_object: { ref } };
  } else instances.push({ jsonmodel_type: 'instance', instance_type: 'digital_object', digital_object: { ref } });
  input.after.instances = instances;
}

/** A language and its script (lang_materials without notes). */
function applyLanguage(input: RowInput, c: Column, values: Map<string, string | boolean | undefined>): void {
  const all = list(input.after.lang_materials);
  const existing = languagesOf(input.after)[c.index!];
  if (existing && allEmpty(values)) {
    input.row.error(`language_and_script/${c.index}`, `the language ${c.index! + 1}: ${DELETE_REFUSED}`);
    return;
  }
  if (!existing && allEmpty(values)) return;
  const las: Obj = { ...(existing?.language_and_script as Obj | undefined ?? { jsonmodel_type: 'language_and_script' }) };
  for (const [k, v] of values) setOrDrop(las, k, v);
  if (existing) all[all.indexOf(existing)] = { ...existing, language_and_script: las };
  else all.push({ jsonmodel_type: 'lang_material', language_and_script: las });
  input.after.lang_materials = all;
}

/** A language note (a langmaterial note of lang_materials). */
function applyLanguageNote(input: RowInput, c: Column, content: string | undefined): void {
  const existing = languageNotesOf(input.after)[c.index!];
  if (existing && content === undefined) {
    input.row.error(pathOf(c), `the language note ${c.index! + 1}: ${DELETE_REFUSED}`);
    return;
  }
  if (!existing && content === undefined) return;
  if (existing) {
    // languageNotesOf answers the notes inside `after` itself, so the change is made in place.
    existing.content = [content, ...(Array.isArray(existing.content) ? existing.content.slice(1) : [])];
    return;
  }
  input.after.lang_materials = [...list(input.after.lang_materials), { jsonmodel_type: 'lang_material', notes: [{ jsonmodel_type: 'note_langmaterial', type: 'langmaterial', content: [content] }] }];
}

/** A note of the column's type at its index: its text, label and (access notes) restriction. */
function applyNote(input: RowInput, c: Column, values: Map<string, string | boolean | undefined>): void {
  const type = c.noteType!;
  const multipart = !['abstract', 'physdesc'].includes(type);
  let note = notesOf(input.after, type)[c.index!];
  const content = values.get('content') as string | undefined;
  if (!note) {
    if (allEmpty(values)) return;
    note = multipart ? { jsonmodel_type: 'note_multipart', type, subnotes: [] } : { jsonmodel_type: 'note_singlepart', type, content: [] };
    input.after.notes = [...list(input.after.notes), note];
  } else if (content === undefined && noteText(note) !== undefined) {
    input.row.error(pathOf({ ...c, name: 'content' }), `the ${type} note ${c.index! + 1}: ${DELETE_REFUSED}`);
    return;
  }
  if (content !== undefined && content !== noteText(note)) {
    if (multipart) {
      const subnotes = list(note.subnotes);
      const text = subnotes.find((s) => s.jsonmodel_type === 'note_text');
      if (text) text.content = content;
      else subnotes.push({ jsonmodel_type: 'note_text', content });
      note.subnotes = subnotes;
    } else {
      note.content = [content, ...(Array.isArray(note.content) ? note.content.slice(1) : [])];
    }
  }
  if (values.has('label')) setOrDrop(note, 'label', values.get('label'));
  if (type === 'accessrestrict') {
    const restriction: Obj = { ...(isPlainObject(note.rights_restriction) ? note.rights_restriction : {}) };
    setOrDrop(restriction, 'begin', values.get('begin'));
    setOrDrop(restriction, 'end', values.get('end'));
    const kind = values.get('local_access_restriction_type') as string | undefined;
    setOrDrop(restriction, 'local_access_restriction_type', kind === undefined ? undefined : [kind]);
    if (Object.keys(restriction).length) note.rights_restriction = restriction;
    else delete note.rights_restriction;
  }
}
