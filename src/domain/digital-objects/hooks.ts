import type { ArchivalObject, DigitalObject } from '../../../generated/types';
import type { Obj } from '../../json';
import type { Services, TypeHooks } from '../../records/context';
import type { Handle } from '../../store/database';
import { linkersThrough } from '../../store/domain-reads';

/**
 * A digital object's read-only `linked_instances` (the records whose instances link it) and
 * `collection` (those records' collections: a resource or accession itself, an archival
 * object's resource when that object is published), computed from the links as the reference
 * computes them (digital_object.rb). Its own components link it too, but not through an instance.
 */
async function decorateLinks(db: Handle, s: Services, loaded: Obj[]): Promise<void> {
  const records = loaded as DigitalObject[];
  const uris = records.map((r) => r.uri!);
  const ownNodes = new Set(Object.values(s.registry.types).filter((t) => records.some((r) => t.tree?.root === r.jsonmodel_type)).map((t) => t.name));
  const rows = uris.length ? await linkersThrough(db, uris, 'digital_object') : [];
  for (const record of records) {
    const linked = rows.filter((row) => row.to_uri === record.uri && !ownNodes.has(row.type));
    record.linked_instances = linked.map((row) => ({ ref: row.uri }));
    const collection: string[] = [];
    for (const row of linked) {
      // A tree node (an archival object) belongs to its root's collection when the node is published.
      const owner = row.root_uri ? ((JSON.parse(row.json) as ArchivalObject).publish === true ? row.root_uri : undefined) : row.uri;
      if (owner && !collection.includes(owner)) collection.push(owner);
    }
    record.collection = collection.map((ref) => ({ ref }));
  }
}

export const digitalObjectHooks: TypeHooks = {
  derivedFields: ['linked_instances', 'collection'],
  decorate: (db, s, records) => decorateLinks(db, s, records),
};
