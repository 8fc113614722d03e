import { ApiError, errors } from '../../errors';
import type { Actor, Services, TypeHooks, Where } from '../../records/context';
import { prepareRecord } from '../../validation';
import type {
  Accession, AnyOf, ArchivalObject, ContainerLocation, ContainerProfile, Location, Resource, RightsRestriction, TopContainer,
} from '../../../generated/types';
import type { Obj } from '../../json';
import { isPlainObject } from '../../json';
import { fetchRow, readRecord } from '../../records/load';
import { recordReads } from '../../store/records';
import { type Ancestor, ancestorChains } from '../../store/positions';
import { type Handle, readsOf } from '../../store/database';
import { jsonOfRids, jsonOfUri, linksFromTypes, recordQueries, treeNodesOf } from '../../store/domain-reads';
import { updateRecord } from '../../records/write';
import { writeTransaction } from '../../records/context';

/**
 * Top container batch and bulk changes (endpoints.md section 10): each container is updated as
 * a whole record (validated, lock_version bumped), all of them in one transaction.
 */
export async function updateContainers(
  s: Services, actor: Actor, where: Where, changes: Array<{ id: number; change: (record: TopContainer) => void; uri?: string }>,
) {
  const updated: string[] = [];
  await writeTransaction(s, async (trx) => {
    for (const { id, change, uri } of changes) {
      try {
        const current = await readRecord(s, where, id, trx);
        change(current as TopContainer);
        const { record, warnings } = prepareRecord(s.registry, s.enums, where.type.name, current);
        const result = await updateRecord(s, actor, where, id, record, warnings, { trx });
        updated.push(result.uri);
      } catch (err) {
        // Bulk routes name the container that failed, as the reference does.
        if (uri && err instanceof ApiError && err.status === 400) throw errors.forItem(err, uri);
        throw err;
      }
    }
  });
  return updated;
}

/** The top container id in a URI of this repository, or a 400 naming the bad URI. */
export function containerId(where: Where, uri: string): number {
  const prefix = `/repositories/${where.repoId}/top_containers/`;
  const id = uri.startsWith(prefix) ? Number(uri.slice(prefix.length)) : NaN;
  if (!Number.isInteger(id)) throw errors.forItem(errors.foreignRepositoryLink(where.repoId, uri), uri);
  return id;
}

/**
 * GET …/:id/top_containers: the containers of a collection's instances. For a tree root, as the
 * reference lists those of "a published resource and published archival objects contained
 * within": nothing when the root is unpublished or suppressed, its tree's nodes in tree order,
 * and an unpublished or suppressed node hides its whole subtree (trees.rb ordered_records); a
 * record without a tree (an accession) lists its own whatever its flags. Digital object
 * instances hold no container. Each container is listed once.
 */
export async function containersOfRecord(s: Services, where: Where, id: number): Promise<Array<{ ref: string }>> {
  const row = await fetchRow(recordReads(s), where, id);
  const record = JSON.parse(row.json) as Collection;
  const shown = (r: Collection, suppressed: unknown) => r.publish === true && !Number(suppressed);
  const treeRoot = Object.values(s.registry.types).some((t) => t.tree?.root === where.type.name);
  if (treeRoot && !shown(record, row.suppressed)) return [];
  const nodes = await treeNodesOf(s.db, record.uri!);
  const children = new Map<number | null, typeof nodes>();
  for (const n of nodes) children.set(n.parent_rid === null ? null : Number(n.parent_rid), [...(children.get(n.parent_rid === null ? null : Number(n.parent_rid)) ?? []), n]);
  const records: Collection[] = [record];
  const visit = (parent: number | null) => {
    for (const n of (children.get(parent) ?? []).sort((a, b) => Number(a.position) - Number(b.position))) {
      const node = JSON.parse(n.json) as Collection;
      if (!shown(node, n.suppressed)) continue;
      records.push(node);
      visit(Number(n.rid));
    }
  };
  visit(null);
  const uris = new Set<string>();
  for (const r of records) {
    for (const instance of r.instances ?? []) {
      const ref = instance.sub_container?.top_container?.ref;
      if (ref) uris.add(ref);
    }
  }
  return [...uris].map((ref) => ({ ref }));
}

export function currentLocation(location: string): ContainerLocation {
  return { jsonmodel_type: 'container_location', status: 'current', start_date: new Date().toISOString().slice(0, 10), ref: location };
}


/**
 * The records whose instances hold containers (x-archive.containerCollection types and their tree
 * nodes), as this file reads them: any of those types' fields.
 */
type Collection = AnyOf<Resource | Accession | ArchivalObject>;

/** The collection types (x-archive.containerCollection) and the node types of their trees. */
function collectionTypes(s: Services): { collections: string[]; nodes: string[] } {
  const types = Object.values(s.registry.types);
  const collections = types.filter((t) => t.containerCollection).map((t) => t.name);
  return { collections, nodes: types.filter((t) => t.tree && collections.includes(t.tree.root)).map((t) => t.name) };
}

