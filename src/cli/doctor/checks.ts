import type { Knex } from 'knex';
import { migrationNames } from '../../store/migrations';
import { databaseVersion } from '../../store/connect';
import { childCountDrift } from '../../store/child-counts';
import type { CheckResult, DoctorCheck, DoctorContext } from './types';

const MIGRATE = 'run `archive-records migrate` (or start the server once) with the same DB_URL';

/** Tables the store's code reads and writes (src/store/migrations.ts). */
const TABLES = [
  'records', 'id_sequences', 'unique_keys', 'lookup_keys', 'record_refs', 'change_log', 'enumerations',
  'enumeration_values', 'enumeration_version', 'credentials', 'sessions', 'group_members', 'group_grants', 'search_state', 'tree_child_counts', 'key_rule_versions', 'system_events',
];

export const storeCheck: DoctorCheck = {
  name: 'store',
  async run(ctx) {
    if (!ctx.db) {
      const fix = ctx.config.dbUrl.startsWith('sqlite://')
        ? 'check DB_URL; `archive-records migrate` creates a new SQLite store'
        : 'check DB_URL, that the MySQL/MariaDB server runs, and that the user may connect and create the database';
      return { name: this.name, status: 'fail', summary: 'not reachable', fix };
    }
    const { product, version } = await databaseVersion(ctx.db);
    return { name: this.name, status: 'ok', summary: `reachable: ${ctx.db.describe} (${product === 'SQLite' ? product : 'MySQL/MariaDB'} ${version})` };
  },
};

async function appliedMigrations(knex: Knex): Promise<string[] | undefined> {
  if (!(await knex.schema.hasTable('knex_migrations'))) return undefined;
  return (await knex('knex_migrations').orderBy('id').pluck('name')) as string[];
}

export const migrationsCheck: DoctorCheck = {
  name: 'migrations',
  async run(ctx) {
    const knex = ctx.db!.knex;
    const applied = await appliedMigrations(knex);
    if (!applied) return { name: this.name, status: 'fail', summary: 'the store has never been migrated (it is empty)', fix: MIGRATE };
    const missingTables: string[] = [];
    for (const table of TABLES) if (!(await knex.schema.hasTable(table))) missingTables.push(table);
    const pending = migrationNames.filter((name) => !applied.includes(name));
    const unknown = applied.filter((name) => !migrationNames.includes(name));
    if (unknown.length) {
      return {
        name: this.name, status: 'fail', summary: `migrated by a newer version of archive-records (migrations this version does not know: ${unknown.join(', ')})`,
        details: { applied, unknown }, fix: 'run the newer version (or a later one) against this store; an older version cannot serve it',
      };
    }
    if (missingTables.length || pending.length) {
      return {
        name: this.name, status: 'fail',
        summary: pending.length ? `${pending.length} migration(s) not applied: ${pending.join(', ')}` : `tables missing: ${missingTables.join(', ')}`,
        details: { applied, missing_tables: missingTables, pending }, fix: MIGRATE,
      };
    }
    const missing: string[] = [];
    for (const uri of ['/repositories/1', '/users/1', '/vocabularies/1']) {
      if (!(await knex('records').where({ uri }).first('rid'))) missing.push(uri);
    }
    if (!(await knex('credentials').where({ username: 'admin' }).first('username'))) missing.push('the admin password');
    if (!(await knex('group_grants').where({ repo_id: 1, permission: 'administer_system' }).first('group_rid'))) missing.push('the administrators group');
    if (missing.length) {
      return { name: this.name, status: 'fail', summary: `built-in records missing: ${missing.join(', ')}`, details: { applied }, fix: `${MIGRATE}: it creates what is missing` };
    }
    return { name: this.name, status: 'ok', summary: `${applied.length} applied, built-in records present`, details: { applied } };
  },
};

export const recordsCheck: DoctorCheck = {
  name: 'records',
  async run(ctx) {
    const rows = await ctx.db!.knex('records').select('type').count({ n: '*' }).groupBy('type').orderBy('type');
    const counts: Record<string, number> = Object.fromEntries(rows.map((r: any) => [r.type, Number(r.n)]));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const unknown = Object.keys(counts).filter((type) => !ctx.registry.types[type]);
    const result: CheckResult = { name: this.name, status: 'ok', summary: `${total} records of ${Object.keys(counts).length} types`, details: counts };
    if (unknown.length) {
      result.status = 'warn';
      result.summary += `; types the schemas do not define: ${unknown.join(', ')}`;
      result.fix = 'these records are not served: restore their schemas in schemas/ and run `make generate`, or check that GENERATED_DIR points at the right registry';
    }
    return result;
  },
};

export const linksCheck: DoctorCheck = {
  name: 'links',
  async run(ctx) {
    const knex = ctx.db!.knex;
    const dangling = () => knex('record_refs as x').leftJoin('records as r', 'r.uri', 'x.to_uri').whereNull('r.rid').andWhere('x.to_uri', 'not like', '%/tree');
    const count = Number((await dangling().count({ n: '*' }).first())?.n ?? 0);
    if (!count) return { name: this.name, status: 'ok', summary: 'every link points to a record that exists' };
    const examples = await dangling().join('records as f', 'f.rid', 'x.from_rid').select('f.uri as from', 'x.to_uri as to').limit(5);
    return {
      name: this.name, status: 'warn', summary: `${count} link(s) point to records that do not exist`, details: { examples },
      fix: 'usually left by an import of one repository whose records link to another repository\'s; import that repository too, or edit the linking records',
    };
  },
};

export const treesCheck: DoctorCheck = {
  name: 'trees',
  async run(ctx) {
    const drift = await childCountDrift(ctx.db!.knex);
    if (!drift.length) return { name: this.name, status: 'ok', summary: 'every kept child count matches the records' };
    return {
      name: this.name, status: 'warn', summary: `${drift.length} sibling group(s) with a kept child count that differs from the records`,
      details: { examples: drift.slice(0, 5) },
      fix: 'run `archive-records migrate`: it counts every tree\'s children again (tree views show the kept counts)',
    };
  },
};
