import { migrationNames } from '../../store/migrations';
import { databaseVersion } from '../../store/connect';
import { childCountDrift } from '../../store/child-counts';
import { sqlOf } from '../../store/database';
import { appliedMigrations, danglingLinks, missingBuiltIns, missingTables as tablesMissing, recordCountsByType } from '../../store/doctor';
import type { CheckResult, DoctorCheck } from './types';

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

export const migrationsCheck: DoctorCheck = {
  name: 'migrations',
  async run(ctx) {
    const db = ctx.db!;
    const applied = await appliedMigrations(db);
    if (!applied) return { name: this.name, status: 'fail', summary: 'the store has never been migrated (it is empty)', fix: MIGRATE };
    const missingTables = await tablesMissing(db, TABLES);
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
    const builtIns = await missingBuiltIns(db, ['/repositories/1', '/users/1', '/vocabularies/1']);
    const missing = [...builtIns.uris];
    if (builtIns.adminPassword) missing.push('the admin password');
    if (builtIns.administrators) missing.push('the administrators group');
    if (missing.length) {
      return { name: this.name, status: 'fail', summary: `built-in records missing: ${missing.join(', ')}`, details: { applied }, fix: `${MIGRATE}: it creates what is missing` };
    }
    return { name: this.name, status: 'ok', summary: `${applied.length} applied, built-in records present`, details: { applied } };
  },
};

export const recordsCheck: DoctorCheck = {
  name: 'records',
  async run(ctx) {
    const counts = await recordCountsByType(ctx.db!);
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
    const { count, examples } = await danglingLinks(ctx.db!, 5);
    if (!count) return { name: this.name, status: 'ok', summary: 'every link points to a record that exists' };
    return {
      name: this.name, status: 'warn', summary: `${count} link(s) point to records that do not exist`, details: { examples },
      fix: 'usually left by an import of one repository whose records link to another repository\'s; import that repository too, or edit the linking records',
    };
  },
};

export const treesCheck: DoctorCheck = {
  name: 'trees',
  async run(ctx) {
    const drift = await childCountDrift(sqlOf(ctx.db!));
    if (!drift.length) return { name: this.name, status: 'ok', summary: 'every kept child count matches the records' };
    return {
      name: this.name, status: 'warn', summary: `${drift.length} sibling group(s) with a kept child count that differs from the records`,
      details: { examples: drift.slice(0, 5) },
      fix: 'run `archive-records migrate`: it counts every tree\'s children again (tree views show the kept counts)',
    };
  },
};
