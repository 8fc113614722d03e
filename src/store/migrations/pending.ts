import { onMysql } from '../dialect';
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

/** The listing index's columns as migration 007 made it. */
const LISTING_COLUMNS = ['type', 'repo_id', 'id', 'hidden', 'suppressed'];

/**
 * Migration 025: on SQLite the listing index holds `pending_job` too. Every listing keeps to the
 * visible records (`+pending_job IS NULL`, store/pending.ts), a column the listing index (007) did
 * not hold, so a page far down a listing, a count and all_ids read every record they passed over,
 * its JSON with it: at 100,000 accessions the rows of the page at offset 49,750 took 40 ms instead
 * of 3.7 and the count 86 ms instead of 7 (make bench's SQLite list page fell from 0.88 to 0.06 of
 * raw Knex). MySQL stores hold no pending records (the condition is `1 = 1` there): theirs stays.
 */
export const visibleListing: Migration[] = [{
  name: '025_listing_index_visible',
  async up(knex) {
    if (onMysql(knex)) return;
    await knex.schema.alterTable('records', (t) => {
      t.index([...LISTING_COLUMNS, 'pending_job'], 'records_listing_visible');
      t.dropIndex([], 'records_listing_index');
    });
  },
  async down(knex) {
    if (onMysql(knex)) return;
    await knex.schema.alterTable('records', (t) => {
      t.index(LISTING_COLUMNS, 'records_listing_index');
      t.dropIndex([], 'records_listing_visible');
    });
  },
}];
