/**
 * The groups of template columns that become parts of a record (dates, extents, notes, languages,
 * file versions), read as ArchivesSpace's bulk importer reads them: a value list's value is found
 * by its value or its label ("Sub-Series" is subseries), booleans are 1, t or true, and a part that
 * is not valid is dropped from its row with the reason (the row is kept).
 */
import { ApiError } from '../../errors';
import { isPlainObject, type Obj } from '../../json';
import type { Services } from '../../records/context';
import { prepareRecord } from '../../validation';
import { enumerationLabel } from '../../validation/enumeration-labels';
import { SheetRow } from './sheet';

/** Value lists a sheet may add values to (ArchivesSpace adds to these two and refuses unknown values of the others). */
const GROWING_LISTS = new Set(['instance_instance_type', 'container_type']);

const squash = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

export const truthy = (v: string | undefined) => (v === undefined ? undefined : ['t', '1', 'true'].includes(v.trim().toLowerCase()));

export class ColumnReader {
  constructor(
    private readonly s: Services,
    /** Adds a value to an editable list (before the record that uses it is written); answers the stored value. */
    private readonly addValue: (list: string, raw: string) => string,
    readonly header: readonly string[],
  ) {
    this.columns = new Set(header);
  }

  private readonly columns: Set<string>;
  /** What each row asks of the header (its numbered groups, its columns of a kind), found once per sheet. */
  private readonly found = new Map<string, string[]>();
  /**
   * Each list's cells already matched to a value, kept while the catalogue's list is the same
   * array (a changed catalogue is a new one): the same few cells ("single", "Box", "creator") come
   * on every row, and the loose match squashes every value of the list.
   */
  private readonly matched = new Map<string, { values: readonly string[]; byCell: Map<string, string> }>();

  /** Whether the header has the column. */
  has(column: string): boolean {
    return this.columns.has(column);
  }

  /** The header's columns `test` accepts, `key` naming the test (asked once per sheet, not per row). */
  matching(key: string, test: (column: string) => boolean): string[] {
    let list = this.found.get(key);
    if (!list) this.found.set(key, (list = this.header.filter(test)));
    return list;
  }

  /** Numbered repeats of a group of columns in the header (SheetRow.suffixes), once per sheet. */
  suffixes(stem: RegExp): string[] {
    const key = `suffixes ${stem.source}`;
    let list = this.found.get(key);
    if (!list) this.found.set(key, (list = SheetRow.suffixes(this.header, stem)));
    return list;
  }

  /** A value list's value for a cell; undefined (with the reason dropped or failed on the row) when the list has none such. */
  listValue(row: SheetRow, column: string, list: string, raw: string, severity: 'dropped' | 'error' = 'dropped'): string | undefined {
    const known = this.s.enums.get(list);
    const values = known?.values ?? [];
    let memo = this.matched.get(list);
    if (memo?.values !== values) this.matched.set(list, (memo = { values, byCell: new Map() }));
    const hit = memo.byCell.get(raw);
    if (hit !== undefined) return hit;
    // As ArchivesSpace's importer: the value itself or the label its staff interface shows ("English" is eng), then either written loosely.
    const label = (v: string) => enumerationLabel(list, v) ?? v;
    const found = values.find((v) => v === raw) ?? values.find((v) => label(v) === raw)
      ?? values.find((v) => squash(v) === squash(raw)) ?? values.find((v) => squash(label(v)) === squash(raw));
    if (found) {
      memo.byCell.set(raw, found);
      return found;
    }
    if (GROWING_LISTS.has(list) && known?.editable) return this.addValue(list, raw);
    const shown = values.length > 40 ? `${values.slice(0, 40).join(', ')}…` : values.join(', ');
    const message = `'${raw}' is not a value of the list ${list} (${shown})`;
    if (severity === 'error') row.error(column, message);
    else row.dropped(column, message);
    return undefined;
  }

  /** A part checked as the record type it is (a date, an extent...); undefined, dropped with the reason, when it is not valid. */
  checked(row: SheetRow, column: string, typeName: string, part: Obj, what: string): Obj | undefined {
    try {
      return prepareRecord(this.s.registry, this.s.enums, typeName, part).record;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      row.dropped(column, `the ${what} is not valid (${errorText(err)}); it is left out`);
      return undefined;
    }
  }

