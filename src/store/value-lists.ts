import { type Database, type Handle, readsOf, sqlOf, type Tx } from './database';
import type { Queryable } from './dialect';
import { pendingWriteOf } from './pending';

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

/** The LIKE pattern of a record whose stored JSON holds `value` in `property`: a use of a list's value. */
export const valueUsePattern = (property: string, value: string): string => `%${JSON.stringify(property)}:${JSON.stringify(value)}%`;

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

/**
 * Inserts values, all in one statement. In a chunk of an import job (pending.ts) they are marked
 * as the job's: they are on their lists at once (the file's next records validate against them,
 * other clients may use them), and go again if the job does not publish (discardPendingValues).
 */
export async function insertValues(trx: Tx, rows: Array<{ id: number; enum_name: string; value: string; position: number }>): Promise<void> {
  const pending = pendingWriteOf(trx);
  await trx('enumeration_values').insert(pending ? rows.map((r) => ({ ...r, pending_job: pending.job })) : rows);
}

/**
 * Values of a list that a client asked for itself (an edit of the list that names them, a
 * record written outside the import): they stay, whatever becomes of the import that added them.
 */
export async function claimValues(trx: Tx, listName: string, values: string[]): Promise<void> {
  if (!values.length || pendingWriteOf(trx)) return;
  await trx('enumeration_values').where({ enum_name: listName }).whereIn('value', values).whereNotNull('pending_job').update({ pending_job: null });
}

/**
 * Takes the values a job added (insertValues in its chunks) off their lists again, once its
 * records are gone (pending.ts: discardPending), as a failed one-transaction import leaves none: a
 * value that a visible record uses is kept (someone else used it meanwhile), one that only another
 * running import's pending records use becomes that job's (it goes if that job fails too), and the
 * others are removed, the values after them moving up one place. The lists' version moves, so
 * every process reads them again. `propertiesOf` answers the properties a list feeds (a record
 * uses a value where its stored JSON holds `"property":"value"`). Answers how many went.
 */
export async function discardPendingValues(db: Database, job: number, propertiesOf: (list: string) => string[]): Promise<number> {
  if (!(await db.knex('enumeration_values').where('pending_job', job).first('id'))) return 0;
  // One transaction and one pass over the records for all of the job's values (a text search of
  // their JSON, some 0.25 s at 100,000 records), not one of each a value.
  return db.transaction(async (trx) => {
    const rows: Array<{ id: number; enum_name: string; value: string; position: number }> = await trx('enumeration_values')
      .where('pending_job', job).orderBy('position', 'desc').select('id', 'enum_name', 'value', 'position');
    const needles = rows.map((row) => propertiesOf(row.enum_name).map((property) => valueUsePattern(property, row.value)));
    const usedBy = await jobsUsing(trx, job, needles);
    let removed = 0;
    for (const [i, row] of rows.entries()) {
      const users = usedBy[i];
      if (users.length) {
        await trx('enumeration_values').where({ id: row.id }).update({ pending_job: users.includes(null) ? null : users[0] });
        continue;
      }
      await trx('enumeration_values').where({ id: row.id }).delete();
      await trx('enumeration_values').where({ enum_name: row.enum_name }).andWhere('position', '>', row.position).decrement('position', 1);
      removed++;
    }
    if (removed) await bumpEnumerationVersion(trx);
    return removed;
  });
}

/**
 * For each group of patterns, the jobs (null: none, a visible record) of the records other than
 * `job`'s pending ones whose JSON is like one of them: one pass over the records per 200 patterns,
 * answered as one row per job (a column per pattern), so memory does not grow with the records.
 */
async function jobsUsing(trx: Tx, job: number, groups: string[][]): Promise<Array<Array<number | null>>> {
  const flat = groups.flatMap((patterns, group) => patterns.map((pattern) => ({ pattern, group })));
  const answer: Array<Array<number | null>> = groups.map(() => []);
  for (let i = 0; i < flat.length; i += 200) {
    const part = flat.slice(i, i + 200);
    const rows: Array<Record<string, unknown>> = await trx('records')
      .select(trx.raw('pending_job AS job'), ...part.map((p, k) => trx.raw(`MAX(CASE WHEN json LIKE ? THEN 1 ELSE 0 END) AS u${k}`, [p.pattern])))
      .where((w) => { for (const p of part) w.orWhere('json', 'like', p.pattern); })
      .andWhere((w) => w.whereNull('pending_job').orWhereNot('pending_job', job))
      .groupBy('pending_job');
    for (const row of rows) {
      const user = row.job === null ? null : Number(row.job);
      part.forEach((p, k) => {
        if (Number(row[`u${k}`]) === 1 && !answer[p.group].includes(user)) answer[p.group].push(user);
      });
    }
  }
  return answer;
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
