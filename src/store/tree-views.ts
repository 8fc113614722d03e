/**
 * What the tree views (records/trees/views.ts) read beyond the pages of children
 * (tree-pages.ts): a tree's root or node row, the counts of published children the public view
 * shows, the parents' ids and the top containers a waypoint names.
 */
import type { Obj } from '../json';
import { publishedClause, type Database } from './connect';
import type { Queryable } from './dialect';
import { visibleArgs } from './pending';

/** Published, unsuppressed children of the sibling group `key`. */
export async function publishedChildCount(db: Database, key: string, within: Queryable = db.reads): Promise<number> {
  const row = await within('records').whereRaw(...visibleArgs(within)).where({ parent_key: key }).andWhereRaw(publishedClause(db)).count({ n: '*' }).first();
  return Number((row as { n?: unknown } | undefined)?.n ?? 0);
}

/** Published, unsuppressed children of each of the nodes `rids`, in one query. */
export async function publishedChildCounts(db: Database, rids: number[], within: Queryable = db.reads): Promise<Map<number, number>> {
  const rows = await within('records').whereRaw(...visibleArgs(within)).whereIn('parent_rid', rids).andWhereRaw(publishedClause(db)).groupBy('parent_rid').select('parent_rid').count({ n: '*' });
  return new Map((rows as Array<{ parent_rid: unknown; n: unknown }>).map((r) => [Number(r.parent_rid), Number(r.n)]));
}

/** The records at `uris`, parsed, by URI (missing ones left out). */
export async function recordsByUri(within: Queryable, uris: string[]): Promise<Map<string, Obj>> {
  if (!uris.length) return new Map();
  const rows: Array<{ uri: string; json: string }> = await within('records').whereRaw(...visibleArgs(within)).whereIn('uri', uris).select('uri', 'json');
  return new Map(rows.map((r) => [r.uri, JSON.parse(r.json) as Obj]));
}

/** The ids of the records `rids`, by rid. */
export async function idsOfRids(within: Queryable, rids: number[]): Promise<Map<number, number>> {
  if (!rids.length) return new Map();
  const rows: Array<{ rid: unknown; id: unknown }> = await within('records').whereRaw(...visibleArgs(within)).whereIn('rid', rids).select('rid', 'id');
  return new Map(rows.map((r) => [Number(r.rid), Number(r.id)]));
}

export interface ViewedRow {
  rid: number;
  id: number;
  uri: string;
  record: Obj;
  suppressed: boolean;
}

function viewedRow(row: { rid: unknown; id: unknown; uri: string; json: string; suppressed: unknown } | undefined): ViewedRow | undefined {
  return row && { rid: Number(row.rid), id: Number(row.id), uri: row.uri, record: JSON.parse(row.json) as Obj, suppressed: !!Number(row.suppressed) };
}

/** A record of `type` by id in a repository. */
export async function recordOfTypeIn(within: Queryable, type: string, id: number, repoId: number): Promise<ViewedRow | undefined> {
  return viewedRow(await within('records').whereRaw(...visibleArgs(within)).where({ type, id, repo_id: repoId }).first('rid', 'id', 'uri', 'json', 'suppressed'));
}

/** A record by URI in a repository. */
export async function recordAtIn(within: Queryable, uri: string, repoId: number): Promise<ViewedRow | undefined> {
  return viewedRow(await within('records').whereRaw(...visibleArgs(within)).where({ uri, repo_id: repoId }).first('rid', 'id', 'uri', 'json', 'suppressed'));
}

/** The rid of the node `type`/`id` of a repository, when it is in the tree under `rootUri`. */
export async function nodeRidInTree(within: Queryable, type: string, id: number, repoId: number, rootUri: string): Promise<number | undefined> {
  const row = await within('records').whereRaw(...visibleArgs(within)).where({ type, id, repo_id: repoId, root_uri: rootUri }).first('rid');
  return row ? Number(row.rid) : undefined;
}
