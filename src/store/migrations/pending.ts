import type { Migration } from './migration';

/**
 * Migration 022: records written by an import in chunks stay invisible until the import
 * publishes them (store/pending.ts): `pending_job` names the job while they are its own.
 */
export const pendingRecords: Migration[] = [
  {
    name: '022_pending_records',
    async up(knex) {
      await knex.schema.alterTable('records', (t) => {
        t.integer('pending_job').nullable();
        t.index(['pending_job'], 'records_pending_job');
      });
    },
    async down(knex) {
      await knex.schema.alterTable('records', (t) => {
        t.dropIndex(['pending_job'], 'records_pending_job');
        t.dropColumn('pending_job');
      });
    },
  },
];

/**
 * Migration 024: values an import in chunks adds to editable value lists are committed with the
 * chunk that needs them; `pending_job` names the job until it publishes, so that a failed,
 * canceled or dead job's values can be taken off their lists again (value-lists.ts).
 */
export const pendingValues: Migration[] = [
  {
    name: '024_pending_values',
    async up(knex) {
      await knex.schema.alterTable('enumeration_values', (t) => {
        t.integer('pending_job').nullable();
        t.index(['pending_job'], 'enumeration_values_pending_job');
      });
    },
    async down(knex) {
      await knex.schema.alterTable('enumeration_values', (t) => {
        t.dropIndex(['pending_job'], 'enumeration_values_pending_job');
        t.dropColumn('pending_job');
      });
    },
  },
];
