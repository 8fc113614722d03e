/**
 * What the OAI-PMH provider reads: the values of a value list with their ids (repositories name
 * the levels they offer by id), the repositories, pages of the records a harvester may see, in
 * id order, narrowed by a set described as data, and the deletions the change log keeps.
 */
import type { Knex } from 'knex';
import type { Obj } from '../json';
import { jsonTextSql, publishedClause, type Database } from './connect';
import { underHiddenAncestor } from './visibility';
import { visibleArgs } from './pending';

/** A value list's values with their ids, in the list's order (suppressed ones too). */
export async function valueListEntries(db: Database, enumName: string): Promise<Array<{ id: number | null; value: string }>> {
  return db.reads('enumeration_values').where({ enum_name: enumName }).orderBy('position').select('id', 'value');
}

/** The shown repository records but the one with id `exceptId` (the global one). */
export async function repositoryRecords(db: Database, exceptId: number): Promise<Array<{ id: number; record: Obj }>> {
  const rows: Array<{ id: number; json: string }> = await db.reads('records').whereRaw(...visibleArgs(db.reads)).where({ type: 'repository', hidden: false })
    .whereNot('id', exceptId).select('id', 'json');
  return rows.map((r) => ({ id: Number(r.id), record: JSON.parse(r.json) as Obj }));
}

/** What a set keeps of a type's records. */
export type HarvestSet =
  | { repoIds: number[] }
  /** Records whose JSON text at `path` is one of `values`. */
  | { jsonPath: string; values: string[] }
  /** Records in the trees (their `rootProperty` link) of the `rootType` records whose JSON text at `path` is one of `values`. */
  | { treesOf: { rootType: string; rootProperty: string; path: string; values: string[] } }
  | { nothing: true };

export interface HarvestQuery {
  type: string;
  /** Records with a greater id. */
  afterId: number;
  /** Only the record with this id. */
  id?: number;
  /** The repositories harvested, each with the levels it limits its records to (null: all). */
  repos: Array<{ id: number; levels: string[] | null }>;
  /** Modified in this range (ms, inclusive). */
  fromMs?: number;
  untilMs?: number;
  set?: HarvestSet;
  limit?: number;
}

export interface HarvestRow {
  id: number;
  json: string;
  system_mtime_ms: number;
  parent_rid: number | null;
  root_uri: string | null;
}

/** Keeps the rows whose JSON text at `path` is one of `values` (none: no rows). */
function whereJsonIn(db: Database, q: Knex.QueryBuilder, path: string, values: string[]): void {
  if (!values.length) q.whereRaw('1 = 0');
  else q.whereRaw(`${jsonTextSql(db, path)} IN (${values.map(() => '?').join(', ')})`, values);
}

async function narrow(db: Database, q: Knex.QueryBuilder, set: HarvestSet): Promise<void> {
  if ('repoIds' in set) q.whereIn('repo_id', set.repoIds.length ? set.repoIds : [-1]);
  else if ('jsonPath' in set) whereJsonIn(db, q, set.jsonPath, set.values);
  else if ('treesOf' in set) {
    const roots = db.reads('records').whereRaw(...visibleArgs(db.reads)).where({ type: set.treesOf.rootType });
    whereJsonIn(db, roots, set.treesOf.path, set.treesOf.values);
    whereJsonIn(db, q, `$.${set.treesOf.rootProperty}.ref`, await roots.pluck('uri'));
  } else q.whereRaw('1 = 0');
}

/** Published, unsuppressed, shown records of one type in the harvested repositories, in id order. */
export async function harvestableRecords(db: Database, h: HarvestQuery): Promise<HarvestRow[]> {
  const q = db.reads('records').whereRaw(...visibleArgs(db.reads)).where({ type: h.type, hidden: false }).andWhereRaw(publishedClause(db)).andWhere('id', '>', h.afterId);
  if (!h.repos.length) q.whereRaw('1 = 0');
  else {
    q.where((any) => {
      for (const repo of h.repos) {
        any.orWhere((one) => {
          one.where('repo_id', repo.id);
          if (repo.levels) whereJsonIn(db, one, '$.level', repo.levels);
        });
      }
    });
  }
  if (h.fromMs !== undefined) q.where('system_mtime_ms', '>=', h.fromMs);
  if (h.untilMs !== undefined) q.where('system_mtime_ms', '<=', h.untilMs);
  if (h.set) await narrow(db, q, h.set);
  if (h.id !== undefined) q.andWhere('id', h.id);
  q.orderBy('id');
  if (h.limit !== undefined) q.limit(h.limit);
  return q.select('id', 'json', 'system_mtime_ms', 'parent_rid', 'root_uri');
}

/** The rows among `rows` under an unpublished or suppressed ancestor (visibility.ts). */
export function harvestRowsUnderHiddenAncestor<Row extends HarvestRow>(db: Database, rows: Row[]): Promise<Set<Row>> {
  return underHiddenAncestor(db.reads, rows);
}

/** Deletions of records of `types` recorded in the change log after `afterSeq`, in order. */
export async function deletionsAfter(
  db: Database, q: { types: string[]; afterSeq: number; fromMs?: number; untilMs?: number; limit: number },
): Promise<Array<{ seq: number; uri: string; at_ms: number }>> {
  const query = db.reads('change_log').where({ op: 'delete' }).whereIn('type', q.types.length ? q.types : ['']).andWhere('seq', '>', q.afterSeq);
  if (q.fromMs !== undefined) query.where('at_ms', '>=', q.fromMs);
  if (q.untilMs !== undefined) query.where('at_ms', '<=', q.untilMs);
  return query.orderBy('seq').limit(q.limit).select('seq', 'uri', 'at_ms');
}

/** When the record `uri` was last deleted (ms), if it ever was. */
export async function lastDeletionOf(db: Database, uri: string): Promise<number | undefined> {
  const row = await db.reads('change_log').where({ uri, op: 'delete' }).orderBy('seq', 'desc').first('at_ms');
  return row ? Number(row.at_ms) : undefined;
}
