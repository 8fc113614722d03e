import type { Tx } from './database';
import type { Queryable } from './dialect';
import { parentKey } from './positions';
import { RecordQueries } from './records';
import { Statements } from './statements';
import { transactionMemo } from './transaction-memo';
import { noteTouchesOfDeletions } from './touches';

/**
 * The tree questions and moves of the records engine (records/trees): which rows sit in a tree or
 * under a node, and the columns a move changes. Places themselves are positions.ts's.
 */

/**
 * A node's parent by URI: every create of a tree node reads one, from what the transaction
 * inserted itself where it can (a file's components name a parent written just before), else by a
 * fixed statement (statements.ts).
 */
export async function treeRowOfUri(db: Queryable, uri: string): Promise<{ rid: number; type: string; root_uri: string | null } | undefined> {
  const memo = transactionMemo(db);
  const inserted = memo?.inserted.get(uri) ?? memo?.pending.get(uri);
  if (inserted) return inserted;
  const [row] = await (await Statements.of(db)).all<{ rid: number; type: string; root_uri: string | null }>(
    'SELECT `rid`, `type`, `root_uri` FROM `records` WHERE `uri` = ? LIMIT 1', [uri]);
  return row;
}

/** A record moved in its tree: a new system_mtime (its lock_version stays) and a change-log entry. */
export async function touchRecord(trx: Tx, type: string, rid: number, uri: string): Promise<void> {
  const now = Date.now();
  await trx('records').where({ rid }).update({ system_mtime_ms: now });
  await new RecordQueries(trx).appendChange(type, uri, 'upsert', now);
}

/** Row ids of the records at `uris` (those that exist). */
export async function ridsOfUris(db: Queryable, uris: string[]): Promise<number[]> {
  return (await db('records').whereIn('uri', uris).select('rid')).map((r: { rid: number }) => Number(r.rid));
}

/** Takes a node out of its sibling group (its place is given again right after). */
export async function takeOutOfPlace(trx: Tx, rid: number): Promise<void> {
  await trx('records').where({ rid }).update({ parent_key: null, position: null });
}

/** The stored JSON of a node's direct children, in order. */
export async function childrenJson(db: Queryable, nodeRid: number): Promise<Array<{ json: string }>> {
  return db('records').where({ parent_key: `node:${nodeRid}` }).orderBy('position').select('json');
}

/** The stored JSON of the sibling just before `position` in the group `parentKey`. */
export async function previousSiblingJson(db: Queryable, parentKey: string, position: number): Promise<{ json: string } | undefined> {
  return db('records').where({ parent_key: parentKey }).andWhere('position', '<', position).orderBy('position', 'desc').first('json');
}

/** Row ids of the records of the tree under `rootUri` (its nodes). */
export async function ridsInTree(db: Queryable, rootUri: string): Promise<number[]> {
  return (await db('records').where({ root_uri: rootUri }).pluck('rid')).map(Number);
}

/** Puts rows (at most a few hundred) under another root; answers their types and ids. */
export async function moveRowsToRoot(trx: Tx, rids: number[], rootUri: string): Promise<Array<{ type: string; id: number }>> {
  await trx('records').whereIn('rid', rids).update({ root_uri: rootUri });
  return (await trx('records').whereIn('rid', rids).select('type', 'id')).map((r: { type: string; id: number }) => ({ type: r.type, id: Number(r.id) }));
}

/** Row ids of a tree's top-level nodes, in order. */
export async function topNodesOf(db: Queryable, rootUri: string): Promise<number[]> {
  return (await db('records').where({ root_uri: rootUri, parent_rid: null }).orderBy('position').select('rid')).map((r: { rid: number }) => Number(r.rid));
}

/** Every node of the tree under `fromRoot` names `toRoot` as its root (a merge of roots). */
export async function joinTree(trx: Tx, fromRoot: string, toRoot: string): Promise<void> {
  await trx('records').where({ root_uri: fromRoot }).update({ root_uri: toRoot });
}

export interface PlacedRow {
  rid: number;
  uri: string;
  parent_rid: number | null;
  parent_key: string;
  position: number;
  root_uri: string;
}

/** The places of the tree nodes among the records at `uris`. */
export async function placesOfUris(db: Queryable, uris: string[]): Promise<PlacedRow[]> {
  const rows = await db('records').whereIn('uri', uris).whereNotNull('parent_key')
    .select('rid', 'uri', 'parent_rid', 'parent_key', 'position', 'root_uri');
  return rows.map((p: PlacedRow) => ({ ...p, rid: Number(p.rid), position: Number(p.position) }));
}

/** Puts a record at a place given as it is (an import keeps the positions it was exported with). */
export async function setTreePlace(trx: Tx, rid: number, rootUri: string, parentRid: number | null, position: number): Promise<void> {
  await trx('records').where({ rid }).update({ parent_key: parentKey(rootUri, parentRid), parent_rid: parentRid, position, root_uri: rootUri });
}

/** Deletes records by row id, each with its derived rows and a change-log entry (a tree's nodes going with it). */
export async function deleteRecordRows(trx: Tx, rids: number[]): Promise<void> {
  const q = new RecordQueries(trx);
  const now = Date.now();
  const rows = new Map<number, { rid: number; type: string; uri: string }>();
  for (let i = 0; i < rids.length; i += 500) {
    for (const row of await trx('records').whereIn('rid', rids.slice(i, i + 500)).select('rid', 'type', 'uri')) rows.set(Number(row.rid), { ...row, rid: Number(row.rid) });
  }
  // What the nodes touch, found for all of them at once before any goes (RecordQueries.delete would ask node by node).
  await q.writeHeldRows();
  await noteTouchesOfDeletions(trx, [...rows.values()]);
  for (const rid of rids) {
    const row = rows.get(rid);
    if (!row) continue;
    await q.delete(rid);
    await q.appendChange(row.type, row.uri, 'delete', now);
  }
}
