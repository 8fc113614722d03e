import crypto from 'node:crypto';
import type { Migration } from './migration';

/** Migrations 006 to 012: what the services beside the records keep (search state, jobs, repository settings, active edits, login failures, the access version). */
export const services: Migration[] = [
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
];
