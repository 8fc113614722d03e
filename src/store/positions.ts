import { onMysql, type Queryable } from './dialect';
import { Statements } from './statements';
import { type LockedRow, transactionMemo } from './transaction-memo';
import { noteLockedRows, rootReadForTouch } from './touches';

/**
 * Gapped physical positions (trees-and-positions.md section 2). Siblings share a parent_key;
 * (parent_key, position) is unique. Appends and inserts at the front never touch other rows;
 * an insert between two adjacent positions shifts only the siblings after it, once per ~10
 * inserts at the same spot.
 */
export const STEP = 1000;

type Db = Queryable;

export function parentKey(rootUri: string, parentRid: number | null): string {
  return parentRid === null ? `root:${rootUri}` : `node:${parentRid}`;
}

export interface NodePlace {
  rid: number;
  parent_rid: number | null;
  parent_key: string;
  position: number;
  root_uri: string;
}

export async function placeOf(db: Db, rid: number): Promise<NodePlace | undefined> {
  const row = await db('records').where({ rid }).first('rid', 'parent_rid', 'parent_key', 'position', 'root_uri');
  if (!row || row.parent_key === null) return undefined;
  return {
    rid: Number(row.rid),
    parent_rid: row.parent_rid === null ? null : Number(row.parent_rid),
    parent_key: row.parent_key,
    position: Number(row.position),
    root_uri: row.root_uri,
  };
}

/** The position of every `size`-th sibling from the first (where each page of `size` starts), in one pass over the index. */
export async function waypointStarts(db: Db, parentKey: string, size: number): Promise<number[]> {
  const numbered = db('records').where({ parent_key: parentKey }).select('position').rowNumber('n', 'position');
  const rows = await db.from(numbered.as('s')).whereRaw('(n - 1) % ? = 0', [size]).orderBy('position').select('position');
  return rows.map((r: { position: number }) => Number(r.position));
}

/** 0-based index among siblings. */
export async function logicalPosition(db: Db, place: NodePlace): Promise<number> {
  const row = await db('records').where({ parent_key: place.parent_key }).andWhere('position', '<', place.position).count({ n: '*' }).first();
  return Number((row as { n?: unknown }).n);
}

/** A place whose index among its siblings is known: a later pass over the group can start after it. */
export interface RankAnchor {
  position: number;
  rank: number;
}

/**
 * 0-based indexes of many records among their siblings: one pass per sibling group up to its
 * furthest record, not one count per record (the indexer decorates 500 new children of one
 * parent at a time; counted one by one, loading a tree was quadratic). `anchors` keeps, per
 * group, the furthest place a pass reached (the caller keeps them until the next write): a pass
 * whose records all lie after it starts there. A rebuild reads a tree's nodes page by page in
 * the order they were appended, and each page's pass went down the group from its start again
 * (quadratic again: 5 ms a page at 57,000 siblings, 80 % of a rebuild of that tree).
 */
export async function logicalPositions(
  db: Db, places: NodePlace[], anchors?: { get(key: string): RankAnchor | undefined; set(key: string, anchor: RankAnchor): void },
): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const groups = new Map<string, NodePlace[]>();
  for (const p of places) {
    const group = groups.get(p.parent_key);
    if (group) group.push(p);
    else groups.set(p.parent_key, [p]);
  }
  for (const [key, group] of groups) {
    if (group.length === 1) {
      out.set(group[0].rid, await logicalPosition(db, group[0]));
      continue;
    }
    const furthest = Math.max(...group.map((p) => p.position));
    const nearest = Math.min(...group.map((p) => p.position));
    const anchor = anchors?.get(key);
    const from = anchor && anchor.position < nearest ? anchor : undefined;
    const range = db('records').where({ parent_key: key }).andWhere('position', '<=', furthest);
    if (from) range.andWhere('position', '>', from.position);
    const numbered = range.select('rid').rowNumber('n', 'position');
    const skipped = from ? from.rank + 1 : 0;
    for (let i = 0; i < group.length; i += 500) {
      const rows = await db.from(numbered.clone().as('s')).whereIn('rid', group.slice(i, i + 500).map((p) => p.rid)).select('rid', 'n');
      for (const r of rows as Array<{ rid: number; n: number }>) out.set(Number(r.rid), skipped + Number(r.n) - 1);
    }
    const last = group.find((p) => p.position === furthest)!;
    if (anchors && out.has(last.rid) && (!anchor || anchor.position < furthest)) anchors.set(key, { position: furthest, rank: out.get(last.rid)! });
  }
  return out;
}

