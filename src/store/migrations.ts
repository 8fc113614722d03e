import crypto from 'node:crypto';
import { Knex } from 'knex';
import { recountChildren } from './child-counts';
import { onMysql } from './connect';

/**
 * Migrations live in code (not files) so that the same list runs from tsx and from dist/.
 * One generic set of tables serves every record type.
 */
interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

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

const migrations: Migration[] = [
  {
    name: '001_generic_record_store',
    async up(knex) {
      await knex.schema.createTable('records', (t) => {
        t.increments('rid').primary();
        t.string('type', 64).notNullable();
        t.integer('id').notNullable();
        t.integer('repo_id').notNullable().defaultTo(0);
        t.string('uri', 255).notNullable().unique();
        t.text('json', 'longtext').notNullable();
        t.integer('lock_version').notNullable().defaultTo(0);
        t.bigInteger('create_time_ms').notNullable();
        t.bigInteger('system_mtime_ms').notNullable();
        t.bigInteger('user_mtime_ms').notNullable();
        t.boolean('suppressed').notNullable().defaultTo(false);
        t.boolean('hidden').notNullable().defaultTo(false);
        t.unique(['type', 'id']);
        t.index(['type', 'repo_id', 'id']);
        t.index(['type', 'system_mtime_ms']);
      });
      await knex.schema.createTable('id_sequences', (t) => {
        t.string('type', 64).primary();
        t.integer('last_id').notNullable();
      });
      await knex.schema.createTable('unique_keys', (t) => {
        t.string('type', 64).notNullable();
        t.string('rule', 64).notNullable();
        t.string('scope', 255).notNullable();
        t.string('key_hash', 64).notNullable();
        t.integer('rid').unsigned().notNullable().references('rid').inTable('records').onDelete('CASCADE');
        t.primary(['type', 'rule', 'scope', 'key_hash']);
        t.index(['rid']);
      });
      await knex.schema.createTable('lookup_keys', (t) => {
        t.string('type', 64).notNullable();
        t.string('param', 64).notNullable();
        t.integer('repo_id').notNullable();
        t.string('value_hash', 64).notNullable();
        t.integer('rid').unsigned().notNullable().references('rid').inTable('records').onDelete('CASCADE');
        t.index(['type', 'param', 'repo_id', 'value_hash']);
        t.index(['rid']);
      });
      await knex.schema.createTable('record_refs', (t) => {
        t.integer('from_rid').unsigned().notNullable().references('rid').inTable('records').onDelete('CASCADE');
        t.string('property', 128).notNullable();
        t.string('to_uri', 255).notNullable();
        t.index(['to_uri']);
        t.index(['from_rid']);
      });
      await knex.schema.createTable('change_log', (t) => {
        t.bigIncrements('seq').primary();
        t.string('type', 64).notNullable();
        t.string('uri', 255).notNullable();
        t.string('op', 16).notNullable();
        t.bigInteger('at_ms').notNullable();
      });
      await knex.schema.createTable('enumeration_values', (t) => {
        t.string('enum_name', 128).notNullable();
        t.string('value', 255).notNullable();
        t.integer('position').notNullable();
        t.boolean('readonly').notNullable().defaultTo(false);
        t.primary(['enum_name', 'value']);
      });
      await knex.schema.createTable('enumerations', (t) => {
        t.string('name', 128).primary();
        t.boolean('editable').notNullable().defaultTo(true);
      });
      await knex.schema.createTable('credentials', (t) => {
        t.string('username', 255).primary();
        t.integer('user_id').notNullable();
        t.string('password_hash', 255).notNullable();
      });
      await knex.schema.createTable('sessions', (t) => {
        t.string('token_hash', 64).primary();
        t.string('username', 255).notNullable();
        t.boolean('expiring').notNullable().defaultTo(true);
        t.bigInteger('created_ms').notNullable();
        t.bigInteger('last_active_ms').notNullable();
        t.index(['username']);
      });
    },
    async down(knex) {
      for (const table of [
        'sessions', 'credentials', 'enumerations', 'enumeration_values', 'change_log',
        'record_refs', 'lookup_keys', 'unique_keys', 'id_sequences', 'records',
      ]) {
        await knex.schema.dropTableIfExists(table);
      }
    },
  },
  {
    name: '002_group_membership_index',
    async up(knex) {
      // Derived from group records on every save, like unique_keys: the permission check reads these.
      await knex.schema.createTable('group_members', (t) => {
        t.integer('group_rid').unsigned().notNullable().references('rid').inTable('records').onDelete('CASCADE');
        t.integer('repo_id').notNullable();
        t.string('username', 255).notNullable();
        t.primary(['group_rid', 'username']);
        t.index(['username']);
      });
      await knex.schema.createTable('group_grants', (t) => {
        t.integer('group_rid').unsigned().notNullable().references('rid').inTable('records').onDelete('CASCADE');
        t.integer('repo_id').notNullable();
        t.string('permission', 64).notNullable();
        t.primary(['group_rid', 'permission']);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('group_grants');
      await knex.schema.dropTableIfExists('group_members');
    },
  },
  {
    name: '004_tree_positions',
    async up(knex) {
      // Tree nodes (archival objects, digital object components): parent, sibling group and a
      // gapped physical position; the logical 0-based position is the count of siblings before.
      await knex.schema.alterTable('records', (t) => {
        t.integer('parent_rid').unsigned().nullable();
        t.string('parent_key', 255).nullable();
        t.bigInteger('position').nullable();
        t.string('root_uri', 255).nullable();
        t.unique(['parent_key', 'position']);
        t.index(['parent_rid']);
        t.index(['root_uri']);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('records', (t) => {
        t.dropUnique(['parent_key', 'position']);
        t.dropIndex(['parent_rid']);
        t.dropIndex(['root_uri']);
        t.dropColumns('parent_rid', 'parent_key', 'position', 'root_uri');
      });
    },
  },
  {
    name: '005_enumeration_ids',
    async up(knex) {
      // Enumerations and their values are addressed by integer ids (/config/enumerations/N);
      // a version row lets every app process notice list changes made by another.
      await knex.schema.alterTable('enumerations', (t) => {
        t.integer('id').nullable().unique();
        t.integer('lock_version').notNullable().defaultTo(0);
        t.string('default_value', 255).nullable();
      });
      await knex.schema.alterTable('enumeration_values', (t) => {
        t.integer('id').nullable().unique();
        t.boolean('suppressed').notNullable().defaultTo(false);
      });
      await knex.schema.createTable('enumeration_version', (t) => {
        t.integer('id').primary();
        t.integer('version').notNullable();
      });
      await knex('enumeration_version').insert({ id: 1, version: 0 });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('enumeration_version');
      await knex.schema.alterTable('enumeration_values', (t) => {
        t.dropUnique(['id']);
        t.dropColumns('id', 'suppressed');
      });
      await knex.schema.alterTable('enumerations', (t) => {
        t.dropUnique(['id']);
        t.dropColumns('id', 'lock_version', 'default_value');
      });
    },
  },
  {
    name: '006_search_state',
    async up(knex) {
      // The store's identity binds a search index to it (an index of another store is rebuilt);
      // the lease lets one of several app processes run the indexer at a time.
      await knex.schema.createTable('search_state', (t) => {
        t.string('name', 64).primary();
        t.string('value', 255).notNullable();
        t.bigInteger('expires_ms').notNullable().defaultTo(0);
      });
      await knex('search_state').insert([
        { name: 'store_id', value: crypto.randomUUID(), expires_ms: 0 },
        { name: 'indexer_lease', value: '', expires_ms: 0 },
      ]);
      await knex.schema.alterTable('change_log', (t) => t.index(['uri']));
    },
    async down(knex) {
      await knex.schema.alterTable('change_log', (t) => t.dropIndex(['uri']));
      await knex.schema.dropTableIfExists('search_state');
    },
  },
  {
    name: '007_listing_index',
    async up(knex) {
      // Listings filter on hidden and suppressed and page in id order: with both in the index a
      // page's rows are found without reading the records before it (their JSON included).
      await knex.schema.alterTable('records', (t) => {
        t.index(['type', 'repo_id', 'id', 'hidden', 'suppressed'], 'records_listing_index');
        t.dropIndex(['type', 'repo_id', 'id']);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('records', (t) => {
        t.index(['type', 'repo_id', 'id']);
        t.dropIndex([], 'records_listing_index');
      });
    },
  },
  {
    name: '008_jobs',
    async up(knex) {
      // Background jobs (imports): the queue, each job's files and log, and what it created.
      await knex.schema.createTable('jobs', (t) => {
        t.integer('id').primary();
        t.integer('repo_id').notNullable();
        t.string('job_type', 64).notNullable();
        t.text('job_json').notNullable();
        t.string('status', 16).notNullable();
        t.string('owner', 255).notNullable();
        t.bigInteger('submitted_ms').notNullable();
        t.bigInteger('started_ms').nullable();
        t.bigInteger('finished_ms').nullable();
        t.boolean('cancel_requested').notNullable().defaultTo(false);
        t.string('lease_holder', 64).nullable();
        t.bigInteger('lease_until_ms').nullable();
        t.integer('done').notNullable().defaultTo(0);
        t.integer('total').nullable();
        t.integer('lock_version').notNullable().defaultTo(0);
        t.index(['status', 'id']);
        t.index(['repo_id', 'id']);
      });
      await knex.schema.createTable('job_files', (t) => {
        t.increments('id').primary();
        t.integer('job_id').notNullable().index();
        t.string('kind', 16).notNullable(); // input or output
        t.string('filename', 255).notNullable();
        t.string('stored', 512).notNullable();
      });
      await knex.schema.createTable('job_log', (t) => {
        t.increments('seq').primary();
        t.integer('job_id').notNullable().index();
        t.text('line').notNullable();
      });
      await knex.schema.createTable('job_records', (t) => {
        t.integer('job_id').notNullable().index();
        t.string('uri', 255).notNullable();
      });
    },
    async down(knex) {
      for (const table of ['job_records', 'job_log', 'job_files', 'jobs']) await knex.schema.dropTableIfExists(table);
    },
  },
  {
    name: '009_repository_settings',
    async up(knex) {
      // Per repository and record type: the default values and the required fields of the staff forms.
      await knex.schema.createTable('repository_settings', (t) => {
        t.integer('repo_id').notNullable();
        t.string('kind', 32).notNullable();
        t.string('record_type', 64).notNullable();
        t.text('json').notNullable();
        t.integer('lock_version').notNullable().defaultTo(0);
        t.primary(['repo_id', 'kind', 'record_type']);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('repository_settings');
    },
  },
  {
    name: '010_active_edits',
    async up(knex) {
      // Who has which record open in an editor (POST /update_monitor), shared by every app process.
      await knex.schema.createTable('active_edits', (t) => {
        t.string('uri', 255).notNullable();
        t.string('username', 255).notNullable();
        t.bigInteger('at_ms').notNullable();
        t.primary(['uri', 'username']);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('active_edits');
    },
  },
  {
    name: '011_login_failures',
    async up(knex) {
      // Failed logins per username and per client address, shared by every app process.
      await knex.schema.createTable('login_failures', (t) => {
        t.string('throttle_key', 320).notNullable().primary();
        t.integer('failures').notNullable();
        t.bigInteger('ends_ms').notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('login_failures');
    },
  },
  {
    name: '012_access_version',
    async up(knex) {
      // Bumped with every change to who may do what; processes keep sessions and grants until it moves.
      await knex.schema.createTable('access_version', (t) => {
        t.integer('id').primary();
        t.bigInteger('version').notNullable();
      });
      await knex('access_version').insert({ id: 1, version: 0 });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('access_version');
    },
  },
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
