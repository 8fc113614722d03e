import { errors } from '../../errors';
import type { TreeRole, TreeViewPart, TypeInfo } from '../../registry';
import type { Services } from '../context';
import type { Obj } from '../../json';
import { treeNodes, treePage, type TreeNodeRow } from '../../store/tree-pages';
import { idsOfRids, nodeRidInTree, publishedChildCount, publishedChildCounts, recordAtIn, recordOfTypeIn, recordsByUri } from '../../store/tree-views';
import type { Queryable } from '../../store/dialect';
import { childCount, childCountsOf } from '../../store/child-counts';
import { keptUntilNextWrite } from '../../store/until-next-write';
import { ancestorsOf, logicalPosition, parentKey, placeOf, waypointStarts } from '../../store/positions';

/** Children of any node are cut into pages of this size (trees-and-positions.md section 5). */
export const WAYPOINT_SIZE = 200;

type Db = Queryable;

export interface TreeTypes {
  root: TypeInfo;
  node: TypeInfo;
}

/** Staff views read the counts the store keeps; the public user's view counts published children. */
async function countChildren(s: Services, db: Db, key: string, publishedOnly: boolean): Promise<number> {
  if (!publishedOnly) return childCount(db, key);
  return publishedChildCount(s.db, key, db);
}

/** Child counts of many nodes in one query. */
async function childCounts(s: Services, db: Db, rids: number[], publishedOnly: boolean): Promise<Map<number, number>> {
  if (!rids.length) return new Map();
  if (!publishedOnly) {
    const kept = await childCountsOf(db, rids.map((rid) => parentKey('', rid)));
    return new Map(rids.map((rid) => [rid, kept.get(parentKey('', rid)) ?? 0]));
  }
  return publishedChildCounts(s.db, rids, db);
}

function identifierOf(record: Obj): string | undefined {
  const parts = [record.id_0, record.id_1, record.id_2, record.id_3].filter((p) => p !== undefined && p !== '');
  return parts.length ? parts.join('-') : undefined;
}

function hasDigitalInstance(record: Obj): boolean {
  return (record.instances ?? []).some((i: Obj) => i.instance_type === 'digital_object');
}

const ARCHIVAL_VIEW: Required<NonNullable<TreeRole['view']>> = {
  root: ['level', 'four_part_id', 'containers'],
  node: ['component_id', 'level', 'containers'],
};

function viewOf(tree: TreeRole | undefined, which: 'root' | 'node'): TreeViewPart[] {
  return tree?.view?.[which] ?? ARCHIVAL_VIEW[which];
}

/** Adds the parts a tree's schema asks for (x-archive.tree.view) to a view entry, in order. */
async function addViewParts(db: Db, out: Obj, r: Obj, parts: TreeViewPart[]): Promise<void> {
  for (const part of parts) {
    if (part === 'component_id') out.identifier = r.component_id ?? null;
    else if (part === 'four_part_id') out.identifier = identifierOf(r);
    else if (part === 'identifier') out.identifier = r.identifier ?? null;
    else if (part === 'level') out.level = levelOf(r);
    else if (part === 'label') out.label = r.label;
    else if (part === 'digital_object_type') out.digital_object_type = r.digital_object_type;
    else if (part === 'file_uri_summary') {
      const summary = fileUriSummary(r);
      if (summary) out.file_uri_summary = summary;
    } else if (part === 'containers') {
      const containers = await containersOf(db, r);
      if (containers) out.containers = containers;
    }
  }
}

const pick = (obj: Obj, keys: string[]) => Object.fromEntries(keys.filter((k) => obj[k] !== undefined && obj[k] !== '').map((k) => [k, obj[k]]));

