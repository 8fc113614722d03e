import type { Migration } from './migration';

/** Migrations 001 to 005: the generic record store, its trees and value lists. */
export const genericStore: Migration[] = [
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
];