  /** Dates: dates_label, begin, end, date_type, expression, date_certainty, date_era, date_calendar, unnumbered or _1, _2... */
  dates(row: SheetRow): Obj[] {
    const dates: Obj[] = [];
    for (const n of this.suffixes(/^begin(_\d+)?$/)) {
      const [begin, end, expression] = ['begin', 'end', 'expression'].map((c) => row.get(c + n));
      if (begin === undefined && end === undefined && expression === undefined) continue;
      const date: Obj = {};
      const type = this.listValue(row, `date_type${n}`, 'date_type', row.get(`date_type${n}`) ?? 'inclusive');
      const label = this.listValue(row, `dates_label${n}`, 'date_label', row.get(`dates_label${n}`) ?? 'creation');
      if (!type || !label) continue;
      Object.assign(date, { date_type: type, label });
      for (const [field, list] of [['certainty', 'date_certainty'], ['era', 'date_era'], ['calendar', 'date_calendar']]) {
        const column = `date_${field}${n}`;
        const raw = row.get(column);
        if (raw === undefined) continue;
        const v = this.listValue(row, column, list, raw);
        if (v) date[field] = v;
      }
      if (begin !== undefined) date.begin = begin;
      if (end !== undefined) date.end = end;
      if (expression !== undefined) date.expression = expression;
      const column = begin !== undefined ? `begin${n}` : `expression${n}`;
      const ok = this.checked(row, column, 'date', date, `date '${[begin, end, expression].filter(Boolean).join(' / ')}'`);
      if (ok) dates.push(ok);
    }
    return dates;
  }

  /** Extents: portion, number, extent_type, container_summary, physical_details, dimensions, unnumbered or _2... */
  extents(row: SheetRow): Obj[] {
    const extents: Obj[] = [];
    for (const n of this.suffixes(/^extent_type(_\d+)?$/)) {
      const number = row.get(`number${n}`);
      const rawType = row.get(`extent_type${n}`);
      if (number === undefined && rawType === undefined) continue;
      const portion = this.listValue(row, `portion${n}`, 'extent_portion', row.get(`portion${n}`) ?? 'whole');
      if (rawType === undefined) {
        row.dropped(`extent_type${n}`, 'an extent needs its type; the extent is left out');
        continue;
      }
      const type = this.listValue(row, `extent_type${n}`, 'extent_extent_type', rawType);
      if (!portion || !type) continue;
      const extent: Obj = { portion, extent_type: type };
      for (const f of ['number', 'container_summary', 'physical_details', 'dimensions']) {
        const v = row.get(f + n);
        if (v !== undefined) extent[f] = v;
      }
      const ok = this.checked(row, `number${n}`, 'extent', extent, 'extent');
      if (ok) extents.push(ok);
    }
    return extents;
  }

  /** Language of materials: l_lang, l_langscript, n_langmaterial, p_langmaterial, unnumbered or _2... */
  langs(row: SheetRow, publish: boolean | undefined): Obj[] {
    const langs: Obj[] = [];
    for (const n of this.suffixes(/^l_lang(_\d+)?$/)) {
      const [lang, script, note] = ['l_lang', 'l_langscript', 'n_langmaterial'].map((c) => row.get(c + n));
      if (lang !== undefined) {
        const language = this.listValue(row, `l_lang${n}`, 'language_iso639_2', lang);
        if (language) {
          const ls: Obj = { language };
          const sc = script === undefined ? undefined : this.listValue(row, `l_langscript${n}`, 'script_iso15924', script);
          if (sc) ls.script = sc;
          langs.push({ jsonmodel_type: 'lang_material', language_and_script: ls });
        }
      }
      if (note !== undefined && this.wellFormed(row, `n_langmaterial${n}`, note)) {
        const p = truthy(row.get(`p_langmaterial${n}`)) ?? publish;
        langs.push({ jsonmodel_type: 'lang_material', notes: [{ jsonmodel_type: 'note_langmaterial', type: 'langmaterial', content: [note], ...(p === undefined ? {} : { publish: p }) }] });
      }
    }
    return langs;
  }

