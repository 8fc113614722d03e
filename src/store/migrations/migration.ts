import type { Knex } from 'knex';

/**
 * Migrations live in code (not files) so that the same list runs from tsx and from dist/.
 * One generic set of tables serves every record type.
 */
export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}
