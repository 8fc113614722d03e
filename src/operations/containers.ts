import type { Knex } from 'knex';
import { ApiError, errors } from '../errors';
import type { Actor, Services, TypeHooks, Where } from './context';
import { prepareRecord } from '../validation';
import type { Obj } from '../json';
import { readRecord } from './load';
import { updateRecord } from './write';

/**
 * Top container batch and bulk changes (endpoints.md section 10): each container is updated as
 * a whole record (validated, lock_version bumped), all of them in one transaction.
 */
export async function updateContainers(
  s: Services, actor: Actor, where: Where, changes: Array<{ id: number; change: (record: Obj) => void; uri?: string }>,
) {
  const updated: string[] = [];
  await s.db.transaction(async (trx) => {
    for (const { id, change, uri } of changes) {
      try {
        const current = await readRecord(s, where, id, trx);
        change(current);
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

/** Distinct top containers named by a record's instances (and its tree's, for a root). */
export async function containersOfRecord(s: Services, where: Where, id: number): Promise<Array<{ ref: string }>> {
  const record = await readRecord(s, where, id);
  const records: Obj[] = [record];
  const below = await s.db.knex('records').where({ root_uri: record.uri }).pluck('json');
  records.push(...below.map((j: string) => JSON.parse(j)));
  const uris = new Set<string>();
  for (const r of records) {
    for (const instance of r.instances ?? []) {
      const ref = instance.sub_container?.top_container?.ref;
      if (ref) uris.add(ref);
    }
  }
  return [...uris].map((ref) => ({ ref }));
}

export function currentLocation(location: string): Obj {
  return { jsonmodel_type: 'container_location', status: 'current', start_date: new Date().toISOString().slice(0, 10), ref: location };
}


/** The collection types (x-archive.containerCollection) and the node types of their trees. */
function collectionTypes(s: Services): { collections: string[]; nodes: string[] } {
  const types = Object.values(s.registry.types);
  const collections = types.filter((t) => t.containerCollection).map((t) => t.name);
  return { collections, nodes: types.filter((t) => t.tree && collections.includes(t.tree.root)).map((t) => t.name) };
}

/**
 * A top container's `collection`: the resources and accessions whose instances hold it, directly
 * or through an archival object (read-only, computed from the links, as the reference shows it).
 */
async function decorateCollections(db: Knex | Knex.Transaction, s: Services, records: Obj[]): Promise<void> {
  const uris = records.map((r) => r.uri as string);
  const { collections, nodes } = collectionTypes(s);
  const links = await db('record_refs as x')
    .join('records as r', 'r.rid', 'x.from_rid')
    .whereIn('x.to_uri', uris)
    .whereIn('r.type', [...collections, ...nodes])
    .select('x.to_uri as container', 'r.type', 'r.uri', 'r.root_uri');
  const owners = new Map<string, Set<string>>();
  for (const l of links) {
    // A tree node's instances belong to its root's collection.
    const owner = nodes.includes(l.type) ? l.root_uri : l.uri;
    if (!owner) continue;
    if (!owners.has(l.container)) owners.set(l.container, new Set());
    owners.get(l.container)!.add(owner);
  }
  const wanted = [...new Set([...owners.values()].flatMap((o) => [...o]))];
  const rows = wanted.length ? await db('records').whereIn('uri', wanted).select('uri', 'json') : [];
  const shown = new Map<string, Obj>(rows.map((r: { uri: string; json: string }) => {
    const owner = JSON.parse(r.json);
    const identifier = ['id_0', 'id_1', 'id_2', 'id_3'].map((k) => owner[k]).filter(Boolean).join('-');
    return [r.uri, { ref: r.uri, display_string: owner.display_string ?? owner.title, identifier }];
  }));
  for (const record of records) {
    const mine = [...(owners.get(record.uri) ?? [])].sort().map((u) => shown.get(u)).filter(Boolean) as Obj[];
    record.collection = mine;
  }
}

export const topContainerHooks: TypeHooks = {
  decorate: (db, s, records) => decorateCollections(db, s, records),
  derivedFields: ['collection'],
  async beforeSave(trx, _s, _where, body) {
    const errs: Record<string, string[]> = {};
    for (const [i, place] of ((body.container_locations ?? []) as Obj[]).entries()) {
      if (place.status !== 'previous') continue;
      const row = await trx('records').where({ uri: place.ref }).first('json');
      if (row && !JSON.parse(row.json).temporary) errs[`container_locations/${i}/status`] = ['cannot be previous if Location is not temporary'];
    }
    if (Object.keys(errs).length) throw errors.conflictOnSave(errs);
    return undefined;
  },
};