/**
 * MySQL (REPEATABLE READ) answers a plain SELECT from the snapshot its transaction took at its
 * first read, which may be older than the sibling-group lock place() waited for: positions are
 * read with FOR UPDATE there, which reads what is committed. SQLite has one writer at a time.
 */
function currentRead(db: Db): string {
  return onMysql(db) ? ' FOR UPDATE' : '';
}

/** The first or last physical position in a sibling group: one step down the (parent_key, position) index. */
async function edgePosition(db: Db, key: string, edge: 'min' | 'max'): Promise<number | undefined> {
  const st = await Statements.of(db);
  const sql = `SELECT ${edge === 'min' ? 'MIN' : 'MAX'}(\`position\`) AS \`p\` FROM \`records\` WHERE \`parent_key\` = ?${currentRead(db)}`;
  const [row] = await st.all<{ p: number | null }>(sql, [key]);
  const p = row?.p;
  return p === null || p === undefined ? undefined : Number(p);
}

async function siblingPositions(db: Db, key: string, offset: number, limit: number): Promise<number[]> {
  const query = db('records').where({ parent_key: key }).orderBy('position').offset(offset).limit(limit).select('position');
  if (onMysql(db)) query.forUpdate();
  const rows = await query;
  return rows.map((r: { position: number }) => Number(r.position));
}

/** Opens a gap before `from` by moving every sibling at or after it up one STEP. */
async function shiftFrom(db: Db, key: string, from: number): Promise<void> {
  // Through a parking key, so the unique (parent_key, position) index never sees a clash mid-update.
  const parked = `~${key}`;
  await db('records').where({ parent_key: key }).andWhere('position', '>=', from).update({ parent_key: parked });
  await db('records').where({ parent_key: parked }).update({ parent_key: key, position: db.raw('position + ?', [STEP]) });
}

/** The columns that place a row in a sibling group. */
export interface PlaceColumns {
  parent_key: string;
  parent_rid: number | null;
  position: number;
  root_uri: string;
}

/** MySQL: writers placing into the same sibling group queue on its parent row instead of racing. */
async function lockGroup(db: Db, rootUri: string, parentRid: number | null): Promise<void> {
  const key = parentKey(rootUri, parentRid);
  const memo = transactionMemo(db);
  if (!onMysql(db) || memo?.lockedGroups.has(key)) return;
  const parent = db('records');
  if (parentRid === null) parent.where({ uri: rootUri });
  else parent.where({ rid: parentRid });
  await parent.forUpdate().first('rid');
  memo?.lockedGroups.add(key);
}

/** lockGroup and the group's last position (edgePosition 'max'), read in one batch (Statements.batch: one round trip on MySQL). */
async function lockGroupReadingEnd(db: Db, rootUri: string, parentRid: number | null, key: string): Promise<number | undefined> {
  const st = await Statements.of(db);
  // The root's row its touch will rewrite, read locked after the group's lock (touches.ts): no round trip of the touch's own.
  const root = rootReadForTouch(db, st, rootUri);
  const [, end, rootRows] = await st.batch([
    parentRid === null
      ? { sql: 'SELECT `rid` FROM `records` WHERE `uri` = ? LIMIT 1 FOR UPDATE', params: [rootUri], read: true }
      : { sql: 'SELECT `rid` FROM `records` WHERE `rid` = ? LIMIT 1 FOR UPDATE', params: [parentRid], read: true },
    { sql: 'SELECT MAX(`position`) AS `p` FROM `records` WHERE `parent_key` = ? FOR UPDATE', params: [key], read: true },
    ...(root ? [root] : []),
  ]);
  if (rootRows) noteLockedRows(db, rootRows as LockedRow[]);
  transactionMemo(db)?.lockedGroups.add(key);
  const p = (end as Array<{ p: number | null }>)[0]?.p;
  return p === null || p === undefined ? undefined : Number(p);
}

