/**
 * The spreadsheet routes beside the spreadsheet jobs, with ArchivesSpace's paths and permissions:
 * the bulk archival-object updater's sheet and its small tree (the staff interface's picker), and
 * the CSV templates prefilled with a resource's archival objects. Each reads with view_repository.
 */
import { errors } from '../../errors';
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import { readRecord } from '../../records/load';
import type { Call, Endpoint, Reply } from '../../records/endpoint';
import { json } from '../../records/endpoint';
import { treeShapeOf } from '../../store/domain-reads';
import { treeNodes, type TreeNodeRow } from '../../store/tree-pages';
import { containerInstances, linkedRecords, type SheetNode, sheetFilename, sheetSource, writeUpdaterSheet } from './updater-sheet';
import { DIGITAL_OBJECT_TEMPLATE, identifierText, templateLines, TOP_CONTAINER_TEMPLATE } from './templates';

const id = { name: 'id', type: 'integer', required: true } as const;
const count = (name: string, fallback: number) => ({
  name, type: 'integer', default: fallback, check: (v: number) => (v >= 0 && v <= 100 ? undefined : `must be between 0 and 100 but given: ${v}`),
} as const);

/** A resource of the path's repository (404 when there is none). */
async function resourceOf(call: Call, resourceId: number): Promise<Obj> {
  return readRecord(call.s, { type: call.s.registry.type('resource'), repoId: call.repoId }, resourceId);
}

/** The resource's archival objects (row id and URI), depth first in tree order (from the tree's shape: no record is read whole). */
async function inTreeOrder(s: Services, resourceUri: string): Promise<SheetNode[]> {
  type Node = { rid: number; uri: string; position: number };
  const byParent = new Map<number | null, Node[]>();
  for (const row of await treeShapeOf(s.db, resourceUri)) {
    // Pushed, not copied: a resource of 100,000 children in one level is one list.
    const siblings = byParent.get(row.parent_rid);
    if (siblings) siblings.push(row);
    else byParent.set(row.parent_rid, [row]);
  }
  for (const siblings of byParent.values()) siblings.sort((a, b) => a.position - b.position);
  const out: SheetNode[] = [];
  const walk = (parent: number | null) => {
    for (const node of byParent.get(parent) ?? []) {
      out.push({ rid: node.rid, uri: node.uri });
      walk(node.rid);
    }
  };
  walk(null);
  return out;
}

/** The archival objects a sheet is asked for: those the `uri` list names (a JSON array), in its order, or else all the resource's. */
function chosen(call: Call, inTree: SheetNode[]): SheetNode[] {
  if (call.params.uri === undefined) return inTree;
  let uris: unknown;
  try {
    uris = JSON.parse(String(call.params.uri));
  } catch {
    uris = undefined;
  }
  if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) throw errors.invalidParam('uri', 'must be a JSON array of archival object URIs');
  const known = new Map(inTree.map((n) => [n.uri, n]));
  // As ArchivesSpace, URIs of other record types are passed over; an archival object must be one of the resource's.
  return (uris as string[]).filter((u) => /\/archival_objects\/\d+$/.test(u)).map((u) => {
    const node = known.get(u);
    if (!node) throw errors.invalidParam('uri', `${u} is not an archival object of the resource`);
    return node;
  });
}

async function generateSheet(call: Call): Promise<Reply> {
  const m = /^\/repositories\/(\d+)\/resources\/(\d+)$/.exec(String(call.params.resource_uri));
  if (!m || Number(m[1]) !== call.repoId) throw errors.invalidParam('resource_uri', `'${call.params.resource_uri}' is not the URI of a resource of this repository`);
  const resource = await resourceOf(call, Number(m[2]));
  const inTree = () => inTreeOrder(call.s, resource.uri as string);
  // A sheet of the whole resource finds its archival objects once it is under way (the walk of
  // 100,000 took over a second on MariaDB, before the first byte); a list of them is checked
  // against the tree first, so that a wrong URI is a 400, not a sheet cut short.
  const source = sheetSource(call.s, call.params.uri === undefined ? inTree : chosen(call, await inTree()));
  const options = {
    minSubrecords: call.params.min_subrecords, extraSubrecords: call.params.extra_subrecords, minNotes: call.params.min_notes,
    selected: (call.params.selected_columns ?? []) as string[],
  };
  return {
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    headers: { 'Content-Disposition': `attachment; filename="${sheetFilename(Number(m[2]))}"` },
    stream: (send) => writeUpdaterSheet(call.s, (chunk) => send(chunk), source, options),
  };
}

/** What small_tree says of a node's container: "type: indicator: [barcode], type_2: indicator_2, type_3: indicator_3". */
function containerText(ao: Obj, linked: Map<string, Obj>): string | undefined {
  // ArchivesSpace keeps one container per archival object, the last one it reads.
  const instance = containerInstances(ao).at(-1);
  if (!instance) return undefined;
  const sub = (instance.sub_container ?? {}) as Obj;
  const top = linked.get(String((sub.top_container as Obj | undefined)?.ref));
  if (!top) return undefined;
  const join = (parts: unknown[]) => parts.filter((p) => typeof p === 'string' && p !== '').join(': ');
  const text = [
    join([top.type, top.indicator, typeof top.barcode === 'string' && top.barcode ? `[${top.barcode}]` : undefined]),
    join([sub.type_2, sub.indicator_2]), join([sub.type_3, sub.indicator_3]),
  ].filter((p) => p !== '').join(', ');
  return text || undefined;
}

