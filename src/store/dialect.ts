import type { Knex } from 'knex';

/** Whether a query builder or transaction runs on MySQL/MariaDB (else on SQLite). */
export function onMysql(db: Knex | Knex.Transaction): boolean {
  return db.client.config.client === 'mysql2';
}

/** What a store query runs on: the pool, or a transaction. */
export type Queryable = Knex | Knex.Transaction;
