import type { Knex } from 'knex';
import seed from '../store/seeds/enumerations.json';

export interface EnumerationList {
  editable: boolean;
  values: string[];
}

/** Current values of the editable value lists (enumerations.md), read from the store. */
export class EnumerationCatalog {
  private lists = new Map<string, EnumerationList>();

  static async load(knex: Knex): Promise<EnumerationCatalog> {
    const catalog = new EnumerationCatalog();
    await catalog.refresh(knex);
    return catalog;
  }

  async refresh(knex: Knex): Promise<void> {
    const lists = new Map<string, EnumerationList>();
    for (const row of await knex('enumerations').select('name', 'editable')) {
      lists.set(row.name, { editable: !!row.editable, values: [] });
    }
    for (const row of await knex('enumeration_values').select('enum_name', 'value').orderBy(['enum_name', 'position'])) {
      lists.get(row.enum_name)?.values.push(row.value);
    }
    this.lists = lists;
  }

  get(name: string): EnumerationList | undefined {
    return this.lists.get(name);
  }
}

/** Seeds the default lists (from the reference's fresh database) where they are missing. */
export async function seedEnumerations(knex: Knex): Promise<void> {
  const present = new Set((await knex('enumerations').select('name')).map((r: { name: string }) => r.name));
  const lists = seed as Record<string, { editable: boolean; values: string[]; readonly_values: string[] }>;
  for (const [name, list] of Object.entries(lists)) {
    if (present.has(name)) continue;
    await knex.transaction(async (trx) => {
      await trx('enumerations').insert({ name, editable: list.editable });
      if (list.values.length) {
        await trx('enumeration_values').insert(
          list.values.map((value, position) => ({ enum_name: name, value, position, readonly: list.readonly_values.includes(value) })),
        );
      }
    });
  }
}
