import type { Knex } from 'knex';
import type { Migration } from './migration';

/**
 * The tables created without a primary key whose rows are facts that hold or not, the key each
 * gets (every column: a row written twice was one row), and the index the key makes redundant
 * (its first columns). Galera certifies a write by its rows' primary keys, and a node applies a
 * row event of a table without one by scanning for the row.
 */
export const KEYED_TABLES: ReadonlyArray<{ table: string; key: string[]; redundant: string[] }> = [
  { table: 'record_refs', key: ['from_rid', 'property', 'to_uri'], redundant: ['from_rid'] },
  { table: 'lookup_keys', key: ['type', 'param', 'repo_id', 'value_hash', 'rid'], redundant: ['type', 'param', 'repo_id', 'value_hash'] },
];

/**
 * Migration 023: primary keys for record_refs and lookup_keys (the whole row), and for job_records
 * an id in the order the rows were written (a job's records are listed in the order it noted
 * them, which only the tables' hidden row order kept).
 */
export const primaryKeys: Migration[] = [
  {
    name: '023_primary_keys',
    async up(knex) {
      for (const { table, key, redundant } of KEYED_TABLES) {
        await dropDuplicateRows(knex, table, key);
        // MySQL: ALTER TABLE ... ADD PRIMARY KEY; SQLite: Knex copies the table into one with the key.
        await knex.schema.alterTable(table, (t) => t.primary(key));
        await knex.schema.alterTable(table, (t) => t.dropIndex(redundant));
      }
      await copyJobRecords(knex, (t) => t.bigIncrements('id').primary());
    },
    async down(knex) {
      for (const { table, redundant } of KEYED_TABLES) {
        // The index first: on MySQL a foreign key's column (from_rid) must keep one.
        await knex.schema.alterTable(table, (t) => t.index(redundant));
        await knex.schema.alterTable(table, (t) => t.dropPrimary());
      }
      await copyJobRecords(knex, () => {});
    },
  },
];

/**
 * Leaves one row of each set of identical rows (of `columns`, every column of the table): a link
 * listed twice in a record (the same agent in two roles) was stored twice. Both stores: no row id
 * to tell copies apart on MySQL, so each set is deleted and written once again, 500 sets a turn.
 */
async function dropDuplicateRows(knex: Knex, table: string, columns: string[]): Promise<void> {
  for (;;) {
    const sets: Array<Record<string, unknown>> = await knex(table).select(columns).groupBy(columns).havingRaw('COUNT(*) > 1').limit(500);
    if (!sets.length) return;
    for (const row of sets) {
      await knex(table).where(row).delete();
      await knex(table).insert(row);
    }
  }
}

/**
 * job_records copied into a table of the same columns plus what `key` adds, in the order its rows
 * were written (SQLite's rowid; InnoDB reads a table without a key in its hidden row id's order).
 */
async function copyJobRecords(knex: Knex, key: (t: Knex.CreateTableBuilder) => void): Promise<void> {
  const sqlite = knex.client.config.client !== 'mysql2';
  await knex.schema.createTable('job_records_copy', (t) => {
    key(t);
    t.integer('job_id').notNullable();
    t.string('uri', 255).notNullable();
  });
  await knex.raw(`INSERT INTO job_records_copy (job_id, uri) SELECT job_id, uri FROM job_records${sqlite ? ' ORDER BY rowid' : ''}`);
  await knex.schema.dropTable('job_records');
  await knex.schema.renameTable('job_records_copy', 'job_records');
  await knex.schema.alterTable('job_records', (t) => t.index(['job_id']));
}
