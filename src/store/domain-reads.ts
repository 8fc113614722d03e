/**
 * Reads of stored records that domain code asks for beyond the record engine's own (RecordQueries):
 * whether a record exists, the JSON of all records of a type or of a tree, records linking to
 * others. Over committed rows, or in the transaction handed in.
 */
import { type Handle, readsOf } from './database';
import { descendants } from './positions';
import { LINKS_ASKED, RecordQueries } from './records';
import { visibleArgs } from './pending';

/** The record engine's queries, on a handle. */
export function recordQueries(h: Handle): RecordQueries {
  return new RecordQueries(readsOf(h));
}

/** Whether a record matches every column given. */
export async function hasRecord(h: Handle, where: { type?: string; id?: number; uri?: string }): Promise<boolean> {
  return !!(await readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where(where).first('rid'));
}

/** Stored JSON by rid. */
export async function jsonOfRids(h: Handle, rids: number[]): Promise<Array<{ rid: number; json: string }>> {
  return readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).whereIn('rid', rids).select('rid', 'json');
}

/** A record's stored JSON by URI. */
export async function jsonOfUri(h: Handle, uri: string): Promise<string | undefined> {
  const row = await readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where({ uri }).first('json');
  return row?.json;
}

/** Stored JSON by URI, a statement per LINKS_ASKED URIs; URIs with no record are left out. */
export async function jsonOfUris(h: Handle, uris: string[]): Promise<Array<{ uri: string; json: string }>> {
  const rows: Array<{ uri: string; json: string }> = [];
  for (let i = 0; i < uris.length; i += LINKS_ASKED) rows.push(...await readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).whereIn('uri', uris.slice(i, i + LINKS_ASKED)).select('uri', 'json'));
  return rows;
}

/** The stored JSON of every record of a type (optionally of one repository; optionally in id order). */
export async function jsonOfType(h: Handle, type: string, options: { repoId?: number; inIdOrder?: boolean } = {}): Promise<string[]> {
  const query = readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where(options.repoId === undefined ? { type } : { type, repo_id: options.repoId });
  if (options.inIdOrder) query.orderBy('id');
  return (await query.select('json')).map((r: { json: string }) => r.json);
}

/** A tree's nodes under its root record (URI), unordered: each one's parent, position, JSON and suppression. */
export async function treeNodesOf(h: Handle, rootUri: string): Promise<Array<{ rid: number; parent_rid: number | null; position: number; json: string; suppressed: unknown }>> {
  return readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where({ root_uri: rootUri }).select('rid', 'parent_rid', 'position', 'json', 'suppressed');
}

/** A tree's shape under its root record (URI): each node's rid, URI, parent and position, without its JSON. */
export async function treeShapeOf(h: Handle, rootUri: string): Promise<Array<{ rid: number; uri: string; parent_rid: number | null; position: number }>> {
  const rows = await readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where({ root_uri: rootUri }).select('rid', 'uri', 'parent_rid', 'position');
  return rows.map((r: { rid: number; uri: string; parent_rid: number | null; position: number }) => ({
    rid: Number(r.rid), uri: r.uri, parent_rid: r.parent_rid === null ? null : Number(r.parent_rid), position: Number(r.position),
  }));
}

/**
 * The stored JSON of the records below a record in its tree: every node of a tree's root
 * (`isRoot`), else the node's descendants.
 */
export async function jsonBelow(h: Handle, row: { rid?: number; uri: string }, isRoot: boolean): Promise<string[]> {
  const db = readsOf(h);
  if (isRoot) return (await db('records').where({ root_uri: row.uri }).select('json')).map((r: { json: string }) => r.json);
  const rids = (await descendants(db, row.rid!)).filter((rid) => rid !== row.rid);
  return rids.length ? (await db('records').whereIn('rid', rids).select('json')).map((r: { json: string }) => r.json) : [];
}

/** Records of `type` that link to any of `toUris`: each link once, with the URI it links to. */
export async function linkersOfType(h: Handle, toUris: string[], type: string): Promise<Array<{ uri: string; json: string; to_uri: string }>> {
  return readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(readsOf(h), 'r'))
    .whereIn('x.to_uri', toUris).andWhere('r.type', type).distinct('r.uri', 'r.json', 'x.to_uri');
}

/** Records that link to any of `toUris` through `property`, in the order they were stored. */
export async function linkersThrough(h: Handle, toUris: string[], property: string): Promise<Array<{ to_uri: string; uri: string; type: string; root_uri: string | null; json: string }>> {
  return readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(readsOf(h), 'r'))
    .whereIn('x.to_uri', toUris).where('x.property', property)
    .select('x.to_uri', 'r.uri', 'r.type', 'r.root_uri', 'r.json').orderBy('r.rid');
}

/** The first record stored of `types` with a lookup key (`param`, value hash). */
export async function firstByLookup(h: Handle, types: string[], param: string, valueHash: string): Promise<{ id: number; type: string; repo_id: number } | undefined> {
  return readsOf(h)('lookup_keys as k').join('records as r', 'r.rid', 'k.rid').whereRaw(...visibleArgs(readsOf(h), 'r'))
    .whereIn('k.type', types).andWhere({ 'k.param': param, 'k.value_hash': valueHash })
    .orderBy('r.rid').first('r.id', 'r.type', 'r.repo_id');
}

/**
 * Records of `types` that link to any of `toUris` (LINKS_ASKED URIs a statement): each link, with
 * the URI it links to and the linking record's place in its tree.
 */
export async function linksFromTypes(h: Handle, toUris: string[], types: string[]): Promise<Array<{ to_uri: string; type: string; uri: string; root_uri: string | null; rid: number; parent_rid: number | null }>> {
  const links = [];
  for (let i = 0; i < toUris.length; i += LINKS_ASKED) {
    links.push(...await readsOf(h)('record_refs as x')
      .join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(readsOf(h), 'r'))
      .whereIn('x.to_uri', toUris.slice(i, i + LINKS_ASKED))
      .whereIn('r.type', types)
      .select('x.to_uri', 'r.type', 'r.uri', 'r.root_uri', 'r.rid', 'r.parent_rid'));
  }
  for (const l of links) {
    l.rid = Number(l.rid);
    l.parent_rid = l.parent_rid === null ? null : Number(l.parent_rid);
  }
  return links;
}

/** The record of `type` whose row in unique_keys is this key (rule, scope, hash). */
export async function recordByUniqueKey(h: Handle, type: string, key: { rule: string; scope: string; hash: string }): Promise<{ rid: number; id: number; json: string } | undefined> {
  const hit = await readsOf(h)('unique_keys as k')
    .join('records as r', 'r.rid', 'k.rid')
    .where({ 'k.type': type, 'k.rule': key.rule, 'k.scope': key.scope, 'k.key_hash': key.hash })
    .first('r.rid', 'r.id', 'r.json');
  return hit ? { rid: Number(hit.rid), id: Number(hit.id), json: hit.json } : undefined;
}

/** The id and stored JSON of a repository's records of `type` that are neither suppressed nor hidden, in id order. */
export async function shownOfType(h: Handle, type: string, repoId: number): Promise<Array<{ id: number; json: string }>> {
  return readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where({ type, repo_id: repoId, suppressed: false, hidden: false }).orderBy('id').select('id', 'json');
}
