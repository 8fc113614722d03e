/**
 * The reads reports make (src/reports): records of a type a page at a time, in keyset order so
 * each page is an index range and a report over any number of records holds one page; the
 * records a page links to; the records linking to a page's records.
 */
import { type Handle, readsOf } from './database';
import { onMysql } from './dialect';
import { LINKS_ASKED } from './records';
import { visibleArgs } from './pending';

export interface ReportRow {
  rid: number;
  uri: string;
  json: string;
}

/** Where a keyset page of records ordered by JSON properties starts: the last row's keys and row id. */
export interface ReportCursor {
  rid: number;
  keys?: string[];
}

const PROPERTY = /^[a-z][a-z0-9_]*$/;

/** The text of a top-level JSON property ('' when absent), as each store's JSON functions give it. */
function propertySql(h: Handle, property: string): string {
  if (!PROPERTY.test(property)) throw new Error(`not a property name: ${property}`);
  return onMysql(readsOf(h))
    ? `COALESCE(JSON_UNQUOTE(JSON_EXTRACT(json, '$.${property}')), '')`
    : `COALESCE(CAST(json_extract(json, '$.${property}') AS TEXT), '')`;
}

/**
 * The next `limit` records of one type past id `afterId` (of one repository when given),
 * suppressed ones only when asked, in id order (ArchivesSpace's tables' order): a range of the
 * listing index (type, repo_id, id) or of (type, id). Row-id order instead read and sorted every
 * record past the cursor at each page (that index holds ids, not row ids), so a report's pages
 * cost the square of its records (55 ms a page at 20,000 accessions).
 */
export async function reportPage(
  h: Handle, o: { type: string; repoId?: number; includeSuppressed: boolean; afterId: number; limit: number },
): Promise<Array<ReportRow & { id: number }>> {
  const q = readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).where('type', o.type).where('id', '>', o.afterId);
  if (o.repoId !== undefined) q.where('repo_id', o.repoId);
  if (!o.includeSuppressed) q.where('suppressed', false);
  const rows = await q.orderBy('id').limit(o.limit).select('rid', 'id', 'uri', 'json');
  return rows.map((r: ReportRow & { id: number }) => ({ rid: Number(r.rid), id: Number(r.id), uri: r.uri, json: r.json }));
}

/**
 * The next `limit` records of `types` past the cursor in the order of the text of JSON properties
 * `orderBy` (then the order stored): their row ids and keys only, a keyset range past the last
 * row's keys. The properties are in no index, so each call reads every record of the types: the
 * engine asks for many keys at a time and reads the records themselves by row id.
 */
export async function reportOrder(
  h: Handle, o: { types: string[]; repoId?: number; includeSuppressed: boolean; after: ReportCursor; limit: number; orderBy: string[] },
): Promise<Array<{ rid: number; keys: string[] }>> {
  const q = readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).whereIn('type', o.types);
  if (o.repoId !== undefined) q.where('repo_id', o.repoId);
  if (!o.includeSuppressed) q.where('suppressed', false);
  const keys = o.orderBy.map((p) => propertySql(h, p));
  const last = o.after.keys;
  if (last) {
    // Past (k1..kn, rid): some key greater with those before it equal, or all keys equal and a later row.
    q.where((w) => {
      for (let i = 0; i <= keys.length; i++) {
        w.orWhere((and) => {
          for (let j = 0; j < i; j++) and.whereRaw(`${keys[j]} = ?`, [last[j]]);
          if (i < keys.length) and.whereRaw(`${keys[i]} > ?`, [last[i]]);
          else and.where('rid', '>', o.after.rid);
        });
      }
    });
  }
  for (const k of keys) q.orderByRaw(k);
  const rows = await q.orderBy('rid').limit(o.limit).select('rid', ...keys.map((k, i) => readsOf(h).raw(`${k} as k${i}`)));
  return rows.map((r: Record<string, unknown>) => ({ rid: Number(r.rid), keys: keys.map((_, i) => String(r[`k${i}`] ?? '')) }));
}

/** The records at these row ids, in the order asked. */
export async function reportRowsByRid(h: Handle, rids: number[]): Promise<ReportRow[]> {
  const byRid = new Map<number, ReportRow>();
  for (let i = 0; i < rids.length; i += LINKS_ASKED) {
    for (const r of await readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).whereIn('rid', rids.slice(i, i + LINKS_ASKED)).select('rid', 'uri', 'json')) {
      byRid.set(Number(r.rid), { rid: Number(r.rid), uri: r.uri, json: r.json });
    }
  }
  return rids.map((rid) => byRid.get(rid)).filter((r): r is ReportRow => r !== undefined);
}

/**
 * The next `limit` records of trees past row `afterRid` (components under these roots, suppressed
 * ones only when asked), in the order stored: a report reads a tree of any size a page at a time.
 */
