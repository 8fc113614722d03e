/**
 * The search operations behind every search route (search.md (a)–(c)), free of HTTP: parameters
 * in, response objects out. Scoping, suppression and forced types are the route's to say.
 */
import { errors } from '../errors';
import type { Services } from '../records/context';
import { visibleRepositoryUris } from '../records/repositories';
import type { Registry } from '../registry';
import type { SearchDoc } from './documents';
import { UNRETURNED_FIELDS } from './fields';
import type { SearchServices } from './index';
import type { SearchRequest, SearchResult, SortKey } from './port';
import { ALL, and, not, or, parseAdvanced, parseLucene, Query, searchedTerms, term } from './query';

export const FACET_LIMIT = 100;
/** Rows the top-container route returns (AppConfig[:max_top_container_results] default). */
export const TOP_CONTAINER_ROWS = 10_000;
const RESOLVE_ROWS = 500;
const DEFAULT_FIELD = 'fullrecord';

export interface SearchParams {
  q?: string;
  aq?: string;
  type?: string[];
  sort?: string;
  facet?: string[];
  facet_mincount?: number;
  filter?: string;
  filter_query?: string[];
  exclude?: string[];
  hl?: boolean;
  root_record?: string;
  dt?: string;
  fields?: string[];
  resolve?: string[];
  page: number;
  page_size: number;
}

export interface Scope {
  /** Repository-scoped routes: that repository's records and the global ones. */
  repoUri?: string;
  /** Types the route forces (`type[]` is replaced). */
  forcedTypes?: string[];
  /** False adds suppressed:false (search.md (a) Suppression). */
  showSuppressed: boolean;
  /** The public user sees published documents only, and its keyword and notes search published text. */
  publishedOnly?: boolean;
}

/** The public interface's account (AppConfig[:public_username]). */
export const PUBLIC_USERNAME = 'public_anonymous';

function engine(s: Services): SearchServices {
  if (!s.search) throw new Error('search is not configured');
  return s.search;
}


export function parseSort(search: SearchServices, text: string | undefined): SortKey[] {
  if (text === undefined || !text.trim()) return [{ field: 'score', desc: true }];
  return text.split(',').map((part) => {
    const [field, dir, ...rest] = part.trim().split(/\s+/);
    const direction = (dir ?? '').toLowerCase();
    if (!field || rest.length || !['asc', 'desc'].includes(direction)) {
      throw errors.searchParamForm('sort', '"<field> asc|desc", comma separated', part.trim());
    }
    if (!search.fields.isSortable(field)) throw errors.unsortable(field);
    return { field, desc: direction === 'desc' };
  });
}

/** Query and filters of a general search request. */
export function planSearch(s: Services, p: SearchParams, scope: Scope): { query: Query; filters: Query[] } {
  const { fields } = engine(s);
  const options = { fields, defaultField: DEFAULT_FIELD };
  let query: Query = ALL;
  if (p.q !== undefined) query = parseLucene(p.q, options, 'q');
  else if (p.aq !== undefined) {
    const published = scope.publishedOnly ? { defaultField: 'fullrecord_published', notesField: 'notes_published' } : {};
    query = parseAdvanced(p.aq, { ...options, ...published, literal: false, param: 'aq' });
  }

  const filters: Query[] = [];
  if (scope.repoUri) filters.push(or([term('repository', scope.repoUri), term('repository', 'global')]));
  const types = scope.forcedTypes ?? p.type ?? [];
  if (types.length) filters.push(or(types.map((t) => term('types', t))));
  if (p.exclude?.length) filters.push(not(or(p.exclude.map((id) => term('id', id)))));
  if (p.filter !== undefined) filters.push(parseAdvanced(p.filter, { ...options, literal: true, param: 'filter' }));
  for (const [i, fq] of (p.filter_query ?? []).entries()) filters.push(parseLucene(fq, options, `filter_query[${i}]`));
  // A tree node's document names its root in the tree role's root property (resource, digital_object...).
  if (p.root_record) filters.push(or(treeRootProperties(s).map((field) => term(field, p.root_record!))));
  if (!scope.showSuppressed) filters.push(term('suppressed', 'false'));
  if (scope.publishedOnly) filters.push(term('publish', 'true'), term('types', 'pui'));
  return { query, filters };
}