/** Top-level components of these levels name a container's series (top_container.rb). */
const SERIES_LEVELS = new Set(['series']);
const OTHERLEVEL_SERIES = new Set(['accession']);

interface Linked {
  container: string;
  type: string;
  uri: string;
  root_uri: string | null;
  rid: number;
  parent_rid: number | null;
}

/** What decorating containers reads of the records linking them: each one's record and its ancestors' (nearest first). */
interface LinkingRecords {
  own: Map<number, Collection>;
  ancestors: Map<number, Collection[]>;
}

/**
 * The linking records and their ancestors, read once for all links (siblings share their chain),
 * each ancestor parsed once however many links share it.
 */
async function linkingRecords(db: Handle, links: Linked[]): Promise<LinkingRecords> {
  const rows = links.length ? await jsonOfRids(db, [...new Set(links.map((l) => l.rid))]) : [];
  const own = new Map<number, Collection>(rows.map((r) => [Number(r.rid), JSON.parse(r.json)]));
  const parsed = new Map<number, Collection>();
  const record = (a: Ancestor) => parsed.get(a.rid) ?? parsed.set(a.rid, JSON.parse(a.json)).get(a.rid)!;
  const ancestors = new Map<number, Collection[]>();
  for (const [rid, chain] of await ancestorChains(readsOf(db), links)) ancestors.set(rid, chain.map(record));
  return { own, ancestors };
}

/** The top-level series a tree node sits in, if that component is a series with a component_id. */
function seriesOf(link: Linked, linking: LinkingRecords): Collection | undefined {
  const chain = linking.ancestors.get(link.rid) ?? [];
  const top = chain.length ? chain[chain.length - 1] : linking.own.get(link.rid);
  if (!top) return undefined;
  const isSeries = SERIES_LEVELS.has(String(top.level)) || (top.level === 'otherlevel' && OTHERLEVEL_SERIES.has(String(top.other_level ?? '').toLowerCase()));
  return isSeries && top.component_id ? top : undefined;
}

/** Notes whose rights_restriction restricts the containers of the record (rights_restriction_notes.rb). */
const RESTRICTION_NOTE_TYPES = new Set(['accessrestrict', 'userestrict']);

/** The restrictions a record's notes declare, in the shape ArchivesSpace serves them. */
function restrictionsOf(record: Collection): RightsRestriction[] {
  // Notes are read by their type at run time (only multipart notes carry a rights_restriction).
  return ((Array.isArray(record.notes) ? record.notes : []) as Obj[])
    .filter((n) => n?.jsonmodel_type === 'note_multipart' && RESTRICTION_NOTE_TYPES.has(n.type) && isPlainObject(n.rights_restriction))
    .map((n): RightsRestriction => ({
      ...n.rights_restriction, jsonmodel_type: 'rights_restriction', local_access_restriction_type: n.rights_restriction.local_access_restriction_type ?? [],
      restriction_note_type: n.type, linked_records: { ref: record.uri },
    }));
}

/** In force today: begun, not ended, and saying something (a type or a date), as restriction_calculator.rb. */
function inForce(r: RightsRestriction, today: string): boolean {
  if (r.begin && today < String(r.begin)) return false;
  if (r.end && today > String(r.end)) return false;
  return (r.local_access_restriction_type ?? []).length > 0 || !!r.begin || !!r.end;
}

/**
 * The records whose restrictions reach a container: those whose instances hold it, their
 * ancestors and their tree's root (a restriction on a series covers the boxes of its files).
 */
async function restrictingRecords(db: Handle, links: Linked[], linking: LinkingRecords): Promise<Map<string, Map<string, Collection>>> {
  const byContainer = new Map<string, Map<string, Collection>>();
  const roots = [...new Set(links.map((l) => l.root_uri).filter((u): u is string => !!u))];
  const rootRows = await recordQueries(db).getByUris(roots);
  const rootByUri = new Map<string, Collection>(rootRows.map((r) => [r.uri, JSON.parse(r.json)]));
  for (const link of links) {
    const found = byContainer.get(link.container) ?? new Map<string, Collection>();
    const ancestors = link.root_uri ? linking.ancestors.get(link.rid) ?? [] : [];
    const chain = [linking.own.get(link.rid), ...ancestors, link.root_uri ? rootByUri.get(link.root_uri) : undefined];
    for (const record of chain) if (record?.uri) found.set(record.uri, record);
    byContainer.set(link.container, found);
  }
  return byContainer;
}

const capitalise = (t: string) => (t ? t[0].toUpperCase() + t.slice(1) : '');

/**
 * Read-time fields of top containers, as the reference computes them from what links to a
 * container: `collection` (the collections whose instances hold it, directly or through a tree
 * node), `series` (the top-level series components holding it), `display_string` ("Box 7: Series
 * 1 [Barcode: 123]"), `long_display_string` (container, profile, location, first collection, series),
 * and `active_restrictions` / `restricted` (the restrictions in force of the records holding it).
 */
