import type { Migration } from './migration';

/** A migration adding `pending_job` (the job whose pending row it is, null once published) and its index to `table`. */
function pendingJobColumn(name: string, table: string): Migration {
  const index = `${table}_pending_job`;
  return {
    name,
    async up(knex) {
      await knex.schema.alterTable(table, (t) => {
        t.integer('pending_job').nullable();
        t.index(['pending_job'], index);
      });
    },
    async down(knex) {
      await knex.schema.alterTable(table, (t) => {
        t.dropIndex(['pending_job'], index);
        t.dropColumn('pending_job');
      });
    },
  };
}

/**
 * Migration 022: records written by an import in chunks stay invisible until the import
 * publishes them (store/pending.ts): `pending_job` names the job while they are its own.
 */
export const pendingRecords: Migration[] = [pendingJobColumn('022_pending_records', 'records')];

/**
 * Migration 024: values an import in chunks adds to editable value lists are committed with the
 * chunk that needs them; `pending_job` names the job until it publishes, so that a failed,
 * canceled or dead job's values can be taken off their lists again (value-lists.ts).
 */
export const pendingValues: Migration[] = [pendingJobColumn('024_pending_values', 'enumeration_values')];