export async function treeRecordsPage(h: Handle, o: { rootUris: string[]; afterRid: number; limit: number; includeSuppressed: boolean }): Promise<Array<ReportRow & { root_uri: string }>> {
  const q = readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).whereIn('root_uri', o.rootUris).whereNotIn('uri', o.rootUris).where('rid', '>', o.afterRid);
  if (!o.includeSuppressed) q.where('suppressed', false);
  const rows = await q.orderBy('rid').limit(o.limit).select('rid', 'uri', 'json', 'root_uri');
  return rows.map((r: ReportRow & { root_uri: string }) => ({ rid: Number(r.rid), uri: r.uri, json: r.json, root_uri: r.root_uri }));
}

/** Records of `types` linking to any of `toUris`, without their JSON: each link once, with the record's type, tree root and suppression, in the order stored. */
export async function holdersOf(h: Handle, toUris: string[], types: string[]): Promise<Array<{ to_uri: string; uri: string; type: string; root_uri: string | null; suppressed: boolean }>> {
  const found: Array<{ to_uri: string; uri: string; type: string; root_uri: string | null; suppressed: boolean }> = [];
  for (let i = 0; i < toUris.length; i += LINKS_ASKED) {
    const rows = await readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(readsOf(h), 'r'))
      .whereIn('x.to_uri', toUris.slice(i, i + LINKS_ASKED)).whereIn('r.type', types)
      .distinct('x.to_uri', 'r.uri', 'r.type', 'r.root_uri', 'r.suppressed', 'r.rid').orderBy('r.rid');
    found.push(...rows.map((r: { to_uri: string; uri: string; type: string; root_uri: string | null; suppressed: unknown }) => ({
      to_uri: r.to_uri, uri: r.uri, type: r.type, root_uri: r.root_uri, suppressed: Boolean(Number(r.suppressed)),
    })));
  }
  return found;
}

/** The stored JSON of the records at these URIs (those that exist). */
export async function jsonOfUris(h: Handle, uris: string[]): Promise<Array<{ uri: string; json: string }>> {
  const found: Array<{ uri: string; json: string }> = [];
  for (let i = 0; i < uris.length; i += LINKS_ASKED) {
    found.push(...await readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).whereIn('uri', uris.slice(i, i + LINKS_ASKED)).select('uri', 'json'));
  }
  return found;
}

/** Records of `types` linking to any of `toUris`: each link once, with the URI it links to, in the order they were stored. */
export async function linkersOfTypes(h: Handle, toUris: string[], types: string[]): Promise<Array<{ to_uri: string; uri: string; json: string }>> {
  const found: Array<{ to_uri: string; uri: string; json: string }> = [];
  for (let i = 0; i < toUris.length; i += LINKS_ASKED) {
    found.push(...await readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(readsOf(h), 'r'))
      .whereIn('x.to_uri', toUris.slice(i, i + LINKS_ASKED)).whereIn('r.type', types)
      .distinct('x.to_uri', 'r.uri', 'r.json', 'r.rid').orderBy('r.rid'));
  }
  return found;
}

/** How many records of `types` there are (of one repository when given), suppressed ones only when asked. */
export async function reportCount(h: Handle, o: { types: string[]; repoId?: number; includeSuppressed: boolean }): Promise<number> {
  const q = readsOf(h)('records').whereRaw(...visibleArgs(readsOf(h))).whereIn('type', o.types);
  if (o.repoId !== undefined) q.where('repo_id', o.repoId);
  if (!o.includeSuppressed) q.where('suppressed', false);
  return Number((await q.count({ n: '*' }).first())?.n ?? 0);
}

/** Which of `toUris` some record of `types` links to. */
export async function urisLinkedFrom(h: Handle, toUris: string[], types: string[]): Promise<Set<string>> {
  const linked = new Set<string>();
  for (let i = 0; i < toUris.length; i += LINKS_ASKED) {
    const rows = await readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(readsOf(h), 'r'))
      .whereIn('x.to_uri', toUris.slice(i, i + LINKS_ASKED)).whereIn('r.type', types).distinct('x.to_uri');
    for (const r of rows) linked.add(r.to_uri);
  }
  return linked;
}

/**
 * What the records of trees link to of one kind (`toUriPart`: "/top_containers/"): each tree's root
 * URI and a linked URI, once each; suppressed records' links only when asked.
 */
export async function linksUnderTrees(h: Handle, rootUris: string[], toUriPart: string, includeSuppressed: boolean): Promise<Array<{ root: string; to_uri: string }>> {
  const found = new Map<string, { root: string; to_uri: string }>();
  for (let i = 0; i < rootUris.length; i += LINKS_ASKED) {
    const roots = rootUris.slice(i, i + LINKS_ASKED);
    const q = readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(readsOf(h), 'r'))
      .where((w) => w.whereIn('r.uri', roots).orWhereIn('r.root_uri', roots))
      .where('x.to_uri', 'like', `%${toUriPart}%`);
    if (!includeSuppressed) q.where('r.suppressed', false);
    for (const row of await q.distinct('r.uri', 'r.root_uri', 'x.to_uri').orderBy('x.to_uri')) {
      const root = roots.includes(row.uri) ? row.uri : row.root_uri;
      found.set(`${root} ${row.to_uri}`, { root, to_uri: row.to_uri });
    }
  }
  return [...found.values()];
}
