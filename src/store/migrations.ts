import type { Knex } from 'knex';
import type { Migration } from './migrations/migration';
import { genericStore } from './migrations/generic-store';
import { services } from './migrations/services';
import { linksAndTrees } from './migrations/links-and-trees';
import { history } from './migrations/history';
import { webhooks } from './migrations/webhooks';

/** Every migration, in the order they run (migrations/: one file per group). */
const migrations: Migration[] = [...genericStore, ...services, ...linksAndTrees, ...history, ...webhooks];

/** Every migration's name, in order: what a fully migrated store has applied. */
export const migrationNames = migrations.map((m) => m.name);

const source: Knex.MigrationSource<Migration> = {
  getMigrations: async () => migrations,
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m,
};

/**
 * Refuses a store that a newer version of the program has migrated: this one does not know its
 * tables. (Knex would call it "a corrupt migration directory".)
 */
export async function assertNotNewer(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('knex_migrations'))) return;
  const done: string[] = await knex('knex_migrations').pluck('name');
  const unknown = done.filter((name) => !migrationNames.includes(name));
  if (unknown.length) {
    throw new Error(`this store was migrated by a newer version of archive-records (migrations this version does not know: ${unknown.join(', ')}); run that version or a later one`);
  }
}

export async function migrate(knex: Knex): Promise<string[]> {
  await assertNotNewer(knex);
  const [, applied] = await knex.migrate.latest({ migrationSource: source });
  return applied as string[];
}
