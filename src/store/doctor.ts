/** What `archive-records doctor` and GET /health ask the store. */
import { type Handle, readsOf, sqlOf } from './database';

/** Whether the store answers a statement at all (throws when it does not). */
export async function ping(h: Handle): Promise<void> {
  await readsOf(h).raw('SELECT 1');
}

/** The store's migrations applied, in order; undefined when it has never been migrated. */
export async function appliedMigrations(h: Handle): Promise<string[] | undefined> {
  const db = sqlOf(h);
  if (!(await db.schema.hasTable('knex_migrations'))) return undefined;
  return (await db('knex_migrations').orderBy('id').pluck('name')) as string[];
}

/** Which of `tables` the store lacks. */
export async function missingTables(h: Handle, tables: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const table of tables) if (!(await sqlOf(h).schema.hasTable(table))) missing.push(table);
  return missing;
}

/** What of the built-in rows a migration creates is missing: records by URI, the admin's password, the administrators' grant. */
export async function missingBuiltIns(h: Handle, uris: string[]): Promise<{ uris: string[]; adminPassword: boolean; administrators: boolean }> {
  const db = sqlOf(h);
  const missing: string[] = [];
  for (const uri of uris) if (!(await db('records').where({ uri }).first('rid'))) missing.push(uri);
  return {
    uris: missing,
    adminPassword: !(await db('credentials').where({ username: 'admin' }).first('username')),
    administrators: !(await db('group_grants').where({ repo_id: 1, permission: 'administer_system' }).first('group_rid')),
  };
}

/** Records per type, by type name. */
export async function recordCountsByType(h: Handle): Promise<Record<string, number>> {
  const rows = await sqlOf(h)('records').select('type').count({ n: '*' }).groupBy('type').orderBy('type');
  return Object.fromEntries((rows as Array<{ type: string; n: unknown }>).map((r) => [r.type, Number(r.n)]));
}

/** Links to records that do not exist (links to a tree's own `/tree` URI left aside): how many, and a few. */
export async function danglingLinks(h: Handle, examplesWanted: number): Promise<{ count: number; examples: Array<{ from: string; to: string }> }> {
  const db = sqlOf(h);
  const dangling = () => db('record_refs as x').leftJoin('records as r', 'r.uri', 'x.to_uri').whereNull('r.rid').andWhere('x.to_uri', 'not like', '%/tree');
  const count = Number((await dangling().count({ n: '*' }).first())?.n ?? 0);
  if (!count) return { count, examples: [] };
  const examples = await dangling().join('records as f', 'f.rid', 'x.from_rid').select('f.uri as from', 'x.to_uri as to').limit(examplesWanted);
  return { count, examples };
}
