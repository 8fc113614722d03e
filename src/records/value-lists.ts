import { RecordQueries } from '../store/records';
import type { Tx } from '../store/database';
import type { Queryable as Db } from '../store/dialect';
import {
  anyRecordLike, claimValues, deleteValue, discardPendingValues, insertList, insertValues, lastPosition, listRowById, listRowByName, listRows, recordsLike, valueUsePattern,
  setValuePosition, setValuePositionById, setValueSuppressedFlag, updateList, valueAt, valueNamed, valueRowById, valuesOf,
  visibleValuesByList,
} from '../store/value-lists';
import { errors } from '../errors';
import type { PropInfo, Registry } from '../registry';
import { bumpEnumerationVersion, nextId } from '../validation/enumerations';
import type { Obj } from '../json';
import type { Services } from './context';
import { writeTransaction } from './context';

const notFound = () => errors.notFound('Enumeration');

/** Where each list is used: "type.property" pairs, for `relationships` and the in-use check. */
export function enumUsage(registry: Registry): Map<string, Array<{ type: string; property: string }>> {
  const usage = new Map<string, Array<{ type: string; property: string }>>();
  const visit = (type: string, props: Record<string, PropInfo>) => {
    for (const [property, info] of Object.entries(props)) {
      if (info.enumName) usage.set(info.enumName, [...(usage.get(info.enumName) ?? []), { type, property }]);
      if (info.props) visit(type, info.props);
    }
  };
  for (const type of Object.values(registry.types)) visit(type.name, type.props);
  return usage;
}

async function recordOf(s: Services, db: Db, row: Obj): Promise<Obj> {
  const values: Obj[] = await valuesOf(db, row.name);
  const record: Obj = {
    lock_version: Number(row.lock_version),
    jsonmodel_type: 'enumeration',
    name: row.name,
    editable: !!row.editable,
    relationships: (enumUsage(s.registry).get(row.name) ?? []).map((u) => `${u.type}_${u.property}`),
    enumeration_values: values.map(valueRecord),
    values: values.filter((v: Obj) => !v.suppressed).map((v: Obj) => v.value),
    readonly_values: values.filter((v: Obj) => v.readonly).map((v: Obj) => v.value),
    uri: `/config/enumerations/${row.id}`,
  };
  if (row.default_value) record.default_value = row.default_value;
  return record;
}

function valueRecord(v: Obj): Obj {
  return {
    jsonmodel_type: 'enumeration_value', value: v.value, position: Number(v.position), suppressed: !!v.suppressed,
    readonly: !!v.readonly, uri: `/config/enumeration_values/${v.id}`,
  };
}

async function rowById(db: Db, id: number) {
  const row = await listRowById(db, id);
  if (!row) throw notFound();
  return row;
}

export async function listEnumerations(s: Services): Promise<Obj[]> {
  const rows = await listRows(s.db.reads);
  return Promise.all(rows.map((row) => recordOf(s, s.db.reads, row)));
}

export async function getEnumeration(s: Services, id: number): Promise<Obj> {
  return recordOf(s, s.db.reads, await rowById(s.db.reads, id));
}

export async function getEnumerationByName(s: Services, name: string): Promise<Obj> {
  const row = await listRowByName(s.db.reads, name);
  if (!row) throw notFound();
  return recordOf(s, s.db.reads, row);
}

export async function getEnumerationValue(s: Services, id: number): Promise<Obj> {
  const row = await valueRowById(s.db.reads, id);
  if (!row) throw errors.notFound('EnumerationValue');
  return valueRecord(row);
}

/** Records that use `value` in a property fed by the list (a text search of the stored JSON). */
async function valueInUse(s: Services, db: Db, listName: string, value: string): Promise<boolean> {
  for (const property of propertiesFedBy(s, listName)) {
    if (await anyRecordLike(db, valueUsePattern(property, value))) return true;
  }
  return false;
}

/** The record properties whose values come from list `listName`. */
const propertiesFedBy = (s: Services, listName: string): string[] => [...new Set((enumUsage(s.registry).get(listName) ?? []).map((u) => u.property))];