async function smallTree(call: Call): Promise<Reply> {
  const resource = await resourceOf(call, call.params.id);
  const rows = await treeNodes(call.s.db, resource.uri as string, { shownOnly: false });
  const linked = await linkedRecords(call.s, rows.map((r) => r.record));
  const byParent = new Map<number | null, TreeNodeRow[]>();
  for (const row of rows) byParent.set(row.parent_rid, [...byParent.get(row.parent_rid) ?? [], row]);
  const build = (parent: number | null): Obj[] => (byParent.get(parent) ?? []).map((node) => {
    const r = node.record;
    const entry: Obj = { title: r.display_string ?? r.title, uri: node.uri, ref_id: r.ref_id, component_id: r.component_id, container: containerText(r, linked) };
    // Absent properties are left out, as ArchivesSpace keeps the answer small.
    for (const k of Object.keys(entry)) if (entry[k] === undefined || entry[k] === null) delete entry[k];
    const children = build(node.rid);
    return { ...entry, has_children: children.length > 0, children };
  });
  return json({ title: resource.title, identifier: ['id_0', 'id_1', 'id_2', 'id_3'].map((k) => resource[k]).filter((v) => typeof v === 'string').join('--'), children: build(null), uri: resource.uri });
}

/** The archival objects of a resource in id order, as the templates list them. */
async function inIdOrder(s: Services, resourceUri: string): Promise<TreeNodeRow[]> {
  return (await treeNodes(s.db, resourceUri, { shownOnly: false })).sort((a, b) => a.id - b.id);
}

function csvReply(filename: string, lines: Iterable<string>): Reply {
  return {
    contentType: 'text/csv',
    headers: { 'Content-Disposition': `attachment; filename="${filename}"` },
    stream: async (send) => {
      for (const line of lines) await send(line);
    },
  };
}

export function spreadsheetEndpoints(): Endpoint[] {
  return [
    {
      method: 'post', path: '/bulk_archival_object_updater/repositories/:repo_id/generate_spreadsheet', permission: 'view_repository', errors: ['NotFound'],
      params: [
        { name: 'uri', type: 'string' }, { name: 'resource_uri', type: 'string', required: true },
        count('min_subrecords', 0), count('extra_subrecords', 3), count('min_notes', 2), { name: 'selected_columns', type: 'string[]' },
      ],
      produces: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      summary: "The bulk archival object updater's spreadsheet (XLSX) of a resource's archival objects, or of those `uri` names (a JSON array)",
      handle: generateSheet,
    },
    {
      method: 'get', path: '/bulk_archival_object_updater/repositories/:repo_id/resources/:id/small_tree', permission: 'view_repository', errors: ['NotFound'],
      params: [id], summary: 'Generate the archival object tree for a resource (titles, URIs, ref_ids, component ids, containers)', handle: smallTree,
    },
    {
      method: 'get', path: '/repositories/:repo_id/resources/:id/templates/top_container_creation.csv', permission: 'view_repository', errors: ['NotFound'],
      params: [id], produces: 'text/csv',
      summary: "A CSV template for linking a resource's archival objects to top containers (top_container_linker_job)",
      handle: async (call) => {
        const resource = await resourceOf(call, call.params.id);
        const rows = (await inIdOrder(call.s, resource.uri as string)).map((n) => ({
          archival_object_id: String(n.id), ref_id: n.record.ref_id as string, component_id: n.record.component_id as string | undefined,
          archival_object_title: n.record.title as string | undefined, resource_title: resource.title as string,
          ead_id: resource.ead_id as string | undefined, identifier: identifierText(resource),
        }));
        return csvReply(`resource_${call.params.id}_top_containers.csv`, [...templateLines(TOP_CONTAINER_TEMPLATE, rows)]);
      },
    },
    {
      method: 'get', path: '/repositories/:repo_id/resources/:id/templates/digital_object_creation.csv', permission: 'view_repository', errors: ['NotFound'],
      params: [id], produces: 'text/csv',
      summary: "A CSV template for creating digital objects for a resource's archival objects (bulk_import_job, load_type digital)",
      handle: async (call) => {
        const resource = await resourceOf(call, call.params.id);
        // Only URIs are needed: read from the tree's shape, not the records.
        const idOf = (uri: string) => Number(uri.split('/').pop());
        const uris = (await treeShapeOf(call.s.db, resource.uri as string)).map((n) => n.uri).sort((a, b) => idOf(a) - idOf(b));
        const rows = uris.map((uri) => ({ res_uri: resource.uri as string, ao_uri: uri }));
        return csvReply(`resource_${call.params.id}digital_objects.csv`, [...templateLines(DIGITAL_OBJECT_TEMPLATE, rows)]);
      },
    },
  ];
}
