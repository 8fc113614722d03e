import { ApiError, errors } from '../errors';
import { isPlainObject, type Obj } from '../json';
import type { Registry, TypeInfo } from '../registry';
import { recordReads } from '../store/records';
import type { Services, Where } from './context';
import { fetchRow, uriLoader } from './load';
import { withhold } from './guarded';
import { resolveLinks } from './resolve';

/**
 * Subrecords with addresses of their own: a subrecord type with a URI (`x-archive.uri`;
 * ArchivesSpace's collection_management), kept inside the records its `parent` link may name.
 * ArchivesSpace keeps such a subrecord in a table of its own and serves it at `<uri>/:id`; here it
 * lives in its record's JSON, so its id is made from the record's: the record's id times the
 * number of the `parent` link's types, plus the place of the record's type among them. Unique with
 * no table or sequence of its own, and kept over the record's updates (ArchivesSpace's changes at
 * each save, as it recreates nested records): clients treat it as opaque, as they must there.
 */

/** The `parent` link's types of an addressable subrecord type, or undefined when the type is not one. */
function parentTypes(sub: TypeInfo | undefined): string[] | undefined {
  return sub?.kind === 'subrecord' && sub.uri && sub.props.parent?.refs?.length ? sub.props.parent.refs : undefined;
}

interface Addressed {
  property: string;
  sub: TypeInfo;
  place: number;
  count: number;
}

const addressedOf = new WeakMap<TypeInfo, Addressed[]>();

/** A record type's properties that hold addressable subrecords (worked out once per type). */
function addressedProperties(registry: Registry, type: TypeInfo): Addressed[] {
  let found = addressedOf.get(type);
  if (!found) {
    found = [];
    for (const [property, prop] of Object.entries(type.props)) {
      if (prop.kind !== 'subrecord' || prop.array) continue;
      const sub = registry.types[prop.subrecords?.[0] ?? ''];
      const parents = parentTypes(sub);
      const place = parents?.indexOf(type.name) ?? -1;
      if (parents && place >= 0) found.push({ property, sub, place, count: parents.length });
    }
    addressedOf.set(type, found);
  }
  return found;
}

function subrecordUri(sub: TypeInfo, repoId: number | undefined, id: number): string {
  return `${sub.uri!.replace(':repo_id', String(repoId))}/${id}`;
}

/** Gives each addressable subrecord of a record being saved its `uri` (ArchivesSpace's nested records carry theirs). */
export function addressSubrecords(registry: Registry, where: Where, id: number, record: Obj): void {
  for (const a of addressedProperties(registry, where.type)) {
    const nested = record[a.property];
    if (isPlainObject(nested)) nested.uri = subrecordUri(a.sub, where.repoId, id * a.count + a.place);
  }
}

/** The subrecord types served at `<uri>/:id`. */
export function addressableSubrecordTypes(registry: Registry): TypeInfo[] {
  return Object.values(registry.types).filter((t) => parentTypes(t) !== undefined);
}

/**
 * GET <subrecord uri>/:id: the subrecord as ArchivesSpace serves its row: its fields, its `uri`,
 * its `parent` and repository, and the audit fields of the save that made it (ArchivesSpace
 * recreates nested records at each save of their record, so theirs are that save's and their
 * lock_version 0). 404 in the usual shape when the record does not exist here or holds none.
 */
export async function getAddressedSubrecord(
  s: Services, sub: TypeInfo, where: Omit<Where, 'type'>, id: number, o: { resolve: string[]; withheld?: ReadonlySet<string> },
): Promise<Obj> {
  const parents = parentTypes(sub)!;
  const parentType = s.registry.types[parents[id % parents.length]];
  const parentId = Math.floor(id / parents.length);
  const a = parentType && addressedProperties(s.registry, parentType).find((x) => x.sub === sub);
  if (!a || parentId < 1) throw errors.notFound(sub.model);
  let row;
  try {
    row = await fetchRow(recordReads(s), { ...where, type: parentType }, parentId);
  } catch (err) {
    // The record's own 404 names the record's model; the subrecord's names its own.
    throw err instanceof ApiError && err.status === 404 ? errors.notFound(sub.model) : err;
  }
  const parent = JSON.parse(row.json) as Obj;
  withhold(s.registry, [parent], o.withheld);
  const nested = parent[a.property];
  if (!isPlainObject(nested)) throw errors.notFound(sub.model);
  const answer: Obj = {
    lock_version: 0, jsonmodel_type: sub.name, ...nested, uri: subrecordUri(sub, where.repoId, id),
    created_by: parent.last_modified_by, last_modified_by: parent.last_modified_by,
    create_time: parent.system_mtime, system_mtime: parent.system_mtime, user_mtime: parent.user_mtime,
    repository: { ref: `/repositories/${where.repoId}` }, parent: { ref: parent.uri },
  };
  if (o.resolve.length) await resolveLinks([answer], o.resolve, uriLoader(s, { withheld: o.withheld }));
  return answer;
}
