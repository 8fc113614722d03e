import type { Knex } from 'knex';
import { recountChildren } from '../child-counts';
import { onMysql } from '../dialect';
import type { Migration } from './migration';

/** The indexes of `records`' tree columns (name, unique, columns), as 001 created them. */
const TREE_INDEXES: Array<[string, boolean, string[]]> = [
  ['records_parent_key_position_unique', true, ['parent_key', 'position']],
  ['records_parent_rid_index', false, ['parent_rid']],
  ['records_root_uri_index', false, ['root_uri']],
];

/** Recreates the tree columns' indexes on SQLite, over tree records only (`partial`) or every record. */
async function recreateTreeIndexes(knex: Knex, partial: boolean): Promise<void> {
  if (onMysql(knex)) return;
  for (const [name, unique, columns] of TREE_INDEXES) {
    await knex.raw(`DROP INDEX ${name}`);
    await knex.raw(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${name} ON records (${columns.join(', ')})${partial ? ` WHERE ${columns[0]} IS NOT NULL` : ''}`);
  }
}

/** Migrations 013 to 019: indexes of links and trees, child counts, key rule versions, system events. */
export const linksAndTrees: Migration[] = [
  {
    name: '013_links_to_in_order',
    async up(knex) {
      // The records linking one record, in rid order, read a few at a time (implied publication).
      await knex.schema.alterTable('record_refs', (t) => t.index(['to_uri', 'from_rid'], 'record_refs_to_from'));
    },
    async down(knex) {
      await knex.schema.alterTable('record_refs', (t) => t.dropIndex(['to_uri', 'from_rid'], 'record_refs_to_from'));
    },
  },
  {
    name: '014_tree_child_counts',
    async up(knex) {
      // Children per sibling group, kept by triggers on `records`: exact whatever writes a tree
      // (positions, moves, deletes, repository deletes, imports, import-from, merges), and
      // tree/root no longer counts 100,000 index entries on every call.
      await knex.schema.createTable('tree_child_counts', (t) => {
        t.string('parent_key', 255).primary();
        t.integer('n').notNullable();
      });
      await recountChildren(knex);
      const mysql = onMysql(knex);
      const add = (key: string) => mysql
        ? `INSERT INTO tree_child_counts (parent_key, n) VALUES (${key}, 1) ON DUPLICATE KEY UPDATE n = n + 1`
        : `INSERT INTO tree_child_counts (parent_key, n) VALUES (${key}, 1) ON CONFLICT (parent_key) DO UPDATE SET n = n + 1`;
      const remove = (key: string) => `UPDATE tree_child_counts SET n = n - 1 WHERE parent_key = ${key}`;
      if (mysql) {
        await knex.raw(`CREATE TRIGGER records_child_count_insert AFTER INSERT ON records FOR EACH ROW
          IF NEW.parent_key IS NOT NULL THEN ${add('NEW.parent_key')}; END IF`);
        await knex.raw(`CREATE TRIGGER records_child_count_delete AFTER DELETE ON records FOR EACH ROW
          IF OLD.parent_key IS NOT NULL THEN ${remove('OLD.parent_key')}; END IF`);
        await knex.raw(`CREATE TRIGGER records_child_count_update AFTER UPDATE ON records FOR EACH ROW
          IF NOT (OLD.parent_key <=> NEW.parent_key) THEN
            IF OLD.parent_key IS NOT NULL THEN ${remove('OLD.parent_key')}; END IF;
            IF NEW.parent_key IS NOT NULL THEN ${add('NEW.parent_key')}; END IF;
          END IF`);
      } else {
        await knex.raw(`CREATE TRIGGER records_child_count_insert AFTER INSERT ON records
          WHEN NEW.parent_key IS NOT NULL BEGIN ${add('NEW.parent_key')}; END`);
        await knex.raw(`CREATE TRIGGER records_child_count_delete AFTER DELETE ON records
          WHEN OLD.parent_key IS NOT NULL BEGIN ${remove('OLD.parent_key')}; END`);
        await knex.raw(`CREATE TRIGGER records_child_count_update AFTER UPDATE OF parent_key ON records
          WHEN OLD.parent_key IS NOT NEW.parent_key BEGIN
            ${remove('OLD.parent_key')};
            INSERT INTO tree_child_counts (parent_key, n) SELECT NEW.parent_key, 1 WHERE NEW.parent_key IS NOT NULL
              ON CONFLICT (parent_key) DO UPDATE SET n = n + 1;
          END`);
      }
    },
    async down(knex) {
      for (const t of ['insert', 'delete', 'update']) await knex.raw(`DROP TRIGGER IF EXISTS records_child_count_${t}`);
      await knex.schema.dropTableIfExists('tree_child_counts');
    },
  },
  {
    name: '015_one_index_on_link_targets',
    async up(knex) {
      // (to_uri, from_rid) answers every lookup by target the single-column index did: one B-tree
      // less to write per link saved.
      await knex.schema.alterTable('record_refs', (t) => t.dropIndex(['to_uri']));
    },
    async down(knex) {
      await knex.schema.alterTable('record_refs', (t) => t.index(['to_uri']));
    },
  },
  {
    name: '016_tree_indexes_of_tree_records_only',
    async up(knex) {
      // SQLite: the tree columns' indexes hold the records of trees only (partial indexes), so a
      // record outside any tree (an accession, a subject, an agent) writes three B-trees fewer.
      // Every query on them compares the column to a value, which implies IS NOT NULL, so the
      // planner still uses them. InnoDB has no partial indexes: MySQL keeps the full ones.
      await recreateTreeIndexes(knex, true);
    },
    async down(knex) {
      await recreateTreeIndexes(knex, false);
    },
  },
  {
    name: '017_link_checks_from_an_index',
    async up(knex) {
      // MySQL: whether a linking record shows (published, not suppressed, its type and repository)
      // is read from a narrow index instead of the record's row. Implied publication reads every
      // record linking an agent until one shows: 10,000 unpublished ones were 10,000 random reads
      // of 2 KB rows through InnoDB's buffer pool (0.75 s per agent at 100k accessions), and are
      // now one range of a 2 MB index (implied-publication.ts, connect.ts showingClause). SQLite
      // reads those rows from its page cache in microseconds and keeps one B-tree less per write.
      if (!onMysql(knex)) return;
      // The column is computed on every write (it is indexed): JSON MariaDB's parser refuses (text
      // with a lone UTF-16 surrogate escape, which JSON allows) must give NULL, not fail the write.
      // Such a record counts as unpublished here, as JSON_EXTRACT in a query made it before.
      await knex.raw("ALTER TABLE records ADD COLUMN published BOOLEAN AS (IF(JSON_VALID(json), JSON_EXTRACT(json, '$.publish') = true, NULL)) VIRTUAL");
      await knex.raw('CREATE INDEX records_shown ON records (rid, published, suppressed, type, repo_id)');
    },
    async down(knex) {
      if (!onMysql(knex)) return;
      await knex.raw('DROP INDEX records_shown ON records');
      await knex.raw('ALTER TABLE records DROP COLUMN published');
    },
  },
  {
    name: '018_key_rule_versions',
    async up(knex) {
      // Per record type, a digest of the unique rules and lookups its rows in unique_keys and
      // lookup_keys were derived with: a schema whose rules changed has its records' keys derived again at start
      // (records/key-rule-changes.ts).
      await knex.schema.createTable('key_rule_versions', (t) => {
        t.string('type', 64).primary();
        t.string('digest', 64).notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('key_rule_versions');
    },
  },
  {
    name: '019_system_events',
    async up(knex) {
      // What the installation itself did, for its administrators (GET /system/events): migrations
      // applied, keys derived again after their rules changed (records/system-events.ts).
      await knex.schema.createTable('system_events', (t) => {
        t.increments('id').primary();
        t.string('title', 255).notNullable();
        t.bigInteger('time_ms').notNullable().index();
        t.text('message').notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('system_events');
    },
  },
];
