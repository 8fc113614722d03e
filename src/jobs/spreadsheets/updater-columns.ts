/**
 * The columns of ArchivesSpace's bulk archival-object updater spreadsheet (its SpreadsheetBuilder):
 * one sheet, "Updates", whose first row is for people (labels) and whose second row names each
 * column by a path into the archival object (`title`, `dates/0/begin`, `note/scopecontent/1/content`).
 * The generator writes the columns from these definitions and the updater reads a sheet's second
 * row back into them, so the two cannot drift apart. Paths and their order are ArchivesSpace's, so
 * a sheet it made applies here and one made here applies there.
 */
import { enumerationLabel } from '../../validation/enumeration-labels';


export type ColumnKind = 'string' | 'date' | 'enum' | 'boolean';

/** The groups of columns a caller picks (selected_columns); id, lock_version and title are always there. */
export type Group = 'archival_object' | 'date' | 'extent' | 'instance' | 'digital_object' | 'language_and_script' | 'note_langmaterial' | 'note';

export interface Column {
  group: Group;
  /** The field the column edits (for notes: content, label, begin, end, local_access_restriction_type). */
  name: string;
  kind: ColumnKind;
  /** The value list of an enum column. */
  list?: string;
  /** Which of its kind (dates/0, dates/1...); undefined for the archival object's own fields. */
  index?: number;
  /** A note column's note type (scopecontent...). */
  noteType?: string;
  /** Shown grey and protected: the record's identity. */
  locked?: boolean;
  width?: number;
  /** The words of its label (the first row), without the "Date 1 - " part. */
  label: string;
}

interface ColumnDef {
  name: string;
  kind?: ColumnKind;
  list?: string;
  locked?: boolean;
  width?: number;
  label: string;
}

/** The archival object's own fields, in ArchivesSpace's order; `name` is also what selected_columns names. */
export const AO_FIELDS: ColumnDef[] = [
  { name: 'id', label: 'Id', locked: true },
  { name: 'lock_version', label: 'Version', locked: true },
  { name: 'title', label: 'Title', width: 30 },
  { name: 'level', kind: 'enum', list: 'archival_record_level', label: 'Level of Description', width: 15 },
  { name: 'ref_id', label: 'Ref ID', locked: true, width: 15 },
  { name: 'component_id', label: 'Component Unique Identifier', width: 15 },
  { name: 'repository_processing_note', label: 'Repository Processing Note', width: 30 },
  { name: 'publish', kind: 'boolean', label: 'Publish' },
];

/** The fields always in the sheet, whatever is selected. */
export const ALWAYS = ['id', 'lock_version', 'title'];

/** Repeated groups: their path prefix (the archival object's property) and fields. */
export const SUBRECORD_GROUPS: Record<'date' | 'extent' | 'instance' | 'digital_object' | 'language_and_script' | 'note_langmaterial', { prefix: string; singular: string; fields: ColumnDef[] }> = {
  date: {
    prefix: 'dates', singular: 'Date', fields: [
      { name: 'label', kind: 'enum', list: 'date_label', label: 'Label' },
      { name: 'expression', label: 'Expression', width: 15 },
      { name: 'begin', kind: 'date', label: 'Begin', width: 10 },
      { name: 'end', kind: 'date', label: 'End', width: 10 },
      { name: 'certainty', kind: 'enum', list: 'date_certainty', label: 'Certainty' },
    ],
  },
  extent: {
    prefix: 'extents', singular: 'Extent', fields: [
      { name: 'portion', kind: 'enum', list: 'extent_portion', label: 'Portion', width: 15 },
      { name: 'number', label: 'Number', width: 15 },
      { name: 'extent_type', kind: 'enum', list: 'extent_extent_type', label: 'Type', width: 15 },
      { name: 'container_summary', label: 'Container Summary', width: 20 },
      { name: 'physical_details', label: 'Physical Details', width: 20 },
      { name: 'dimensions', label: 'Dimensions', width: 15 },
    ],
  },
  instance: {
    prefix: 'instances', singular: 'Instance', fields: [
      { name: 'instance_type', kind: 'enum', list: 'instance_instance_type', label: 'Type' },
      { name: 'top_container_type', kind: 'enum', list: 'container_type', label: 'Top Container Type' },
      { name: 'top_container_indicator', label: 'Top Container Indicator' },
      { name: 'top_container_barcode', label: 'Top Container Barcode' },
      { name: 'sub_container_type_2', kind: 'enum', list: 'container_type', label: 'Child Type' },
      { name: 'sub_container_indicator_2', label: 'Child Indicator' },
      { name: 'sub_container_barcode_2', label: 'Child Container Barcode' },
      { name: 'sub_container_type_3', kind: 'enum', list: 'container_type', label: 'Grandchild Type' },
      { name: 'sub_container_indicator_3', label: 'Grandchild Indicator' },
    ],
  },
  digital_object: {
    prefix: 'digital_object', singular: 'Digital Object', fields: [
      { name: 'digital_object_id', label: 'Identifier' },
      { name: 'digital_object_title', label: 'Title' },
      { name: 'digital_object_publish', kind: 'boolean', label: 'Publish?' },
      { name: 'file_version_file_uri', label: 'File URI' },
      { name: 'file_version_caption', label: 'File Caption' },
      { name: 'file_version_publish', kind: 'boolean', label: 'File Publish?' },
    ],
  },
  language_and_script: {
    prefix: 'language_and_script', singular: 'Language', fields: [
      { name: 'language', kind: 'enum', list: 'language_iso639_2', label: 'Language' },
      { name: 'script', kind: 'enum', list: 'script_iso15924', label: 'Script' },
    ],
  },
  note_langmaterial: { prefix: 'note_langmaterial', singular: 'Language Note', fields: [{ name: 'content', label: 'Content', width: 30 }] },
};

