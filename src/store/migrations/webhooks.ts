import type { Migration } from './migration';

/** Migration 021: webhook subscriptions and their deliveries (src/domain/webhooks). */
export const webhooks: Migration[] = [
  {
    name: '021_webhooks',
    async up(knex) {
      // A subscription follows the change log from its own cursor, held by one app process at a
      // time (its lease), so a slow endpoint holds back no other subscription.
      await knex.schema.createTable('webhook_subscriptions', (t) => {
        t.increments('id').primary();
        t.string('url', 2048).notNullable();
        t.string('secret', 255).notNullable();
        // JSON arrays; null: every record type, repository, kind of change.
        t.text('record_types');
        t.text('repositories');
        t.text('kinds');
        t.boolean('enabled').notNullable().defaultTo(true);
        t.string('status', 16).notNullable().defaultTo('active');
        t.bigInteger('cursor_seq').notNullable().defaultTo(0);
        t.bigInteger('failing_since_ms');
        t.text('last_error');
        t.integer('lock_version').notNullable().defaultTo(0);
        t.bigInteger('created_ms').notNullable();
        t.bigInteger('updated_ms').notNullable();
        t.string('lease_holder', 32).notNullable().defaultTo('');
        t.bigInteger('lease_until_ms').notNullable().defaultTo(0);
      });
      await knex.schema.createTable('webhook_deliveries', (t) => {
        t.bigIncrements('id').primary();
        t.integer('subscription_id').unsigned().notNullable().references('id').inTable('webhook_subscriptions').onDelete('CASCADE');
        // The change-log entry delivered; null for a test ping.
        t.bigInteger('seq');
        t.string('kind', 16).notNullable();
        t.string('uri', 255);
        t.text('event').notNullable();
        t.string('status', 16).notNullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.integer('response_code');
        t.text('error');
        t.bigInteger('created_ms').notNullable();
        t.bigInteger('last_attempt_ms');
        t.bigInteger('next_attempt_ms');
        t.bigInteger('delivered_ms');
        t.unique(['subscription_id', 'seq']);
        t.index(['subscription_id', 'status']);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('webhook_deliveries');
      await knex.schema.dropTableIfExists('webhook_subscriptions');
    },
  },
];