export async function createEnumeration(s: Services, body: Obj) {
  const result = await writeTransaction(s, async (trx) => {
    if (await listRowByName(trx, body.name)) {
      throw errors.notUnique('name');
    }
    const id = await nextId(trx, 'enumerations');
    await insertList(trx, { id, name: body.name, editable: true, default_value: body.default_value ?? null });
    let valueId = await nextId(trx, 'enumeration_values');
    const values: string[] = [...new Set<string>(body.values ?? [])];
    if (values.length) {
      await insertValues(trx, values.map((value, position) => ({ id: valueId++, enum_name: body.name, value, position })));
    }
    await bumpEnumerationVersion(trx);
    return { status: 'Created', id, lock_version: 0, stale: null, uri: `/config/enumerations/${id}`, warnings: [] };
  });
  await s.enums.refresh(s.db.reads);
  return result;
}

/**
 * Values missing from `values` are removed (refused when read-only, on a protected list, or in
 * use), new ones appended; positions are renumbered 0..n-1.
 */
export async function updateEnumeration(s: Services, id: number, body: Obj) {
  const result = await writeTransaction(s, async (trx) => {
    const row = await rowById(trx, id);
    const lock = body.lock_version;
    if (lock === undefined) throw errors.missingLockVersion();
    if (Number(lock) !== Number(row.lock_version)) throw errors.staleLockVersion();
    const current: Obj[] = await valuesOf(trx, row.name);
    const wanted: string[] = [...new Set<string>(body.values ?? [])];
    const removed = current.filter((v: Obj) => !wanted.includes(v.value) && !v.suppressed);
    const added = wanted.filter((v) => !current.some((c: Obj) => c.value === v));
    if ((removed.length || added.length) && !row.editable) throw errors.accessDenied();
    // A value an unfinished import added that the client names is the client's now: it stays if the import fails.
    await claimValues(trx, row.name, wanted);
    for (const v of removed) {
      if (v.readonly) throw errors.accessDenied();
      if (await valueInUse(s, trx, row.name, v.value)) throw errors.enumerationValueInUse(v.value);
      await deleteValue(trx, v.id);
    }
    let valueId = await nextId(trx, 'enumeration_values');
    for (const value of added) await insertValues(trx, [{ id: valueId++, enum_name: row.name, value, position: 0 }]);
    const ordered = [...wanted, ...current.filter((v: Obj) => v.suppressed && !wanted.includes(v.value)).map((v: Obj) => v.value)];
    for (const [position, value] of ordered.entries()) {
      await setValuePosition(trx, row.name, value, position);
    }
    await updateList(trx, id, { lock_version: Number(row.lock_version) + 1, default_value: body.default_value ?? null });
    await bumpEnumerationVersion(trx);
    return { status: 'Updated', id, lock_version: Number(row.lock_version) + 1, stale: null, uri: `/config/enumerations/${id}`, warnings: [] };
  });
  await s.enums.refresh(s.db.reads);
  return result;
}

export async function setValueSuppressed(s: Services, id: number, suppressed: boolean) {
  const count = await writeTransaction(s, async (trx) => {
    const n = await setValueSuppressedFlag(trx, id, suppressed);
    if (!n) throw errors.notFound('EnumerationValue');
    await bumpEnumerationVersion(trx);
    return n;
  });
  await s.enums.refresh(s.db.reads);
  // The reference reports the number of rows changed here, not a boolean.
  return { status: 'Suppressed', id, suppressed_state: count };
}

/**
 * POST /config/enumeration_values/:id with an enumeration_value: its position and suppressed flag.
 * The text of a value does not change here (records hold it): a new value and a migration do that.
 */
export async function updateEnumerationValue(s: Services, id: number, body: Obj) {
  const current = await valueRowById(s.db.reads, id);
  if (!current) throw errors.notFound('EnumerationValue');
  if (body.value !== current.value) {
    throw errors.invalidParam('value', `a value's text cannot change (it is "${current.value}"); add the new value to its list and move records to it with POST /config/enumerations/migration`);
  }
  if (body.suppressed !== undefined && !!body.suppressed !== !!current.suppressed) await setValueSuppressed(s, id, !!body.suppressed);
  if (body.position !== undefined && Number(body.position) !== Number(current.position)) await moveValue(s, id, Number(body.position));
  return { status: 'Updated', id, lock_version: 0, stale: null, uri: `/config/enumeration_values/${id}`, warnings: [] };
}

export async function moveValue(s: Services, id: number, position: number) {
  await writeTransaction(s, async (trx) => {
    const value = await valueRowById(trx, id);
    if (!value) throw errors.notFound('EnumerationValue');
    const holder = await valueAt(trx, value.enum_name, position);
    if (holder) await setValuePositionById(trx, holder.id, value.position);
    await setValuePositionById(trx, id, position);
    await bumpEnumerationVersion(trx);
  });
  await s.enums.refresh(s.db.reads);
  return { status: 'Updated', id, lock_version: 0, stale: null };
}