/** A stored document as results show it: unreturned fields dropped, uri and jsonmodel_type added. */
function resultEntry(doc: SearchDoc, only: string[] | undefined): Record<string, unknown> {
  if (only?.length) {
    const picked: Record<string, unknown> = {};
    for (const f of only) if (doc[f] !== undefined && !UNRETURNED_FIELDS.has(f)) picked[f] = doc[f];
    picked.uri = doc.uri !== undefined && only.includes('uri') ? doc.uri : (picked.id ?? null);
    picked.jsonmodel_type = only.includes('primary_type') ? doc.primary_type : null;
    return picked;
  }
  const entry: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!UNRETURNED_FIELDS.has(k)) entry[k] = v;
  entry.uri ??= doc.id;
  entry.jsonmodel_type = doc.primary_type;
  return entry;
}

function flatFacets(facets: SearchResult['facets']): Record<string, Array<string | number>> {
  return Object.fromEntries(Object.entries(facets).map(([f, pairs]) => [f, pairs.flat()]));
}

const HIGHLIGHT_SKIP = new Set(['id', 'uri', 'json', 'primary_type', 'types', 'repository', 'created_by', 'last_modified_by']);

/** Highlighting as Solr's original highlighter gives it: matched words wrapped, titles whole. */
export function highlight(docs: SearchDoc[], q: Query): Record<string, Record<string, string[]>> {
  const words = searchedTerms(q).flatMap((t) => t.text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).map((w) => ({ w, prefix: t.prefix })));
  const escape = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = words.length
    ? new RegExp(`(?<![\\p{L}\\p{N}])(${words.map(({ w, prefix }) => escape(w) + (prefix ? '[\\p{L}\\p{N}]*' : '')).join('|')})(?![\\p{L}\\p{N}])`, 'giu')
    : undefined;
  const out: Record<string, Record<string, string[]>> = {};
  for (const doc of docs) {
    const entry: Record<string, string[]> = {};
    for (const [field, value] of Object.entries(doc)) {
      if (!pattern || HIGHLIGHT_SKIP.has(field) || UNRETURNED_FIELDS.has(field)) continue;
      for (const text of (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string')) {
        pattern.lastIndex = 0;
        const m = pattern.exec(text);
        if (!m) continue;
        const whole = field === 'title' || field === 'title_ws';
        const start = whole ? 0 : Math.max(0, m.index - 40);
        const fragment = whole ? text : text.slice(start, start + 100);
        entry[field] = [fragment.replace(pattern, '<span class="searchterm">$1</span>')];
        break;
      }
    }
    out[String(doc.id)] = entry;
  }
  return out;
}

/** resolve[] on search results: `source:target[@compact_resource]` (search.md (c)). */
async function resolveResults(s: Services, results: Record<string, unknown>[], definitions: string[]): Promise<void> {
  for (const definition of definitions) {
    const m = /^([^:@\s]+):([^:@\s]+)(?:@(\w+))?$/.exec(definition);
    if (!m) throw errors.searchParamForm('resolve', '"<source_field>:<target_field>" or "<source_field>:<target_field>@compact_resource"', definition);
    const [, source, target, resolver] = m;
    if (resolver && resolver !== 'compact_resource') throw errors.unknownResolver(resolver);
    const values = [...new Set(results.flatMap((r) => (r[source] === undefined ? [] : Array.isArray(r[source]) ? r[source] : [r[source]]).map(String)))];
    if (!results.some((r) => r[source] !== undefined)) continue;
    const found = values.length
      ? await engine(s).index.search({
        query: or(values.slice(0, 1024).map((v) => term(target, v))),
        filters: [term('suppressed', 'false')],
        sort: [], offset: 0, limit: RESOLVE_ROWS, facets: [], facetMincount: 0, facetLimit: 0,
      })
      : { docs: [] as SearchDoc[] };
    const shaped = (doc: SearchDoc) => {
      if (resolver !== 'compact_resource') return resultEntry(doc, undefined);
      const record = JSON.parse(String(doc.json));
      const keys = ['id_0', 'id_1', 'id_2', 'id_3', 'level', 'other_level', 'title', 'display_string', 'uri', 'publish'];
      return Object.fromEntries(keys.filter((k) => record[k] !== undefined).map((k) => [k, record[k]]));
    };
    for (const result of results) {
      const mine = result[source] === undefined ? [] : (Array.isArray(result[source]) ? result[source] : [result[source]]) as unknown[];
      const map: Record<string, unknown[]> = {};
      for (const v of mine.map(String)) {
        const hits = found.docs.filter((d) => [d[target]].flat().map(String).includes(v));
        if (hits.length) map[v] = hits.map(shaped);
      }
      result[`_resolved_${source}`] = Object.keys(map).length ? map : null;
    }
  }
}

