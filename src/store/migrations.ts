import type { Knex } from 'knex';
import type { Migration } from './migrations/migration';
import { genericStore } from './migrations/generic-store';
import { services } from './migrations/services';
import { linksAndTrees } from './migrations/links-and-trees';
import { history } from './migrations/history';
import { webhooks } from './migrations/webhooks';
import { pendingRecords, pendingValues, visibleListing } from './migrations/pending';
import { primaryKeys } from './migrations/primary-keys';
import { isRetryable } from './store-errors';

/** Every migration, in the order they run (migrations/: one file per group). */
const migrations: Migration[] = [...genericStore, ...services, ...linksAndTrees, ...history, ...webhooks, ...pendingRecords, ...primaryKeys, ...pendingValues, ...visibleListing];

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

/**
 * Runs the migrations not yet applied. Processes that start together (one per node of a Galera
 * cluster, say) race for Knex's migration lock: the loser sees the lock taken, or on Galera loses
 * certification (a deadlock error) or has its read aborted by the winner's schema change; it
 * tries again until the winner is done, then finds nothing left to apply.
 */
export async function migrate(knex: Knex): Promise<string[]> {
  const until = Date.now() + 120_000;
  for (let attempt = 1; ; attempt++) {
    try {
      await assertNotNewer(knex);
      const [, applied] = await knex.migrate.latest({ migrationSource: source });
      return applied as string[];
    } catch (err) {
      const locked = (err as Error)?.name === 'MigrationLocked';
      if (!(locked || isRetryable(err)) || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200 * Math.min(attempt, 5)));
    }
  }
}
