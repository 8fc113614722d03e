import type { Knex } from 'knex';
import seed from '../store/seeds/enumerations.json';

export interface EnumerationList {
  editable: boolean;
  /** Values a record may use now: unsuppressed, in position order. */
  values: string[];
}

/** How often a process asks the store whether another process changed a list. */
const FRESHNESS_MS = 1000;

/** Current values of the editable value lists (enumerations.md), read from the store. */
export class EnumerationCatalog {
  private lists = new Map<string, EnumerationList>();
  private version = -1;
  private checkedAt = 0;

  static async load(knex: Knex): Promise<EnumerationCatalog> {
    const catalog = new EnumerationCatalog();
    await catalog.refresh(knex);
    return catalog;
  }

  async refresh(knex: Knex | Knex.Transaction): Promise<void> {
    const lists = new Map<string, EnumerationList>();
    const version = await currentVersion(knex);
    for (const row of await knex('enumerations').select('name', 'editable')) {
      lists.set(row.name, { editable: !!row.editable, values: [] });
    }
    const values = await knex('enumeration_values').where({ suppressed: false }).select('enum_name', 'value').orderBy(['enum_name', 'position']);
    for (const row of values) lists.get(row.enum_name)?.values.push(row.value);
    this.lists = lists;
    this.version = version;
    this.checkedAt = Date.now();
  }

  /**
   * Several app processes share one store: a list changed by another process is picked up here
   * at most a second later (one indexed single-row read per second, not per request).
   */
  async ensureFresh(knex: Knex): Promise<void> {
    if (Date.now() - this.checkedAt < FRESHNESS_MS) return;
    this.checkedAt = Date.now();
    if ((await currentVersion(knex)) !== this.version) await this.refresh(knex);
  }

  get(name: string): EnumerationList | undefined {
    return this.lists.get(name);
  }
}

async function currentVersion(knex: Knex | Knex.Transaction): Promise<number> {
  const row = await knex('enumeration_version').where({ id: 1 }).first('version');
  return Number(row?.version ?? 0);
}

/** Marks the lists as changed, for every process (see ensureFresh). */
export async function bumpEnumerationVersion(trx: Knex.Transaction): Promise<void> {
  await trx('enumeration_version').where({ id: 1 }).increment('version', 1);
}

export async function nextId(db: Knex | Knex.Transaction, table: 'enumerations' | 'enumeration_values'): Promise<number> {
  const row = await db(table).max({ m: 'id' }).first();
  return Number((row as any)?.m ?? 0) + 1;
}

/** Seeds the default lists (from the reference's fresh database) where they are missing. */
export async function seedEnumerations(knex: Knex): Promise<void> {
  const present = new Set((await knex('enumerations').select('name')).map((r: { name: string }) => r.name));
  const lists = seed as Record<string, { editable: boolean; values: string[]; readonly_values: string[]; default_value: string | null }>;
  const missing = Object.entries(lists).filter(([name]) => !present.has(name));
  if (!missing.length) return;
  await knex.transaction(async (trx) => {
    let enumId = await nextId(trx, 'enumerations');
    let valueId = await nextId(trx, 'enumeration_values');
    for (const [name, list] of missing) {
      await trx('enumerations').insert({ id: enumId++, name, editable: list.editable, default_value: list.default_value });
      const rows = list.values.map((value, position) => ({
        id: valueId++, enum_name: name, value, position, readonly: list.readonly_values.includes(value),
      }));
      for (let i = 0; i < rows.length; i += 200) await trx('enumeration_values').insert(rows.slice(i, i + 200));
    }
    await bumpEnumerationVersion(trx);
  });
}