  /**
   * Archival object notes: n_<type> the content, p_<type> publish (else the record's), l_<type> the
   * label; b_/e_ the begin and end of an access or use restriction, t_accessrestrict_N its local types.
   */
  notes(row: SheetRow, publish: boolean | undefined): Obj[] {
    const notes: Obj[] = [];
    const single = this.s.enums.get('note_singlepart_type')?.values ?? [];
    const multi = this.s.enums.get('note_multipart_type')?.values ?? [];
    for (const column of this.matching('notes', (h) => h.startsWith('n_') && h !== 'n_langmaterial' && !/^n_langmaterial_\d+$/.test(h))) {
      const content = row.get(column);
      if (content === undefined) continue;
      const type = column.slice(2);
      if (!this.wellFormed(row, column, content)) continue;
      const p = truthy(row.get(`p_${type}`)) ?? publish;
      const label = row.get(`l_${type}`);
      const common: Obj = { ...(label ? { label } : {}), ...(p === undefined ? {} : { publish: p }) };
      if (type === 'bibliography') notes.push({ jsonmodel_type: 'note_bibliography', ...common, content: [content] });
      else if (single.includes(type)) notes.push({ jsonmodel_type: 'note_singlepart', type, ...common, content: [content] });
      else if (multi.includes(type)) {
        const note: Obj = { jsonmodel_type: 'note_multipart', type, ...common, subnotes: [{ jsonmodel_type: 'note_text', content, ...(p === undefined ? {} : { publish: p }) }] };
        const restriction = this.restriction(row, type);
        if (restriction) note.rights_restriction = restriction;
        notes.push(note);
      } else row.dropped(column, `'${type}' is not a note type of an archival object; the note is left out`);
    }
    return notes;
  }

  private restriction(row: SheetRow, type: string): Obj | undefined {
    if (type !== 'accessrestrict' && type !== 'userestrict') return undefined;
    const r: Obj = {};
    const local = (type === 'accessrestrict' ? this.matching('local restriction types', (h) => /^t_accessrestrict(_\d+)?$/.test(h)) : [])
      .map((h) => row.get(h) && this.listValue(row, h, 'restriction_type', row.get(h)!)).filter(Boolean);
    if (local.length) r.local_access_restriction_type = local;
    if (row.get(`b_${type}`)) r.begin = row.get(`b_${type}`);
    if (row.get(`e_${type}`)) r.end = row.get(`e_${type}`);
    return Object.keys(r).length ? r : undefined;
  }

  /** A file version from the rep_ (representative) or nonrep_ columns. */
  fileVersion(row: SheetRow, prefix: 'rep' | 'nonrep'): Obj | undefined {
    const uri = row.get(`${prefix}_file_uri`);
    if (!uri) return undefined;
    const get = (f: string) => row.get(`${prefix}_${f}`);
    const fv: Obj = { jsonmodel_type: 'file_version', file_uri: uri, is_representative: prefix === 'rep', publish: prefix === 'rep' ? true : truthy(get('publish')) ?? false };
    for (const [field, column] of [['xlink_actuate_attribute', 'xlink_actuate_attribute'], ['xlink_show_attribute', 'xlink_show_attribute'], ['file_format_version', 'file_format_version'],
      ['checksum', 'checksum'], ['caption', 'caption']]) {
      if (get(column) !== undefined) fv[field] = get(column);
    }
    for (const [field, column, list] of [['file_format_name', 'file_format', 'file_version_file_format_name'], ['use_statement', 'use_statement', 'file_version_use_statement'],
      ['checksum_method', 'checksum_method', 'file_version_checksum_methods']]) {
      const raw = get(column);
      if (raw === undefined) continue;
      const v = this.listValue(row, `${prefix}_${column}`, list, raw);
      if (v) fv[field] = v;
    }
    const size = get('file_size');
    if (size !== undefined) {
      if (/^\d+$/.test(size)) fv.file_size_bytes = Number(size);
      else row.dropped(`${prefix}_file_size`, `'${size}' is not a whole number of bytes; it is left out`);
    }
    return this.checked(row, `${prefix}_file_uri`, 'file_version', fv, 'file version');
  }

  /** Markup in a note must be well formed (a tag closed in order), as ArchivesSpace checks. */
  wellFormed(row: SheetRow, column: string, text: string): boolean {
    const open: string[] = [];
    for (const m of text.matchAll(/<(\/?)([a-zA-Z][\w:-]*)[^>]*?(\/?)>/g)) {
      if (m[3]) continue;
      if (!m[1]) open.push(m[2]);
      else if (open.pop() !== m[2]) {
        row.dropped(column, `the markup is not well formed (</${m[2]}> does not close the open tag); the note is left out`);
        return false;
      }
    }
    if (open.length) row.dropped(column, `the markup is not well formed (<${open[open.length - 1]}> is not closed); the note is left out`);
    return !open.length;
  }
}

/** An API refusal in a line: its fields and what is wrong with them. */
export function errorText(err: ApiError): string {
  const e = err.body.error;
  if (typeof e === 'string') return e;
  if (!isPlainObject(e)) return err.message;
  return Object.entries(e).slice(0, 3).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`).join('; ');
}
