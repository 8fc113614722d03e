import { errors } from '../../errors';
import type { Actor, Services } from '../context';
import { createRecords } from '../create-batch';
import { createRecord, updateRecord } from '../write';
import { decorateRecords } from '../load';
import { RecordQueries } from '../../store/records';
import type { Queryable } from '../../store/dialect';
import { childrenJson, previousSiblingJson, ridsOfUris, takeOutOfPlace, touchRecord } from '../../store/trees';
import { holdDerivedRows } from '../../store/transaction-memo';
import type { Obj } from '../../json';
import { ancestorsOf, place, placeOf } from '../../store/positions';
import type { TreeTypes } from './views';
import { writeTransaction } from '../context';

async function nodeRow(db: Queryable, types: TreeTypes, repoId: number, id: number) {
  const row = await new RecordQueries(db).keysOf(types.node.name, id, repoId);
  if (!row) throw errors.notFound(types.node.model);
  return { rid: row.rid, id: row.id, uri: row.uri, lock_version: row.lock_version, root_uri: row.root_uri as string };
}

/** A tree's root by id: its URI and lock_version. */
async function rootRow(db: Queryable, types: TreeTypes, repoId: number, id: number) {
  const root = await new RecordQueries(db).keysOf(types.root.name, id, repoId);
  if (!root) throw errors.notFound(types.root.model);
  return { rootUri: root.uri, answer: { id, lock_version: root.lock_version } };
}

const cycle = errors.treeCycle;

/** POST <node>/:id/parent?parent=<id>&position=<n> (section 4.1). Moves keep lock_version. */
export async function moveUnderParent(s: Services, types: TreeTypes, repoId: number, id: number, parentId: number | undefined, position: number) {
  return writeTransaction(s, async (trx) => {
    const node = await nodeRow(trx, types, repoId, id);
    let parentRid: number | null = null;
    if (parentId !== undefined) {
      if (parentId === id) throw errors.invalidParam('parent', "Can't make a record into its own parent");
      const parent = await nodeRow(trx, types, repoId, parentId);
      if (parent.root_uri !== node.root_uri) {
        throw errors.notIn('parent', 'the new parent', node.root_uri);
      }
      if ((await ancestorsOf(trx, parent.rid)).some((a) => a.rid === node.rid)) throw cycle();
      parentRid = parent.rid;
    }
    await place(trx, node.rid, node.root_uri, parentRid, position);
    await touchRecord(trx, types.node.name, node.rid, node.uri);
    return { status: 'Updated', id, lock_version: node.lock_version, stale: null };
  });
}

/**
 * POST <root or node>/:id/accept_children (section 4.2): the children end up consecutive, in the
 * order given, from index `position` (clamped to the end).
 */
export async function acceptChildren(
  s: Services, types: TreeTypes, repoId: number, target: { kind: 'root' | 'node'; id: number }, children: string[], position: number,
) {
  return writeTransaction(s, async (trx) => {
    let rootUri: string;
    let parentRid: number | null = null;
    let answer: { id: number; lock_version: number };
    if (target.kind === 'node') {
      const node = await nodeRow(trx, types, repoId, target.id);
      const above = new Set([node.rid, ...(await ancestorsOf(trx, node.rid)).map((a) => a.rid)]);
      rootUri = node.root_uri;
      parentRid = node.rid;
      answer = node;
      if ((await ridsOfUris(trx, children)).some((rid) => above.has(rid))) throw cycle();
    } else {
      ({ rootUri, answer } = await rootRow(trx, types, repoId, target.id));
    }
    const moving = [];
    const q = new RecordQueries(trx);
    for (const uri of children) {
      const row = await q.keysAt(uri);
      if (!row || row.type !== types.node.name || row.repo_id !== repoId) throw errors.missingLinkTarget(uri);
      if (row.root_uri !== rootUri) throw errors.notIn('children', uri, rootUri);
      moving.push({ rid: row.rid, uri });
    }
    // Take them all out first, so `position` counts only the siblings that stay.
    for (const child of moving) await takeOutOfPlace(trx, child.rid);
    for (const [i, child] of moving.entries()) {
      await place(trx, child.rid, rootUri, parentRid, position + i);
      await touchRecord(trx, types.node.name, child.rid, child.uri);
    }
    return { status: 'Updated', id: answer.id, lock_version: answer.lock_version, stale: null };
  });
}

async function recordsOf(s: Services, rows: Array<{ json: string }>): Promise<Obj[]> {
  const records = rows.map((r) => JSON.parse(r.json));
  await decorateRecords(s, records);
  return records;
}

/** GET <node>/:id/children: full records of the direct children, in order. */
export async function childrenOf(s: Services, types: TreeTypes, repoId: number, id: number): Promise<Obj[]> {
  const node = await nodeRow(s.db.reads, types, repoId, id);
  return recordsOf(s, await childrenJson(s.db.reads, node.rid));
}