async function containersOf(db: Db, record: Obj): Promise<Obj[] | undefined> {
  const instances = (record.instances ?? []).filter((i: Obj) => i.sub_container);
  if (!instances.length) return undefined;
  const uris = instances.map((i: Obj) => i.sub_container.top_container?.ref).filter(Boolean);
  const boxes = await recordsByUri(db, uris);
  return instances.map((i: Obj) => {
    const box: Obj = boxes.get(i.sub_container.top_container?.ref) ?? {};
    return pick(
      { instance_type: i.instance_type, top_container_type: box.type, top_container_indicator: box.indicator, top_container_barcode: box.barcode, ...i.sub_container },
      ['instance_type', 'top_container_type', 'top_container_indicator', 'top_container_barcode', 'type_2', 'indicator_2', 'barcode_2', 'type_3', 'indicator_3'],
    );
  });
}

function levelOf(record: Obj): string | undefined {
  return record.other_level ?? record.level;
}

function fileUriSummary(record: Obj): string | undefined {
  const uris = (record.file_versions ?? []).map((f: Obj) => f.file_uri).filter(Boolean);
  return uris.length ? uris.join(', ') : undefined;
}

/**
 * The position of the first record of each waypoint of a sibling group, kept until the next write:
 * waypoint 250 of 100,000 siblings starts at a known position instead of skipping 50,000 index
 * entries on every call. Staff views outside a transaction only (the public view filters).
 */
async function waypointStart(s: Services, db: Db, key: string, offset: number): Promise<number | null | undefined> {
  if (offset === 0 || db !== s.db.reads) return undefined;
  const starts = await keptUntilNextWrite(s, `waypoint-starts:${key}`, () => waypointStarts(db, key, WAYPOINT_SIZE));
  return offset < starts.length ? starts[offset] : null;
}

/**
 * One waypoint: the records offset*200 .. offset*200+199 of a sibling group, in order. Outside a
 * transaction it is kept until the next write (a tree is browsed far more often than written:
 * each waypoint parses 200 records).
 */
export async function waypoint(s: Services, db: Db, key: string, offset: number, publishedOnly: boolean): Promise<Obj[]> {
  if (db !== s.db.reads) return readWaypoint(s, db, key, offset, publishedOnly);
  return keptUntilNextWrite(s, `waypoint:${publishedOnly ? 'public' : 'staff'}:${key}:${offset}`,
    () => readWaypoint(s, db, key, offset, publishedOnly), (entries) => entries.length);
}

async function readWaypoint(s: Services, db: Db, key: string, offset: number, publishedOnly: boolean): Promise<Obj[]> {
  const start = publishedOnly ? undefined : await waypointStart(s, db, key, offset);
  if (start === null) return [];
  const nodes: TreeNodeRow[] = await treePage(s.db, key, start === undefined
    ? { skip: offset * WAYPOINT_SIZE, size: WAYPOINT_SIZE, publishedOnly }
    : { from: start, size: WAYPOINT_SIZE }, db);
  const counts = await childCounts(s, db, nodes.map((n) => n.rid), publishedOnly);
  const parentRids = [...new Set(nodes.map((n) => n.parent_rid).filter((p): p is number => p !== null))];
  const parentIds = await idsOfRids(db, parentRids);
  const entries: Obj[] = [];
  for (const [i, node] of nodes.entries()) {
    const r = node.record;
    const children = counts.get(node.rid) ?? 0;
    const entry: Obj = {
      child_count: children,
      waypoints: Math.ceil(children / WAYPOINT_SIZE),
      waypoint_size: WAYPOINT_SIZE,
      title: r.title ?? null,
      slugged_url: '',
      parsed_title: r.title ?? null,
      uri: node.uri,
      position: offset * WAYPOINT_SIZE + i,
      parent_id: node.parent_rid === null ? null : parentIds.get(node.parent_rid) ?? null,
      suppressed: r.suppressed ? 1 : 0,
      jsonmodel_type: r.jsonmodel_type,
      has_digital_instance: hasDigitalInstance(r),
    };
    await addViewParts(db, entry, r, viewOf(s.registry.types[r.jsonmodel_type]?.tree, 'node'));
    if (r.dates?.length) entry.dates = r.dates.map((d: Obj) => pick({ type: d.date_type, ...d }, ['type', 'label', 'expression', 'begin', 'end']));
    entries.push(entry);
  }
  return entries;
}