/**
 * Where a node goes in the sibling group of `parentRid` (null: the top level) under `rootUri`, at
 * logical `index` (clamped; undefined appends). Appends and inserts at the front read one end of
 * the group's index, so their cost does not grow with the number of siblings; an insert between
 * two adjacent positions first moves the siblings after it. The node itself must not be in the
 * group (a new one, or one taken out of it).
 */
async function placeIn(db: Db, rootUri: string, parentRid: number | null, index: number | undefined, locked = false, parentUri?: string): Promise<PlaceColumns> {
  const key = parentKey(rootUri, parentRid);
  const memo = transactionMemo(db);
  // A parent this transaction inserted is locked by its insert and seen by no other transaction,
  // so its group holds only what this transaction placed there: where it placed nothing yet, the
  // first child goes at 0 without the group's lock and end (two round trips on MySQL for each new
  // parent of an import). A move, a deletion or a savepoint forgets what the memo kept. A parent
  // prepared with it and not inserted yet (TransactionMemo.pending) has a stand-in row id: its
  // children are placed from the memo alone, and their places name its row once it is inserted.
  const fresh = parentUri === undefined ? undefined : memo?.inserted.get(parentUri) ?? memo?.pending.get(parentUri);
  if (index === undefined && !locked && parentRid !== null && memo && fresh?.rid === parentRid && !memo.placed.has(key)) {
    memo.placed.add(key);
    memo.lockedGroups.add(key);
    memo.lastPosition.set(key, 0);
    return { parent_key: key, parent_rid: parentRid, position: 0, root_uri: rootUri };
  }
  memo?.placed.add(key);
  // An append into a group not locked yet: the lock and the end of the group in one round trip.
  const lockAndEnd = index === undefined && !locked && onMysql(db) && !memo?.lockedGroups.has(key) && memo?.lastPosition.get(key) === undefined;
  if (!locked && !lockAndEnd) await lockGroup(db, rootUri, parentRid);
  // Where this transaction appended last is still the end of the group (it holds the group, and
  // a node leaving the group only leaves a gap): children written in order read the end once.
  const append = async () => {
    const last = memo?.lastPosition.get(key) ?? await edgePosition(db, key, 'max');
    return last === undefined ? 0 : last + STEP;
  };
  let position: number;
  if (lockAndEnd) {
    const last = await lockGroupReadingEnd(db, rootUri, parentRid, key);
    position = last === undefined ? 0 : last + STEP;
  } else if (index === undefined) position = await append();
  else if (index <= 0) {
    const first = await edgePosition(db, key, 'min');
    position = first === undefined ? 0 : first - STEP;
  } else {
    const [left, right] = await siblingPositions(db, key, index - 1, 2);
    if (left === undefined) position = await append();
    else if (right === undefined) position = left + STEP;
    else if (right - left > 1) position = Math.floor((left + right) / 2);
    else {
      await shiftFrom(db, key, right);
      memo?.lastPosition.delete(key);
      position = left + Math.floor(STEP / 2);
    }
  }
  const last = memo?.lastPosition.get(key);
  if (memo && (index === undefined || (last !== undefined && position > last))) memo.lastPosition.set(key, position);
  return { parent_key: key, parent_rid: parentRid, position, root_uri: rootUri };
}

/**
 * The place of a node about to be created, as the columns its row is inserted with: one statement
 * per node fewer than inserting it and then placing it (a round trip on MySQL; an import or a bulk
 * load writes thousands).
 */
