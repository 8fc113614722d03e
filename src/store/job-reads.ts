/**
 * Reads of stored records that batch jobs (src/jobs) walk: the records of a resource's tree, or of
 * some types in a repository, a page at a time in rid order, so that a job over a large tree holds
 * one page in memory and may stop between pages.
 */
import { type Handle, readsOf } from './database';
import { normalise, type RecordRow } from './record-rows';
import { parentKey } from './positions';
import { visibleArgs } from './pending';

/** Which records a job walks: a tree (the record at `rootUri` and every node under it), or types (in one repository, or in all). */
export type JobScope = { rootUri: string } | { types: string[]; repoId?: number };

const COLUMNS = ['rid', 'type', 'id', 'repo_id', 'uri', 'json', 'lock_version', 'create_time_ms', 'system_mtime_ms', 'user_mtime_ms', 'suppressed', 'hidden'];

/** The next page of records in `scope` after `afterRid` (0 first), suppressed and hidden ones left out. */
export async function recordRowsPage(h: Handle, scope: JobScope, afterRid: number, limit: number): Promise<RecordRow[]> {
  const visible = () => readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where('rid', '>', afterRid).andWhere({ suppressed: false, hidden: false });
  if ('rootUri' in scope) {
    // The root and its nodes apart: with `root_uri = ? OR uri = ?` the planners merged two indexes
    // and sorted every node of the tree for each page (MariaDB), where `root_uri = ? AND rid > ?`
    // walks the root_uri index in rid order from where the last page ended.
    const root = await visible().andWhere({ uri: scope.rootUri }).select(COLUMNS);
    const nodes = await visible().andWhere({ root_uri: scope.rootUri }).orderBy('rid').limit(limit).select(COLUMNS);
    const rows = [...root, ...nodes].sort((a, b) => Number(a.rid) - Number(b.rid)).slice(0, limit);
    return rows.map((r) => normalise(r)!);
  }
  const q = visible().whereIn('type', scope.types);
  if (scope.repoId !== undefined) q.andWhere({ repo_id: scope.repoId });
  const rows = await q.orderBy('rid').limit(limit).select(COLUMNS);
  return rows.map((r) => normalise(r)!);
}

/** The nodes of the tree under `rootUri` directly under `parentRid` (null: its top level), in order, with their JSON. */
export async function childRows(h: Handle, rootUri: string, parentRid: number | null): Promise<Array<{ rid: number; uri: string; json: string }>> {
  // By the sibling group's key: its unique (parent_key, position) index gives them in order, where
  // `root_uri = ?` (every node of the tree) was MariaDB's choice, a scan of the tree per group.
  const rows = await readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where({ parent_key: parentKey(rootUri, parentRid), suppressed: false, hidden: false })
    .orderBy('position').select('rid', 'uri', 'json');
  return rows.map((r: { rid: number; uri: string; json: string }) => ({ rid: Number(r.rid), uri: r.uri, json: r.json }));
}

/** The rids of the nodes of the tree under `rootUri` that have nodes under them: a copy of the tree reads the children of those only. */
export async function parentRids(h: Handle, rootUri: string): Promise<Set<number>> {
  const rows = await readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where({ root_uri: rootUri, suppressed: false, hidden: false }).whereNotNull('parent_rid')
    .distinct('parent_rid');
  return new Set(rows.map((r: { parent_rid: number }) => Number(r.parent_rid)));
}