async function rootRow(db: Db, types: TreeTypes, repoId: number, id: number) {
  const row = await recordOfTypeIn(db, types.root.name, id, repoId);
  if (!row) throw errors.notFound(types.root.model);
  return { ...row, suppressed: row.suppressed ? 1 : 0 };
}

/** GET <root>/:id/tree/root */
export async function treeRoot(s: Services, types: TreeTypes, repoId: number, id: number, publishedOnly: boolean): Promise<Obj> {
  const db = s.db.reads;
  const root = await rootRow(db, types, repoId, id);
  const key = parentKey(root.uri, null);
  const count = await countChildren(s, db, key, publishedOnly);
  const r = root.record;
  const out: Obj = {
    child_count: count,
    waypoints: Math.ceil(count / WAYPOINT_SIZE),
    waypoint_size: WAYPOINT_SIZE,
    title: r.title,
    uri: root.uri,
    slugged_url: '',
    jsonmodel_type: types.root.name,
    parsed_title: r.title,
    suppressed: root.suppressed,
    has_digital_instance: hasDigitalInstance(r),
  };
  await addViewParts(db, out, r, viewOf(types.node.tree, 'root'));
  out.precomputed_waypoints = count ? { '': { '0': await waypoint(s, db, key, 0, publishedOnly) } } : {};
  return out;
}

async function nodeByUri(db: Db, types: TreeTypes, repoId: number, uri: string, param: string) {
  const m = new RegExp(types.node.uriPattern!).exec(uri);
  if (!m) throw errors.notAUri(param, `a ${types.node.name}`, uri);
  const row = await recordAtIn(db, uri, repoId);
  if (!row) throw errors.notFound(types.node.model);
  return row;
}

/** GET <root>/:id/tree/waypoint?offset=&parent_node= */
export async function treeWaypoint(
  s: Services, types: TreeTypes, repoId: number, id: number, offset: number, parentNode: string | undefined, publishedOnly: boolean,
): Promise<Obj[]> {
  const db = s.db.reads;
  const root = await rootRow(db, types, repoId, id);
  const parent = parentNode ? await nodeByUri(db, types, repoId, parentNode, 'parent_node') : undefined;
  return waypoint(s, db, parent ? parentKey(root.uri, parent.rid) : parentKey(root.uri, null), offset, publishedOnly);
}

/** GET <root>/:id/tree/node?node_uri= */
export async function treeNode(s: Services, types: TreeTypes, repoId: number, _id: number, nodeUri: string, publishedOnly: boolean): Promise<Obj> {
  const db = s.db.reads;
  const node = await nodeByUri(db, types, repoId, nodeUri, 'node_uri');
  const place = await placeOf(db, node.rid);
  const key = parentKey(node.uri, node.rid);
  const count = await countChildren(s, db, key, publishedOnly);
  const out: Obj = {
    child_count: count,
    waypoints: Math.ceil(count / WAYPOINT_SIZE),
    waypoint_size: WAYPOINT_SIZE,
    title: node.record.display_string ?? node.record.title,
    uri: node.uri,
    // 1-based here, unlike everywhere else (section 5.3).
    position: place ? (await logicalPosition(db, place)) + 1 : 1,
    jsonmodel_type: types.node.name,
    has_digital_instance: hasDigitalInstance(node.record),
  };
  // A node's own view carries only its identifier; the rest is in its parent's waypoint.
  if (viewOf(types.node.tree, 'node').includes('component_id')) out.identifier = node.record.component_id ?? null;
  out.precomputed_waypoints = count ? { [node.uri]: { '0': await waypoint(s, db, key, 0, publishedOnly) } } : {};
  return out;
}

