import type { Knex } from 'knex';
import type { Obj } from '../../json';
import type { Services, TypeHooks } from '../../records/context';

/**
 * A digital object's read-only `linked_instances` (the records whose instances link it) and
 * `collection` (those records' collections: a resource or accession itself, an archival
 * object's resource when that object is published), computed from the links as the reference
 * computes them (digital_object.rb). Its own components link it too, but not through an instance.
 */
async function decorateLinks(db: Knex | Knex.Transaction, s: Services, records: Obj[]): Promise<void> {
  const uris = records.map((r) => r.uri as string);
  const ownNodes = new Set(Object.values(s.registry.types).filter((t) => records.some((r) => t.tree?.root === r.jsonmodel_type)).map((t) => t.name));
  const rows: Array<{ to_uri: string; uri: string; type: string; root_uri: string | null; json: string }> = uris.length
    ? await db('record_refs as x').join('records as r', 'r.rid', 'x.from_rid')
      .whereIn('x.to_uri', uris).where('x.property', 'digital_object')
      .select('x.to_uri', 'r.uri', 'r.type', 'r.root_uri', 'r.json').orderBy('r.rid')
    : [];
  for (const record of records) {
    const linked = rows.filter((row) => row.to_uri === record.uri && !ownNodes.has(row.type));
    record.linked_instances = linked.map((row) => ({ ref: row.uri }));
    const collection: string[] = [];
    for (const row of linked) {
      const owner = row.root_uri ? (JSON.parse(row.json).publish === true ? row.root_uri : undefined) : row.uri;
      if (owner && !collection.includes(owner)) collection.push(owner);
    }
    record.collection = collection.map((ref) => ({ ref }));
  }
}

export const digitalObjectHooks: TypeHooks = {
  derivedFields: ['linked_instances', 'collection'],
  decorate: (db, s, records) => decorateLinks(db, s, records),
};
