import { type Handle, readsOf, sqlOf, type Tx } from './database';
import type { Queryable } from './dialect';

/**
 * The value lists (enumerations and their values) as the store keeps them (records/value-lists.ts
 * serves them), and the version that tells every process one changed.
 */

export interface ListRow {
  id: number;
  name: string;
  editable: boolean | number;
  default_value: string | null;
  lock_version: number;
}

export interface ValueRow {
  id: number;
  enum_name: string;
  value: string;
  position: number;
  suppressed: boolean | number;
  readonly: boolean | number;
}

/** Every list, in id order. */
export function listRows(db: Queryable): Promise<ListRow[]> {
  return db('enumerations').orderBy('id');
}

export function listRowById(db: Queryable, id: number): Promise<ListRow | undefined> {
  return db('enumerations').where({ id }).first();
}

export function listRowByName(db: Queryable, name: string): Promise<ListRow | undefined> {
  return db('enumerations').where({ name }).first();
}

/** A list's values, in order. */
export function valuesOf(db: Queryable, listName: string): Promise<ValueRow[]> {
  return db('enumeration_values').where({ enum_name: listName }).orderBy('position');
}

export function valueRowById(db: Queryable, id: number): Promise<ValueRow | undefined> {
  return db('enumeration_values').where({ id }).first();
}

/** The value of a list with text `value`. */
export function valueNamed(db: Queryable, listName: string, value: string): Promise<ValueRow | undefined> {
  return db('enumeration_values').where({ enum_name: listName, value }).first();
}

/** The value of a list at `position`. */
export function valueAt(db: Queryable, listName: string, position: number): Promise<{ id: number } | undefined> {
  return db('enumeration_values').where({ enum_name: listName, position }).first('id');
}

/** The highest position in a list (-1 when it has no values). */
export async function lastPosition(db: Queryable, listName: string): Promise<number> {
  const last = await db('enumeration_values').where({ enum_name: listName }).max({ p: 'position' }).first();
  return Number((last as { p: number | null } | undefined)?.p ?? -1);
}

/** Whether any record's stored JSON holds `pattern` (a LIKE pattern). */
export async function anyRecordLike(db: Queryable, pattern: string): Promise<boolean> {
  return !!(await db('records').where('json', 'like', pattern).first('rid'));
}

/** The records whose stored JSON holds `pattern` (a LIKE pattern). */
export function recordsLike(trx: Tx, pattern: string): Promise<Array<{ rid: number; type: string; uri: string; json: string }>> {
  return trx('records').where('json', 'like', pattern).select('rid', 'type', 'uri', 'json');
}

export async function insertList(trx: Tx, row: { id: number; name: string; editable: boolean; default_value: string | null }): Promise<void> {
  await trx('enumerations').insert(row);
}

export async function updateList(trx: Tx, id: number, fields: { lock_version: number; default_value: string | null }): Promise<void> {
  await trx('enumerations').where({ id }).update(fields);
}

/** Inserts values, all in one statement. */
export async function insertValues(trx: Tx, rows: Array<{ id: number; enum_name: string; value: string; position: number }>): Promise<void> {
  await trx('enumeration_values').insert(rows);
}

export async function deleteValue(trx: Tx, id: number): Promise<void> {
  await trx('enumeration_values').where({ id }).delete();
}

export async function setValuePosition(trx: Tx, listName: string, value: string, position: number): Promise<void> {
  await trx('enumeration_values').where({ enum_name: listName, value }).update({ position });
}

export async function setValuePositionById(trx: Tx, id: number, position: number): Promise<void> {
  await trx('enumeration_values').where({ id }).update({ position });
}

/** Sets a value's suppressed flag; answers the number of rows changed. */
export function setValueSuppressedFlag(trx: Tx, id: number, suppressed: boolean): Promise<number> {
  return trx('enumeration_values').where({ id }).update({ suppressed });
}

/** The unsuppressed values of every list, by list name and position, with the list's name. */
export function visibleValuesByList(db: Queryable): Promise<Array<{ name: string; value: string; position: number; readonly: boolean | number }>> {
  return db('enumeration_values as v').join('enumerations as e', 'e.name', 'v.enum_name')
    .where('v.suppressed', false).orderBy(['e.name', 'v.position']).select('e.name', 'v.value', 'v.position', 'v.readonly');
}

/** The lists' version: moved by every change to a list or its values. */
export async function enumerationVersion(h: Handle): Promise<number> {
  const row = await readsOf(h)('enumeration_version').where({ id: 1 }).first('version');
  return Number(row?.version ?? 0);
}

/** Marks the lists as changed, for every process. */
export async function bumpEnumerationVersion(h: Handle): Promise<void> {
  await sqlOf(h)('enumeration_version').where({ id: 1 }).increment('version', 1);
}

/** The next id of a list or of a value. */
export async function nextEnumerationId(h: Handle, table: 'enumerations' | 'enumeration_values'): Promise<number> {
  const row = await sqlOf(h)(table).max({ m: 'id' }).first();
  return Number((row as { m?: unknown } | undefined)?.m ?? 0) + 1;
}

/** Every list's name and whether it is editable. */
export async function enumerationLists(h: Handle): Promise<Array<{ name: string; editable: unknown }>> {
  return readsOf(h)('enumerations').select('name', 'editable');
}

/** The values records may use now (unsuppressed), by list, in position order. */
export async function usableEnumerationValues(h: Handle): Promise<Array<{ enum_name: string; value: string }>> {
  return readsOf(h)('enumeration_values').where({ suppressed: false }).select('enum_name', 'value').orderBy(['enum_name', 'position']);
}

export interface NewList {
  name: string;
  editable: boolean;
  default_value: string | null;
  values: string[];
  readonly_values: string[];
}

/** Adds lists with their values (positions in the order given), in a transaction of its own that moves the version. */
export async function insertLists(h: Handle, lists: NewList[]): Promise<void> {
  await sqlOf(h).transaction(async (trx: Tx) => {
    let enumId = await nextEnumerationId(trx, 'enumerations');
    let valueId = await nextEnumerationId(trx, 'enumeration_values');
    for (const list of lists) {
      await trx('enumerations').insert({ id: enumId++, name: list.name, editable: list.editable, default_value: list.default_value });
      const rows = list.values.map((value, position) => ({
        id: valueId++, enum_name: list.name, value, position, readonly: list.readonly_values.includes(value),
      }));
      for (let i = 0; i < rows.length; i += 200) await trx('enumeration_values').insert(rows.slice(i, i + 200));
    }
    await bumpEnumerationVersion(trx);
  });
}