/** The normal JSON search response (search.md (c)). */
export async function runSearch(s: Services, p: SearchParams, scope: Scope): Promise<Record<string, unknown>> {
  const search = engine(s);
  const { query, filters } = planSearch(s, p, scope);
  const pageSize = p.page_size;
  const offset = (p.page - 1) * pageSize;
  const request: SearchRequest = {
    query, filters, sort: parseSort(search, p.sort), offset, limit: pageSize,
    facets: p.facet ?? [], facetMincount: p.facet_mincount ?? 0, facetLimit: FACET_LIMIT,
  };
  const result = await search.index.search(request);
  const results = result.docs.map((d) => resultEntry(d, p.fields));
  if (p.resolve?.length) await resolveResults(s, results, p.resolve);
  const response: Record<string, unknown> = {
    page_size: pageSize,
    first_page: 1,
    last_page: Math.ceil(result.total / pageSize),
    this_page: p.page,
    offset_first: offset + 1,
    offset_last: Math.min(offset + pageSize, result.total),
    total_hits: result.total,
    results,
    facets: { facet_queries: {}, facet_fields: flatFacets(result.facets), facet_ranges: {}, facet_intervals: {}, facet_heatmaps: {} },
  };
  if (p.hl) response.highlighting = highlight(result.docs, query);
  return response;
}

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return /[",\n\r\\]/.test(text) ? `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"` : text;
}

/** dt=csv: a header of field names, then every matching document from `page` on (search.md (c) CSV). */
export async function runSearchCsv(s: Services, p: SearchParams, scope: Scope): Promise<string> {
  const search = engine(s);
  const { query, filters } = planSearch(s, p, scope);
  const pageSize = p.page_size;
  const sort = parseSort(search, p.sort);
  const rows: Record<string, unknown>[] = [];
  for (let offset = (p.page - 1) * pageSize; ; offset += pageSize) {
    const r = await search.index.search({ query, filters, sort, offset, limit: pageSize, facets: [], facetMincount: 0, facetLimit: 0 });
    rows.push(...r.docs.map((d) => resultEntry(d, undefined)));
    if (offset + pageSize >= r.total) break;
  }
  const columns = p.fields?.length ? p.fields : [...new Set(rows.flatMap((r) => Object.keys(r).filter((k) => k !== 'jsonmodel_type')))];
  return [columns.join(','), ...rows.map((r) => columns.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n';
}

/** The top-container route answers Solr's own response shape (search.md (c) Raw Solr response). */
export async function runRawSearch(s: Services, p: Partial<SearchParams>, scope: Scope): Promise<Record<string, unknown>> {
  const started = Date.now();
  const search = engine(s);
  const { fields } = search;
  const options = { fields, defaultField: DEFAULT_FIELD };
  const query = p.q !== undefined ? parseLucene(p.q, options, 'q') : ALL;
  const filters: Query[] = [
    or([term('repository', scope.repoUri!), term('repository', 'global')]),
    or((scope.forcedTypes ?? []).map((t) => term('types', t))),
    term('suppressed', 'false'),
  ];
  if (p.filter !== undefined) filters.push(parseAdvanced(p.filter, { ...options, literal: true, param: 'filter' }));
  const result = await search.index.search({
    query, filters, sort: [{ field: 'score', desc: true }], offset: 0, limit: TOP_CONTAINER_ROWS,
    facets: p.facet ?? [], facetMincount: 0, facetLimit: FACET_LIMIT,
  });
  return {
    responseHeader: { status: 0, QTime: Date.now() - started, params: { q: p.q ?? '*:*', wt: 'json' } },
    response: { numFound: result.total, start: 0, numFoundExact: true, docs: result.docs.map((d) => resultEntry(d, undefined)) },
    facet_counts: { facet_queries: {}, facet_fields: flatFacets(result.facets), facet_ranges: {}, facet_intervals: {}, facet_heatmaps: {} },
  };
}

/** /search/records: the documents of the given URIs, in the order given (search.md (a)). */
export async function searchRecords(s: Services, uris: string[], resolve: string[]): Promise<Record<string, unknown>> {
  const search = engine(s);
  const query = or(uris.map((u) => (u.endsWith('#pui') ? term('id', u) : term('uri', u))));
  const result = await search.index.search({ query, filters: [], sort: [], offset: 0, limit: Math.max(uris.length, 1), facets: [], facetMincount: 0, facetLimit: 0 });
  const order = new Map(uris.map((u, i) => [u.replace(/#pui$/, ''), i]));
  const docs = [...result.docs].sort((a, b) => (order.get(String(a.uri)) ?? 0) - (order.get(String(b.uri)) ?? 0));
  const results = docs.map((d) => resultEntry(d, undefined));
  if (resolve.length) await resolveResults(s, results, resolve);
  const n = result.total;
  const size = Math.max(uris.length, 1);
  return {
    page_size: size, first_page: 1, last_page: Math.ceil(n / size), this_page: 1, offset_first: 1, offset_last: Math.min(size, n),
    total_hits: n, results,
    facets: { facet_queries: {}, facet_fields: {}, facet_ranges: {}, facet_intervals: {}, facet_heatmaps: {} },
  };
}

/** /search/record_types_by_repository: published documents per type, per repository or for one. */
export async function countTypesByRepository(s: Services, types: string[], repoUri: string | undefined): Promise<Record<string, unknown>> {
  const search = engine(s);
  const count = async (repo: string, type: string) =>
    (await search.index.search({
      query: and([or([term('used_within_repository', repo), term('repository', repo)]), term('types', type), term('publish', 'true')]),
      filters: [], sort: [], offset: 0, limit: 0, facets: [], facetMincount: 0, facetLimit: 0,
    })).total;
  const forRepo = async (repo: string) => Object.fromEntries(await Promise.all(types.map(async (t) => [t, await count(repo, t)] as const)));
  if (repoUri) return forRepo(repoUri);
  const repos = await visibleRepositoryUris(s);
  const out: Record<string, unknown> = {};
  for (const repo of repos) out[repo] = await forRepo(repo);
  return out;
}

/** /by-external-id: the URIs whose external_id is exactly `eid` (at most 10). */
export async function findByExternalId(s: Services, eid: string, types: string[]): Promise<string[]> {
  const filters = types.length ? [or(types.map((t) => term('types', t)))] : [];
  const result = await engine(s).index.search({
    query: term('external_id', eid), filters, sort: [], offset: 0, limit: 10, facets: [], facetMincount: 0, facetLimit: 0,
  });
  return result.docs.map((d) => String(d.uri));
}

const rootProperties = new WeakMap<Registry, string[]>();

/** The document fields that name a tree node's root: each tree role's rootProperty (resource, digital_object...). */
function treeRootProperties(s: Services): string[] {
  let found = rootProperties.get(s.registry);
  if (!found) {
    found = [...new Set(Object.values(s.registry.types).flatMap((t) => (t.tree ? [t.tree.rootProperty] : [])))];
    rootProperties.set(s.registry, found);
  }
  return found;
}
