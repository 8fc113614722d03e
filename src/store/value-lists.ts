import type { Tx } from './database';
import type { Queryable } from './dialect';

/** The value lists (enumerations and their values) as the store keeps them (records/value-lists.ts serves them). */

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