/** GET <root>/:id/tree/node_from_root?node_ids[]= : the path of waypoints from the root to each node. */
export async function treeNodeFromRoot(s: Services, types: TreeTypes, repoId: number, id: number, nodeIds: number[]): Promise<Obj> {
  const db = s.db.reads;
  const root = await rootRow(db, types, repoId, id);
  const out: Obj = {};
  for (const nodeId of nodeIds) {
    const rid = await nodeRidInTree(db, types.node.name, nodeId, repoId, root.uri);
    // The original fails with a 500 for an unknown id.
    if (rid === undefined) throw errors.notFound(types.node.model);
    const chain = (await ancestorsOf(db, rid)).reverse();
    const path = [...chain.map((c) => c.rid), rid];
    const offsetOf = async (rid: number) => {
      const place = await placeOf(db, rid);
      // (siblings at or before the record) div 200, a 1-based count, as the source computes it.
      return place ? Math.floor(((await logicalPosition(db, place)) + 1) / WAYPOINT_SIZE) : 0;
    };
    const steps: Obj[] = [{
      node: null, root_record_uri: root.uri, offset: await offsetOf(path[0]),
      jsonmodel_type: types.root.name, title: root.record.title, parsed_title: root.record.title,
    }];
    for (const [k, ancestor] of chain.entries()) {
      const record = JSON.parse(ancestor.json);
      steps.push({
        node: ancestor.uri, root_record_uri: root.uri, jsonmodel_type: types.node.name,
        title: record.display_string ?? record.title, offset: await offsetOf(path[k + 1]), parsed_title: record.display_string ?? record.title,
      });
    }
    out[String(nodeId)] = steps;
  }
  return out;
}

/** Every node of a tree, children sorted by position: for ordered_records and the full tree. */
async function wholeTree(s: Services, rootUri: string): Promise<{ byParent: Map<number | null, TreeNodeRow[]> }> {
  const rows = await treeNodes(s.db, rootUri, { shownOnly: false });
  const byParent = new Map<number | null, TreeNodeRow[]>();
  for (const row of rows) byParent.set(row.parent_rid, [...(byParent.get(row.parent_rid) ?? []), row]);
  return { byParent };
}

const visible = (record: Obj) => record.publish === true && record.suppressed !== true;

/** GET <root>/:id/ordered_records: the published tree, depth first. */
export async function orderedRecords(s: Services, types: TreeTypes, repoId: number, id: number): Promise<Obj> {
  const db = s.db.reads;
  const root = await rootRow(db, types, repoId, id);
  const uris: Obj[] = [];
  if (visible(root.record) && !root.suppressed) {
    uris.push({ ref: root.uri, display_string: root.record.title, depth: 0, level: levelOf(root.record) });
    const { byParent } = await wholeTree(s, root.uri);
    const walk = (parent: number | null, depth: number) => {
      for (const node of byParent.get(parent) ?? []) {
        if (!visible(node.record)) continue;
        uris.push({ ref: node.uri, display_string: node.record.display_string, depth, level: levelOf(node.record) });
        walk(node.rid, depth + 1);
      }
    };
    walk(null, 1);
  }
  return { uris, jsonmodel_type: `${types.root.name}_ordered_records` };
}

/** The complete tree in one object (GET <root>/:id/tree and resolve[]=tree). */
export async function fullTree(s: Services, types: TreeTypes, repoId: number, id: number): Promise<Obj> {
  const db = s.db.reads;
  const root = await rootRow(db, types, repoId, id);
  const { byParent } = await wholeTree(s, root.uri);
  const build = (parent: number | null): Obj[] =>
    (byParent.get(parent) ?? []).map((node) => {
      const children = build(node.rid);
      return {
        title: node.record.display_string ?? node.record.title, id: node.id, record_uri: node.uri,
        publish: node.record.publish === true, suppressed: node.record.suppressed === true, node_type: types.node.name,
        level: levelOf(node.record), component_id: node.record.component_id,
        has_children: children.length > 0, children,
      };
    });
  return {
    title: root.record.title, id, node_type: types.root.name, publish: root.record.publish === true,
    suppressed: !!root.suppressed, record_uri: root.uri, level: levelOf(root.record), children: build(null),
  };
}