/** Switches every record using `from` to `to`, then deletes `from` (enumeration_migration). */
export async function migrateValue(s: Services, enumUri: string, from: string, to: string) {
  const id = Number(/^\/config\/enumerations\/(\d+)$/.exec(enumUri)?.[1]);
  if (!Number.isInteger(id)) throw errors.notAUri('enum_uri', 'an enumeration', enumUri);
  await writeTransaction(s, async (trx) => {
    const row = await rowById(trx, id);
    if (!row.editable) throw errors.enumerationNotEditable(id);
    const source = await valueNamed(trx, row.name, from);
    if (!source) throw errors.enumerationValueMissing(from, id);
    if (source.readonly) throw errors.readOnlyEnumerationValue();
    if (!(await valueNamed(trx, row.name, to))) {
      throw errors.enumerationValueMissing(to, id);
    }
    for (const property of new Set((enumUsage(s.registry).get(row.name) ?? []).map((u) => u.property))) {
      const needle = `${JSON.stringify(property)}:${JSON.stringify(from)}`;
      const rows = await recordsLike(trx, `%${needle}%`);
      for (const r of rows) {
        await new RecordQueries(trx).overwrite(r.rid, { json: r.json.split(needle).join(`${JSON.stringify(property)}:${JSON.stringify(to)}`), system_mtime_ms: Date.now() });
        await new RecordQueries(trx).appendChange(r.type, r.uri, 'upsert', Date.now());
      }
    }
    await deleteValue(trx, source.id);
    await bumpEnumerationVersion(trx);
  });
  await s.enums.refresh(s.db.reads);
  return getEnumeration(s, id);
}

/** GET /config/enumerations/csv */
export async function enumerationsCsv(s: Services): Promise<string> {
  const rows = await visibleValuesByList(s.db.reads);
  const cell = (v: unknown) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  const lines = rows.map((r) => [r.name, r.name, r.value, r.value, r.position, r.readonly ? 'true' : 'false'].map(cell).join(','));
  return ['Enumeration code,Enumeration,Value code,Value,Position,Read-only', ...lines].join('\n') + '\n';
}

/**
 * Adds values an import needs to editable value lists, inside the import's transaction (as the
 * original's importers extend dynamic value lists). Values of a list that is not editable, or
 * not a list at all, are refused. The catalogue is reread in the transaction so the records
 * written next validate against the new values.
 */
export async function addEnumerationValues(trx: Tx, s: Services, wanted: Map<string, Set<string>>): Promise<string[]> {
  const added: string[] = [];
  // A value the store holds and the catalogue does not was added by another process since the
  // catalogue was read (it catches up within a second, but not in the middle of an import): the
  // catalogue is read again so that the record about to be validated finds it.
  let stale = false;
  for (const [name, values] of wanted) {
    const list = s.enums.get(name);
    const missing = [...values].filter((v) => !list?.values.includes(v));
    if (!missing.length) continue;
    const row = await listRowByName(trx, name);
    if (!row || !row.editable) continue;
    let position = (await lastPosition(trx, name)) + 1;
    let valueId = await nextId(trx, 'enumeration_values');
    for (const value of missing) {
      if (await valueNamed(trx, name, value)) {
        stale = true;
        // Outside an import's chunks, a record is about to use it: it stays if the import that added it fails.
        await claimValues(trx, name, [value]);
        continue;
      }
      await insertValues(trx, [{ id: valueId++, enum_name: name, value, position: position++ }]);
      added.push(`${name}: ${value}`);
    }
  }
  if (added.length) await bumpEnumerationVersion(trx);
  if (added.length || stale) await s.enums.refresh(trx);
  return added;
}

/**
 * Takes the values a failed, canceled or dead import job added to value lists in its chunks off
 * them again, but those something else uses (store/value-lists.ts: discardPendingValues), and
 * reads the catalogue again. Called once the job's pending records are gone.
 */
export async function discardImportedValues(s: Services, job: number): Promise<number> {
  const removed = await discardPendingValues(s.db, job, (list) => propertiesFedBy(s, list));
  if (removed) await s.enums.refresh(s.db.knex);
  return removed;
}