/** Note types the sheet edits, in ArchivesSpace's order, with the names its labels use. */
export const MULTIPART_NOTES: Record<string, string> = {
  accessrestrict: 'Conditions Governing Access', scopecontent: 'Scope and Contents', bioghist: 'Biographical / Historical',
  accruals: 'Accruals', dimensions: 'Dimensions', altformavail: 'Existence and Location of Copies', odd: 'General',
  phystech: 'Physical Characteristics and Technical Requirements', processinfo: 'Processing Information',
  relatedmaterial: 'Related Materials', separatedmaterial: 'Separated Materials',
};
export const SINGLEPART_NOTES: Record<string, string> = { abstract: 'Abstract', physdesc: 'Physical Description' };
export const NOTE_TYPES = [...Object.keys(MULTIPART_NOTES), ...Object.keys(SINGLEPART_NOTES)];

/** A note's columns beyond its content: every note's label, and an access note's restriction. */
function noteExtras(type: string): ColumnDef[] {
  const extras: ColumnDef[] = [{ name: 'label', label: 'Label' }];
  if (type === 'accessrestrict') {
    extras.push(
      { name: 'begin', kind: 'date', label: 'Begin', width: 10 },
      { name: 'end', kind: 'date', label: 'End', width: 10 },
      { name: 'local_access_restriction_type', kind: 'enum', list: 'restriction_type', label: 'Type', width: 15 },
    );
  }
  return extras;
}

/** How many of each repeated group the sheet has columns for. */
export type Counts = Partial<Record<Group | string, number>>;

const make = (group: Group, def: ColumnDef, index?: number, noteType?: string): Column =>
  ({ group, name: def.name, kind: def.kind ?? 'string', list: def.list, locked: def.locked, width: def.width, label: def.label, index, noteType });

/** Every column of a sheet, in ArchivesSpace's order: the archival object's, languages, dates, extents, instances, digital objects, notes. */
export function sheetColumns(selected: ReadonlySet<string>, counts: Counts): Column[] {
  const has = (g: string) => selected.has(g) || ALWAYS.includes(g);
  const out: Column[] = AO_FIELDS.filter((f) => has(f.name)).map((f) => make('archival_object', f));
  const repeat = (group: keyof typeof SUBRECORD_GROUPS) => {
    for (let i = 0; i < (counts[group] ?? 0); i++) for (const f of SUBRECORD_GROUPS[group].fields) out.push(make(group, f, i));
  };
  if (has('langmaterial')) {
    repeat('language_and_script');
    repeat('note_langmaterial');
  }
  for (const group of ['date', 'extent', 'instance', 'digital_object'] as const) if (has(group)) repeat(group);
  for (const type of NOTE_TYPES) {
    if (!has(`note_${type}`)) continue;
    for (let i = 0; i < (counts[type] ?? 0); i++) {
      out.push(make('note', { name: 'content', label: 'Content', width: 30 }, i, type));
      for (const extra of noteExtras(type)) out.push(make('note', extra, i, type));
    }
  }
  return out;
}

/** The column's path: the second row of the sheet. */
export function pathOf(c: Column): string {
  if (c.group === 'archival_object') return c.name;
  if (c.group === 'note') return `note/${c.noteType}/${c.index}/${c.name}`;
  return `${SUBRECORD_GROUPS[c.group].prefix}/${c.index}/${c.name}`;
}

/** The column's label: the first row of the sheet. */
export function labelOf(c: Column): string {
  if (c.group === 'archival_object') return c.label;
  const n = c.index! + 1;
  if (c.group === 'note') return `Note ${MULTIPART_NOTES[c.noteType!] ?? SINGLEPART_NOTES[c.noteType!]} - ${n} - ${c.label}`;
  if (c.group === 'note_langmaterial') return `Language Note - ${n} - Content`;
  return `${SUBRECORD_GROUPS[c.group].singular} ${n} - ${c.label}`;
}

/** The column a path names; undefined for a path that is not one of the updater's. */
export function columnForPath(path: string): Column | undefined {
  const note = /^note\/([a-z_]+)\/(\d+)\/([a-z_]+)$/.exec(path);
  if (note) {
    const [, type, index, field] = note;
    if (!NOTE_TYPES.includes(type)) return undefined;
    const def = field === 'content' ? { name: 'content', label: 'Content' } : noteExtras(type).find((d) => d.name === field);
    return def && make('note', def, Number(index), type);
  }
  const sub = /^([a-z_]+)\/(\d+)\/([a-z_0-9]+)$/.exec(path);
  if (sub) {
    const [, prefix, index, field] = sub;
    const entry = Object.entries(SUBRECORD_GROUPS).find(([, g]) => g.prefix === prefix);
    const def = entry?.[1].fields.find((f) => f.name === field);
    return entry && def && make(entry[0] as Group, def, Number(index));
  }
  const def = AO_FIELDS.find((f) => f.name === path);
  return def && make('archival_object', def);
}

/** A value list's value as the sheet shows it: "Label [value]", as ArchivesSpace writes it. */
export const enumCell = (list: string, value: string) => `${enumerationLabel(list, value) ?? value.split('_').map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w)).join(' ')} [${value}]`;
