/**
 * The reads reports make (src/reports): records of a type a page at a time, in keyset order so
 * each page is an index range and a report over any number of records holds one page; the
 * records a page links to; the records linking to a page's records.
 */
import { type Handle, readsOf } from './database';
import { LINKS_ASKED } from './records';

export interface ReportRow {
  rid: number;
  uri: string;
  json: string;
}

/** The next `limit` records of `types` past row `afterRid` (of one repository when given), suppressed ones only when asked. */
export async function reportPage(
  h: Handle, o: { types: string[]; repoId?: number; includeSuppressed: boolean; afterRid: number; limit: number },
): Promise<ReportRow[]> {
  const q = readsOf(h)('records').whereIn('type', o.types).where('rid', '>', o.afterRid);
  if (o.repoId !== undefined) q.where('repo_id', o.repoId);
  if (!o.includeSuppressed) q.where('suppressed', false);
  const rows = await q.orderBy('rid').limit(o.limit).select('rid', 'uri', 'json');
  return rows.map((r: ReportRow) => ({ rid: Number(r.rid), uri: r.uri, json: r.json }));
}

/** The stored JSON of the records at these URIs (those that exist). */
export async function jsonOfUris(h: Handle, uris: string[]): Promise<Array<{ uri: string; json: string }>> {
  const found: Array<{ uri: string; json: string }> = [];
  for (let i = 0; i < uris.length; i += LINKS_ASKED) {
    found.push(...await readsOf(h)('records').whereIn('uri', uris.slice(i, i + LINKS_ASKED)).select('uri', 'json'));
  }
  return found;
}

/** Records of `types` linking to any of `toUris`: each link once, with the URI it links to, in the order they were stored. */
export async function linkersOfTypes(h: Handle, toUris: string[], types: string[]): Promise<Array<{ to_uri: string; uri: string; json: string }>> {
  const found: Array<{ to_uri: string; uri: string; json: string }> = [];
  for (let i = 0; i < toUris.length; i += LINKS_ASKED) {
    found.push(...await readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid')
      .whereIn('x.to_uri', toUris.slice(i, i + LINKS_ASKED)).whereIn('r.type', types)
      .distinct('x.to_uri', 'r.uri', 'r.json', 'r.rid').orderBy('r.rid'));
  }
  return found;
}

/** How many records of `types` there are (of one repository when given), suppressed ones only when asked. */
export async function reportCount(h: Handle, o: { types: string[]; repoId?: number; includeSuppressed: boolean }): Promise<number> {
  const q = readsOf(h)('records').whereIn('type', o.types);
  if (o.repoId !== undefined) q.where('repo_id', o.repoId);
  if (!o.includeSuppressed) q.where('suppressed', false);
  return Number((await q.count({ n: '*' }).first())?.n ?? 0);
}

/** Which of `toUris` some record of `types` links to. */
export async function urisLinkedFrom(h: Handle, toUris: string[], types: string[]): Promise<Set<string>> {
  const linked = new Set<string>();
  for (let i = 0; i < toUris.length; i += LINKS_ASKED) {
    const rows = await readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid')
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
    const q = readsOf(h)('record_refs as x').join('records as r', 'r.rid', 'x.from_rid')
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
