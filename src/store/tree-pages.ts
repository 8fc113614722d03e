/**
 * Pages of a tree's nodes: the children of one node (a sibling group, `parent_key`) in position
 * order, a page at a time. One reader serves the tree views (waypoints) and every export walk
 * (EAD, EAD3, PDF, container labels), so each reads along the (parent_key, position) index alike.
 */
import type { Obj } from '../json';
import { childCountsOf } from './child-counts';
import { publishedClause, type Database } from './connect';
import { inOrder } from './records';
import { parentKey } from './positions';
import type { Queryable } from './dialect';
import { visibleArgs } from './pending';

type Db = Queryable;

/** One node of a tree page, its record parsed. */
export interface TreeNodeRow {
  rid: number;
  id: number;
  uri: string;
  parent_rid: number | null;
  position: number;
  suppressed: boolean;
  record: Obj;
}

/** Where a page starts among a node's children, how long it is and which children it counts. */
export interface TreePage {
  /** The children after this position: the next page of a walk that read the one before. */
  after?: number;
  /** The children from this position on: a page whose first position is known. */
  from?: number;
  /** Children skipped before the page, when neither bound is known. */
  skip?: number;
  size: number;
  /** Only published, unsuppressed children (the public view). */
  publishedOnly?: boolean;
  /** Hidden rows left out. */
  shownOnly?: boolean;
}

const COLUMNS = ['rid', 'id', 'uri', 'parent_rid', 'position', 'suppressed', 'json'];

function nodeRow(r: { rid: number; id: number; uri: string; parent_rid: number | null; position: number; suppressed: unknown; json: string }): TreeNodeRow {
  return {
    rid: Number(r.rid), id: Number(r.id), uri: r.uri, parent_rid: r.parent_rid === null ? null : Number(r.parent_rid),
    position: Number(r.position), suppressed: !!Number(r.suppressed), record: JSON.parse(r.json) as Obj,
  };
}

/**
 * One page of the children of the sibling group `key` (parentKey), in position order; read in
 * `within` (a transaction of the caller's) or on the pool.
 */
export async function treePage(db: Database, key: string, page: TreePage, within: Db = db.reads): Promise<TreeNodeRow[]> {
  const q = within('records').whereRaw(...visibleArgs(within)).where({ parent_key: key });
  if (page.publishedOnly) q.andWhereRaw(publishedClause(db));
  if (page.shownOnly) q.andWhere({ hidden: false });
  if (page.after !== undefined) q.andWhere('position', '>', page.after);
  if (page.from !== undefined) q.andWhere('position', '>=', page.from);
  q.orderBy('position');
  if (page.skip) q.offset(page.skip);
  q.limit(page.size);
  // A filter on columns outside the index reads the rows anyway. Otherwise the siblings before the
  // page are skipped in the (parent_key, position) index and only the page's rows are read whole
  // (MariaDB would read every skipped row).
  if (page.publishedOnly || page.shownOnly) return (await q.select(COLUMNS)).map(nodeRow);
  const rids = (await q.select('rid')).map((r: { rid: number }) => Number(r.rid));
  if (!rids.length) return [];
  return inOrder(rids, (await within('records').whereIn('rid', rids).select(COLUMNS)).map(nodeRow));
}

/** Which of the nodes `rids` have children (from the counts the store keeps), in one read. */
export async function nodesWithChildren(db: Database, rids: number[]): Promise<Set<number>> {
  const counts = await childCountsOf(db.reads, rids.map((rid) => parentKey('', rid)));
  return new Set(rids.filter((rid) => counts.has(parentKey('', rid))));
}

/** Every node of the tree under `rootUri` (hidden ones only if asked), in position order (each sibling group in order), in one read. */
export async function treeNodes(db: Database, rootUri: string, o: { shownOnly: boolean } = { shownOnly: true }): Promise<TreeNodeRow[]> {
  const q = db.reads('records').whereRaw(...visibleArgs(db.reads)).where({ root_uri: rootUri });
  if (o.shownOnly) q.andWhere({ hidden: false });
  const rows = await q.orderBy('position').select(COLUMNS);
  return rows.map(nodeRow);
}