export function placeNew(db: Db, rootUri: string, parentRid: number | null, index?: number, parentUri?: string): Promise<PlaceColumns> {
  return placeIn(db, rootUri, parentRid, index, false, parentUri);
}

/** A parent read with the lock of its sibling group (placeNewUnder). */
export interface ParentRow {
  rid: number;
  type: string;
  root_uri: string | null;
}

/**
 * MySQL, a single write appending a new node (pipeline.ts): the node's parent named by its URI is
 * read and locked with the end of its sibling group (and the root its touch will rewrite) in one
 * round trip, instead of a read of the parent before the write's insert and the group's lock
 * after it (issue 51 item 2). `check` throws the write's error where the parent may not take the
 * node. Undefined elsewhere: the caller reads the parent and places the node with placeNew.
 */
export async function placeNewUnder(db: Db, rootUri: string, parentUri: string, check: (parent: ParentRow | undefined) => ParentRow): Promise<PlaceColumns | undefined> {
  const st = await Statements.of(db);
  const memo = transactionMemo(db);
  if (!st.pipelined || !memo || memo.inserted.has(parentUri) || memo.pending.has(parentUri)) return undefined;
  const root = rootReadForTouch(db, st, rootUri);
  const [parentRows, end, rootRows] = await st.batch([
    { sql: 'SELECT `rid`, `type`, `root_uri` FROM `records` WHERE `uri` = ? LIMIT 1 FOR UPDATE', params: [parentUri], read: true },
    {
      sql: "SELECT MAX(`position`) AS `p` FROM `records` WHERE `parent_key` = CONCAT('node:', (SELECT `rid` FROM `records` WHERE `uri` = ? LIMIT 1)) FOR UPDATE",
      params: [parentUri], read: true,
    },
    ...(root ? [root] : []),
  ]);
  if (rootRows) noteLockedRows(db, rootRows as LockedRow[]);
  const parent = check((parentRows as ParentRow[])[0]);
  const key = parentKey(rootUri, Number(parent.rid));
  memo.lockedGroups.add(key);
  const p = (end as Array<{ p: number | null }>)[0]?.p;
  const position = p === null || p === undefined ? 0 : Number(p) + STEP;
  memo.lastPosition.set(key, position);
  return { parent_key: key, parent_rid: Number(parent.rid), position, root_uri: rootUri };
}

/**
 * Puts node `rid` into the sibling group of `parentRid` under `rootUri` at logical `index`
 * (clamped; undefined appends), out of the group it was in.
 */
export async function place(db: Db, rid: number, rootUri: string, parentRid: number | null, index?: number): Promise<void> {
  // A node that moves may change roots: what the transaction kept of the rows it inserted is forgotten.
  transactionMemo(db)?.inserted.clear();
  await lockGroup(db, rootUri, parentRid);
  const st = await Statements.of(db);
  // Out of every sibling group first, so computing the new place never meets the old one.
  await st.update('records', { parent_key: null, position: null }, { rid });
  await st.update('records', { ...(await placeIn(db, rootUri, parentRid, index, true)) }, { rid });
}

/** rids of every node below `rid` (children, their children...), deepest last. */
export async function descendants(db: Db, rid: number): Promise<number[]> {
  const result = await db.raw(
    `WITH RECURSIVE below(rid) AS (
       SELECT rid FROM records WHERE parent_rid = ?
       UNION ALL
       SELECT r.rid FROM records r JOIN below b ON r.parent_rid = b.rid
     ) SELECT rid FROM below`,
    [rid],
  );
  const rows = Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result;
  return (rows as Array<{ rid: number }>).map((r) => Number(r.rid));
}