async function decorateContainers(db: Handle, s: Services, loaded: Obj[]): Promise<void> {
  const records = loaded as TopContainer[];
  const uris = records.map((r) => r.uri!);
  const { collections, nodes } = collectionTypes(s);
  const links: Linked[] = (await linksFromTypes(db, uris, [...collections, ...nodes])).map(({ to_uri, ...l }) => ({ container: to_uri, ...l }));
  const linking = await linkingRecords(db, links);
  const owners = new Map<string, Set<string>>();
  const series = new Map<string, Map<string, Collection>>();
  for (const l of links) {
    // A tree node's instances belong to its root's collection.
    const owner = nodes.includes(l.type) ? l.root_uri : l.uri;
    if (!owner) continue;
    if (!owners.has(l.container)) owners.set(l.container, new Set());
    owners.get(l.container)!.add(owner);
    if (nodes.includes(l.type)) {
      const found = seriesOf(l, linking);
      if (found?.uri) series.set(l.container, (series.get(l.container) ?? new Map()).set(found.uri, found));
    }
  }
  const related = [...new Set([
    ...[...owners.values()].flatMap((o) => [...o]),
    ...records.flatMap((r) => [r.container_profile?.ref, ...(r.container_locations ?? []).filter((l) => l.status === 'current').map((l) => l.ref)]),
  ].filter(Boolean))] as string[];
  const rows = await recordQueries(db).getByUris(related);
  // Collections, the profiles and the current locations, each read by its own fields below.
  const byUri = new Map<string, Obj>(rows.map((r) => [r.uri, JSON.parse(r.json)]));
  const collectionOf = (uri: string) => byUri.get(uri) as Collection | undefined;
  const identifierOf = (o: Collection) => [o.id_0, o.id_1, o.id_2, o.id_3].filter(Boolean).join('-');
  const restricting = await restrictingRecords(db, links, linking);
  const today = new Date().toISOString().slice(0, 10);
  for (const record of records) {
    const uri = record.uri!;
    const active = [...(restricting.get(uri)?.values() ?? [])].flatMap(restrictionsOf).filter((r) => inForce(r, today));
    record.active_restrictions = active;
    record.restricted = active.length > 0;
    const mine = [...(owners.get(uri) ?? [])].sort().filter((u) => byUri.has(u));
    record.collection = mine.map((u) => ({ ref: u, display_string: collectionOf(u)!.display_string ?? collectionOf(u)!.title, identifier: identifierOf(collectionOf(u)!) }));
    const mySeries = [...(series.get(uri)?.values() ?? [])];
    record.series = mySeries.map((a) => ({
      ref: a.uri!, display_string: a.display_string ?? a.title, identifier: a.component_id,
      level_display_string: a.other_level ?? capitalise(String(a.level)),
    }));
    const seriesLabel = mySeries.length ? mySeries.map((a) => `${a.other_level ?? capitalise(String(a.level))} ${a.component_id}`).join('; ') : undefined;
    const barcode = record.barcode ? `[Barcode: ${record.barcode}]` : undefined;
    const type = capitalise(String(record.type ?? ''));
    record.display_string = [type, `${record.indicator ?? ''}:`, seriesLabel, barcode].filter((p) => p !== undefined).join(' ').replace(/:$/, '');
    const profileRef = record.container_profile?.ref;
    const profile = profileRef ? (byUri.get(profileRef) as ContainerProfile | undefined)?.name : undefined;
    const currentLocation = (record.container_locations ?? []).find((l) => l.status === 'current');
    const location = currentLocation ? (byUri.get(currentLocation.ref) as Location | undefined)?.title : undefined;
    const first = mine.length ? collectionOf(mine[0]) : undefined;
    const collection = first ? [identifierOf(first) || undefined, first.title].filter(Boolean).join(', ') : undefined;
    record.long_display_string = [[type, String(record.indicator ?? ''), barcode].filter((p) => p !== undefined).join(' '), profile, location, collection, seriesLabel]
      .filter((p) => p !== undefined && p !== '').join(', ');
  }
}

export const topContainerHooks: TypeHooks = {
  decorate: (db, s, records) => decorateContainers(db, s, records),
  derivedFields: ['collection', 'series', 'display_string', 'long_display_string', 'active_restrictions', 'restricted'],
  async beforeSave(trx, _s, _where, body) {
    const errs: Record<string, string[]> = {};
    for (const [i, place] of ((body as TopContainer).container_locations ?? []).entries()) {
      if (place.status !== 'previous') continue;
      const json = await jsonOfUri(trx, place.ref);
      if (json && !JSON.parse(json).temporary) errs[`container_locations/${i}/status`] = ['cannot be previous if Location is not temporary'];
    }
    if (Object.keys(errs).length) throw errors.conflictOnSave(errs);
    return undefined;
  },
};