/** GET <node>/:id/previous: the previous sibling, else the parent. */
export async function previousOf(s: Services, types: TreeTypes, repoId: number, id: number): Promise<Obj> {
  const db = s.db.reads;
  const node = await nodeRow(db, types, repoId, id);
  const where = await placeOf(db, node.rid);
  if (!where) throw errors.noPreviousNode();
  const before = await previousSiblingJson(db, where.parent_key, where.position);
  if (before) return (await recordsOf(s, [before]))[0];
  if (where.parent_rid === null) throw errors.noPreviousNode();
  const parent = await new RecordQueries(db).jsonOf(where.parent_rid);
  return (await recordsOf(s, [parent!]))[0];
}


/**
 * POST <root or node>/:id/children (section 4.3): creates the children in order under the target,
 * in one transaction: either all of them are created or none.
 */
export async function createChildren(
  s: Services, actor: Actor, types: TreeTypes, repoId: number, target: { kind: 'root' | 'node'; id: number }, children: Obj[],
) {
  const { rootProperty, parentProperty } = types.node.tree!;
  return writeTransaction(s, async (trx) => {
    holdDerivedRows(trx, { uniqueKeys: true });
    let rootUri: string;
    let parentUri: string | undefined;
    let answer: { id: number; lock_version: number };
    if (target.kind === 'node') {
      const node = await nodeRow(trx, types, repoId, target.id);
      rootUri = node.root_uri;
      parentUri = node.uri;
      answer = node;
    } else {
      ({ rootUri, answer } = await rootRow(trx, types, repoId, target.id));
    }
    const where = { type: types.node, repoId };
    // Children appended in order are created together (their places come from the transaction's
    // memo); one with a position of its own reads its siblings' places, so those before it are written first.
    let appended: Obj[] = [];
    for (const child of children) {
      const body: Obj = { ...child, [rootProperty]: { ref: rootUri } };
      if (parentUri) body[parentProperty] = { ref: parentUri };
      else delete body[parentProperty];
      if (body.position === undefined) {
        appended.push(body);
        continue;
      }
      await createRecords(s, actor, where, appended, trx);
      appended = [];
      await createRecord(s, actor, where, body, {}, { trx });
    }
    await createRecords(s, actor, where, appended, trx);
    return { status: 'Updated', id: answer.id, lock_version: answer.lock_version, stale: null };
  });
}

export interface ComponentTransfer {
  component: string;
  [target: string]: string | null;
}

/**
 * POST /repositories/:repo_id/<tree.transfer.route> (ArchivesSpace's component transfer): the node
 * goes to the end of the target root's top level, its subtree with it (the node hooks carry it), as
 * an update of the node; then an event of the declared type links the old root (source), the new
 * one (outcome) and the node (transfer), with the repository's agent as implementer — left out
 * when the repository has no agent, as an event needs one.
 */
export async function transferComponent(
  s: Services, actor: Actor, types: TreeTypes, repoId: number, targetUri: string, componentUri: string,
): Promise<ComponentTransfer> {
  const { rootProperty, parentProperty, transfer } = types.node.tree!;
  const targetParam = `target_${types.root.name}`;
  const idIn = (uri: string, base: string) => {
    const m = new RegExp(`^${base.replace(':repo_id', String(repoId))}/(\\d+)$`).exec(uri);
    return m ? Number(m[1]) : undefined;
  };
  const nodeId = idIn(componentUri, types.node.uri!);
  if (nodeId === undefined) throw errors.mustBe('component', `the URI of a ${types.node.name} in /repositories/${repoId}`);
  if (idIn(targetUri, types.root.uri!) === undefined) {
    throw errors.mustBe(targetParam, `the URI of a ${types.root.name} in /repositories/${repoId}`);
  }
  return writeTransaction(s, async (trx) => {
    const q = new RecordQueries(trx);
    const node = await q.get(types.node.name, nodeId);
    if (!node || node.repo_id !== repoId) throw errors.notFound(types.node.model);
    const target = await q.keysAt(targetUri);
    if (target?.type !== types.root.name) throw errors.invalidParam(targetParam, `${targetUri} does not exist`);
    const record = JSON.parse(node.json);
    const sourceUri: string = record[rootProperty]?.ref;
    delete record[parentProperty];
    delete record.position;
    const where = { type: types.node, repoId };
    await updateRecord(s, actor, where, nodeId, { ...record, [rootProperty]: { ref: targetUri } }, {}, { trx });
    let event: string | null = null;
    const repository = await q.jsonAt(`/repositories/${repoId}`);
    const agent = repository ? JSON.parse(repository).agent_representation?.ref : undefined;
    if (transfer?.event && agent) {
      const created = await createRecord(s, actor, { type: s.registry.type(transfer.event.type), repoId }, {
        event_type: transfer.event.event_type,
        timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        linked_records: [{ role: 'source', ref: sourceUri }, { role: 'outcome', ref: targetUri }, { role: 'transfer', ref: componentUri }],
        linked_agents: [{ role: 'implementer', ref: agent }],
      }, {}, { trx });
      event = created.uri;
    }
    return { component: componentUri, [rootProperty]: targetUri, event };
  });
}