/** A node's chain as {rid, uri, json}, nearest first: from the node itself (depth 0) or from its parent (depth 1). */
async function chainOf(db: Db, rid: number, fromDepth: 0 | 1): Promise<Ancestor[]> {
  const result = await db.raw(
    `WITH RECURSIVE chain(rid, parent_rid, uri, json, depth) AS (
       SELECT rid, parent_rid, uri, json, 0 FROM records WHERE rid = ?
       UNION ALL
       SELECT r.rid, r.parent_rid, r.uri, r.json, c.depth + 1 FROM records r JOIN chain c ON r.rid = c.parent_rid
     ) SELECT rid, uri, json, depth FROM chain WHERE depth >= ? ORDER BY depth`,
    [rid, fromDepth],
  );
  const rows = Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result;
  return (rows as Ancestor[]).map((r) => ({ rid: Number(r.rid), uri: r.uri, json: r.json }));
}

/** Parents whose chains one statement reads (and ancestors' JSON one statement reads). */
const CHAINS_ASKED = 200;

export interface Ancestor {
  rid: number;
  uri: string;
  json: string;
}

/** The chain of parents of a node, nearest first. */
export function ancestorsOf(db: Db, rid: number): Promise<Ancestor[]> {
  return chainOf(db, rid, 1);
}

/**
 * The chain of parents of each node (nearest first; none at the top level): one recursive read of
 * the steps from every distinct parent at once (CHAINS_ASKED parents a statement), then each
 * ancestor's JSON once however many chains hold it. A query per parent cost 1 ms each on MariaDB,
 * and the indexer asked one for each new component of a nested sheet (11,320 for 10,000 rows: 12 s).
 */
export async function ancestorChains(db: Db, nodes: Iterable<{ rid: number; parent_rid: number | null }>): Promise<Map<number, Ancestor[]>> {
  const list = [...nodes];
  const parents = [...new Set(list.filter((n) => n.parent_rid !== null).map((n) => Number(n.parent_rid)))];
  const stepsFrom = new Map<number, Array<{ rid: number; depth: number }>>();
  for (let i = 0; i < parents.length; i += CHAINS_ASKED) {
    const slice = parents.slice(i, i + CHAINS_ASKED);
    const result = await db.raw(
      `WITH RECURSIVE chain(start, rid, parent_rid, depth) AS (
         SELECT rid, rid, parent_rid, 0 FROM records WHERE rid IN (${slice.map(() => '?').join(', ')})
         UNION ALL
         SELECT c.start, r.rid, r.parent_rid, c.depth + 1 FROM records r JOIN chain c ON r.rid = c.parent_rid
       ) SELECT start, rid, depth FROM chain`,
      slice,
    );
    const rows = Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result;
    for (const row of rows as Array<{ start: number; rid: number; depth: number }>) {
      const start = Number(row.start);
      const steps = stepsFrom.get(start) ?? stepsFrom.set(start, []).get(start)!;
      steps.push({ rid: Number(row.rid), depth: Number(row.depth) });
    }
  }
  const ancestor = new Map<number, Ancestor>();
  const rids = [...new Set([...stepsFrom.values()].flatMap((steps) => steps.map((step) => step.rid)))];
  for (let i = 0; i < rids.length; i += CHAINS_ASKED) {
    for (const row of await db('records').whereIn('rid', rids.slice(i, i + CHAINS_ASKED)).select('rid', 'uri', 'json')) {
      ancestor.set(Number(row.rid), { rid: Number(row.rid), uri: row.uri, json: row.json });
    }
  }
  const chainOfParent = new Map<number, Ancestor[]>();
  for (const [start, steps] of stepsFrom) {
    chainOfParent.set(start, steps.sort((x, y) => x.depth - y.depth).flatMap((step) => ancestor.get(step.rid) ?? []));
  }
  return new Map(list.map((n) => [n.rid, n.parent_rid === null ? [] : chainOfParent.get(Number(n.parent_rid)) ?? []]));
}

/** A single write on MySQL (pipeline.ts), where placeNewUnder reads a new node's parent with its group's lock. */
export async function canPlaceUnder(db: Db): Promise<boolean> {
  return (await Statements.of(db)).pipelined;
}
