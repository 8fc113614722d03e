import type { Migration } from './migration';

/** Migration 020: the kept versions of records (store/history.ts). Its own file, so other groups merge beside it. */
export const history: Migration[] = [
  {
    name: '020_record_history',
    async up(knex) {
      const onMysql = knex.client.config.client === 'mysql2';
      // A version is kept when a write replaces or deletes it: its JSON (deflated soon after), and who replaced
      // it, when, through which route or job. Keyed by type and id, which a record keeps when it
      // moves to another repository (its URI does not): its history goes with it.
      await knex.schema.createTable('record_history', (t) => {
        t.bigIncrements('hid').primary();
        t.string('type', 64).notNullable();
        t.integer('id').notNullable();
        t.integer('lock_version').notNullable();
        t.string('uri', 255).notNullable();
        // MySQL's BLOB stops at 64 KB; a large finding aid's top record is more.
        if (onMysql) t.specificType('json', 'longblob').notNullable();
        else t.binary('json').notNullable();
        // Written plain (the write's path pays no compression) and deflated by compactHistory.
        t.boolean('deflated').notNullable().defaultTo(false);
        t.bigInteger('replaced_ms').notNullable();
        t.string('replaced_by', 255).nullable();
        t.string('replaced_via', 255).nullable();
        t.string('replaced_how', 16).notNullable();
        // A deleted tree node's place: its parent's URI (null at the top) and its gapped position.
        t.string('parent_uri', 255).nullable();
        t.bigInteger('position').nullable();
        t.index(['type', 'id', 'lock_version']);
        t.index(['replaced_ms']);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('record_history');
    },
  },
];
