/** The editable value lists (enumerations, their values) and the version that tells every process one changed. */
import { type Handle, sqlOf, type Tx } from './database';

/** The lists' version: moved by every change to a list or its values. */
export async function enumerationVersion(h: Handle): Promise<number> {
  const row = await sqlOf(h)('enumeration_version').where({ id: 1 }).first('version');
  return Number(row?.version ?? 0);
}

/** Marks the lists as changed, for every process. */
export async function bumpEnumerationVersion(h: Handle): Promise<void> {
  await sqlOf(h)('enumeration_version').where({ id: 1 }).increment('version', 1);
}

/** The next id of a list or of a value. */
export async function nextEnumerationId(h: Handle, table: 'enumerations' | 'enumeration_values'): Promise<number> {
  const row = await sqlOf(h)(table).max({ m: 'id' }).first();
  return Number((row as any)?.m ?? 0) + 1;
}

/** Every list's name and whether it is editable. */
export async function enumerationLists(h: Handle): Promise<Array<{ name: string; editable: unknown }>> {
  return sqlOf(h)('enumerations').select('name', 'editable');
}

/** The values records may use now (unsuppressed), by list, in position order. */
export async function usableEnumerationValues(h: Handle): Promise<Array<{ enum_name: string; value: string }>> {
  return sqlOf(h)('enumeration_values').where({ suppressed: false }).select('enum_name', 'value').orderBy(['enum_name', 'position']);
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
