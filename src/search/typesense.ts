/**
 * The Typesense adapter (scale-out): the collection schema comes from the field catalogue, the
 * query AST is translated to Typesense's q / query_by / filter_by / sort_by / facet_by. The
 * translation is pure (tested without a server); only TypesenseIndex talks to one.
 */
import { errors } from '../errors';
import type { SearchDoc } from './documents';
import { collationKey, FieldCatalogue } from './fields';
import type { IndexState, SearchIndex, SearchRequest, SearchResult, SortKey } from './port';
import { resolveDateMath, type Query } from './query';

/** Lists the fields a document has, so "field has a value" can be a filter. */
export const PRESENT = '__present';
const KEY = '__key';
const MS = '__ms';
const META_ID = 'state';


/** Backtick-quoted filter value (Typesense escapes inside backticks are not needed but backticks are). */
function quote(value: string): string {
  return `\`${value.replace(/`/g, '')}\``;
}

function epochMs(value: string): number | undefined {
  const iso = resolveDateMath(value) ?? value;
  const padded = /^\d{4}$/.test(iso) ? `${iso}-01-01T00:00:00Z` : /^\d{4}-\d{2}$/.test(iso) ? `${iso}-01T00:00:00Z` : /^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00Z` : iso;
  const ms = Date.parse(padded);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The Typesense document of a search document: helper fields for dates, sort keys and presence. */
export function toTypesenseDocument(doc: SearchDoc, fields: FieldCatalogue): Record<string, unknown> {
  const out: Record<string, unknown> = { id: String(doc.id) };
  const present: string[] = [];
  for (const [name, value] of Object.entries(doc)) {
    if (name === 'id') continue;
    present.push(name);
    out[name] = value;
    const kind = fields.kind(name);
    const values = Array.isArray(value) ? value : [value];
    if (kind === 'date') {
      const ms = values.map((v) => epochMs(String(v))).filter((n): n is number => n !== undefined);
      if (ms.length) out[`${name}${MS}`] = Array.isArray(value) ? ms : ms[0];
    }
    if (kind === 'collated' || (!Array.isArray(value) && typeof value === 'string' && kind !== 'text')) {
      out[`${name}${KEY}`] = collationKey(String(values[0])).slice(0, 200);
    }
  }
  out[PRESENT] = present;
  return out;
}

/** The collection schema: declared helper fields, everything else typed on arrival. */
export function collectionSchema(name: string): Record<string, unknown> {
  return {
    name,
    enable_nested_fields: false,
    fields: [
      { name: PRESENT, type: 'string[]', facet: false },
      { name: 'fullrecord', type: 'string', optional: true },
      { name: 'json', type: 'string', index: false, optional: true },
      { name: `.*${MS}`, type: 'int64', optional: true, sort: true },
      { name: `.*${KEY}`, type: 'string', optional: true, sort: true },
      { name: '.*', type: 'auto', facet: true, optional: true },
    ],
  };
}

export interface TypesenseQuery {
  q: string;
  query_by: string;
  filter_by?: string;
  prefix?: boolean;
}

/** Query AST → Typesense search parameters (words into q, everything else into filter_by). */
export class TypesenseTranslator {
  constructor(private readonly fields: FieldCatalogue) {}

  query(query: Query, filters: Query[]): TypesenseQuery {
    const words: Array<{ field: string; value: string; prefix: boolean }> = [];
    const rest: Query[] = [];
    const top = query.kind === 'and' ? query.items : [query];
    for (const q of top) {
      // Bare words of the main query are what Typesense ranks on; they must all match (drop_tokens off).
      if (q.kind === 'text' && q.wildcard !== 'pattern' && (words.length === 0 || words[0].field === q.field)) {
        words.push({ field: q.field, value: q.value, prefix: q.wildcard === 'prefix' });
      } else rest.push(q);
    }
    const filter = [...rest, ...filters].filter((q) => q.kind !== 'all').map((q) => this.filter(q));
    const result: TypesenseQuery = {
      q: words.length ? words.map((w) => w.value).join(' ') : '*',
      query_by: words[0]?.field ?? 'fullrecord',
    };
    if (words.some((w) => w.prefix)) result.prefix = true;
    if (filter.length) result.filter_by = filter.join(' && ');
    return result;
  }

  filter(q: Query): string {
    switch (q.kind) {
      case 'all':
        return `${PRESENT}:=${quote('id')} || ${PRESENT}:!=${quote('id')}`;
      case 'none':
        return `${PRESENT}:=${quote('__nothing__')}`;
      case 'and':
        return `(${q.items.map((i) => this.filter(i)).join(' && ')})`;
      case 'or':
        return `(${q.items.map((i) => this.filter(i)).join(' || ')})`;
      case 'not':
        return this.negated(q.item);
      case 'text':
        if (q.wildcard === 'pattern') throw errors.unsupportedBySearchAdapter(`The wildcard pattern ${q.value}`);
        // A word-level match on the field (Typesense's ":" is a token match on string fields).
        return `${q.field}:${quote(q.value)}${q.wildcard === 'prefix' ? '*' : ''}`;
      case 'exists':
        return `${PRESENT}:=${quote(q.field)}`;
      case 'term': {
        if (q.wildcard) {
          if (!/^[^*?]+\*$/.test(q.value)) throw errors.unsupportedBySearchAdapter(`The wildcard pattern ${q.value}`);
          return `${q.field}:${quote(q.value.slice(0, -1))}*`;
        }
        const kind = this.fields.kind(q.field);
        if (kind === 'boolean') return `${q.field}:=${q.value.toLowerCase() === 'true'}`;
        if (kind === 'int') return `${q.field}:=${Number(q.value)}`;
        if (kind === 'date') return `${q.field}${MS}:=${epochMs(q.value) ?? -1}`;
        // An identifier is matched whole or by its words ("SC 0123" by SC), as the embedded index does;
        // `field:value` is Typesense's word match on a string field.
        if (kind === 'collated') return `(${q.field}${KEY}:=${quote(collationKey(q.value))} || ${q.field}:${quote(q.value)})`;
        return `${q.field}:=${quote(q.value)}`;
      }
      case 'range': {
        const kind = this.fields.kind(q.field);
        const numeric = kind === 'int' || kind === 'date';
        if (!numeric) throw errors.unsupportedBySearchAdapter(`A range on the text field ${q.field}`);
        const field = kind === 'date' ? `${q.field}${MS}` : q.field;
        const n = (v: string) => (kind === 'date' ? epochMs(v) : Number(v));
        const parts: string[] = [];
        if (q.from !== undefined) parts.push(`${field}:${q.fromInclusive ? '>=' : '>'}${n(q.from)}`);
        if (q.to !== undefined) parts.push(`${field}:${q.toInclusive ? '<=' : '<'}${n(q.to)}`);
        return parts.length ? `(${parts.join(' && ')})` : `${PRESENT}:=${quote(q.field)}`;
      }
    }
  }

  private negated(q: Query): string {
    if (q.kind === 'term' && !q.wildcard && this.fields.kind(q.field) === 'collated') {
      // Typesense has no negated word match: a negated identifier leaves out the whole value only.
      return `${q.field}${KEY}:!=${quote(collationKey(q.value))}`;
    }
    if (q.kind === 'term' && !q.wildcard) return this.filter(q).replace(':=', ':!=');
    if (q.kind === 'exists') return `${PRESENT}:!=${quote(q.field)}`;
    if (q.kind === 'or') return `(${q.items.map((i) => this.negated(i)).join(' && ')})`;
    if (q.kind === 'and') return `(${q.items.map((i) => this.negated(i)).join(' || ')})`;
    if (q.kind === 'not') return this.filter(q.item);
    if (q.kind === 'all') return this.filter({ kind: 'none' });
    if (q.kind === 'none') return this.filter({ kind: 'all' });
    throw errors.unsupportedBySearchAdapter('Excluding words (NOT / -word)');
  }

  sort(keys: SortKey[]): string {
    return keys
      .slice(0, 3)
      .map((k) => {
        const dir = k.desc ? 'desc' : 'asc';
        if (k.field === 'score') return `_text_match:${dir}`;
        const kind = this.fields.kind(k.field);
        if (kind === 'int') return `${k.field}:${dir}`;
        if (kind === 'date') return `${k.field}${MS}:${dir}`;
        return `${k.field}${KEY}:${dir}`;
      })
      .join(',');
  }
}

export class TypesenseIndex implements SearchIndex {
  readonly kind = 'typesense' as const;
  /** Imports run side by side over HTTP: one rebuild page at a time keeps their order. */
  readonly pagesInFlight = 1;
  // The client's generics describe documents of its own, not the ones built here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly client: any;
  private readonly translator: TypesenseTranslator;
  private ready: Promise<void> | undefined;

  constructor(url: string, apiKey: string, private readonly collection: string, private readonly fields: FieldCatalogue) {
    const u = new URL(url);
    // Loaded here, not at the top: a server on the embedded index never pays its memory (about 8 MB).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Client } = require('typesense') as typeof import('typesense');
    this.client = new Client({
      nodes: [{ host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)), protocol: u.protocol.replace(':', '') }],
      apiKey,
      connectionTimeoutSeconds: 10,
    });
    this.translator = new TypesenseTranslator(fields);
  }

  private meta(): string {
    return `${this.collection}_meta`;
  }

  private ensure(): Promise<void> {
    this.ready ??= (async () => {
      for (const schema of [collectionSchema(this.collection), { name: this.meta(), fields: [{ name: '.*', type: 'auto' }] }]) {
        try {
          await this.client.collections(schema.name).retrieve();
        } catch {
          await this.client.collections().create(schema);
        }
      }
    })();
    return this.ready;
  }

  async state(): Promise<IndexState> {
    await this.ensure();
    try {
      const doc = await this.client.collections(this.meta()).documents(META_ID).retrieve();
      return { checkpoint: Number(doc.checkpoint ?? 0), storeId: doc.store_id || undefined, rebuiltTo: typeof doc.rebuilt_to === 'number' && doc.rebuilt_to >= 0 ? doc.rebuilt_to : null };
    } catch {
      return { checkpoint: 0 };
    }
  }

  async apply(upserts: SearchDoc[], deletes: string[], state: IndexState): Promise<void> {
    await this.ensure();
    const docs = this.client.collections(this.collection).documents();
    if (upserts.length) {
      const results = await docs.import(upserts.map((d) => toTypesenseDocument(d, this.fields)), { action: 'upsert' });
      const failed = (results as Array<{ success: boolean; error?: string }>).filter((r) => !r.success);
      if (failed.length) throw new Error(`Typesense refused ${failed.length} documents: ${failed[0].error}`);
    }
    for (const uri of deletes) {
      await this.client.collections(this.collection).documents(uri).delete().catch((err: { httpStatus?: number }) => {
        if (err.httpStatus !== 404) throw err;
      });
    }
    // As IndexState says (and the embedded index does): no rebuiltTo leaves a rebuild's mark as it
    // is, so changes applied while a rebuild runs do not make it start over; null clears it (-1).
    const meta: Record<string, unknown> = { id: META_ID, checkpoint: state.checkpoint, store_id: state.storeId ?? '' };
    if (state.rebuiltTo !== undefined) meta.rebuilt_to = state.rebuiltTo ?? -1;
    await this.client.collections(this.meta()).documents().emplace(meta, {});
  }

  async search(r: SearchRequest): Promise<SearchResult> {
    await this.ensure();
    const t = this.translator.query(r.query, r.filters);
    const perPage = Math.min(250, Math.max(1, r.limit));
    const params: Record<string, unknown> = {
      ...t,
      per_page: perPage,
      page: Math.floor(r.offset / perPage) + 1,
      drop_tokens_threshold: 0,
      typo_tokens_threshold: 0,
      num_typos: 0,
      exclude_fields: `fullrecord,${PRESENT}`,
    };
    const sortBy = this.translator.sort(r.sort);
    if (sortBy) params.sort_by = sortBy;
    if (r.facets.length) {
      params.facet_by = r.facets.join(',');
      params.max_facet_values = r.facetLimit;
    }
    const res = await this.client.collections(this.collection).documents().search(params);
    const docs = r.limit > 0 ? (res.hits ?? []).map((h: { document: Record<string, unknown> }) => {
      const out: SearchDoc = {};
      for (const [k, v] of Object.entries(h.document)) if (!k.endsWith(MS) && !k.endsWith(KEY)) out[k] = v as SearchDoc[string];
      return out;
    }) : [];
    const facets: SearchResult['facets'] = {};
    for (const f of res.facet_counts ?? []) {
      facets[f.field_name] = f.counts.filter((c: { count: number }) => c.count >= Math.max(1, r.facetMincount)).map((c: { value: string; count: number }) => [c.value, c.count]);
    }
    return { total: res.found ?? 0, docs, facets };
  }

  async clear(storeId: string): Promise<void> {
    await this.ensure();
    await this.client.collections(this.collection).delete();
    this.ready = undefined;
    await this.ensure();
    await this.client.collections(this.meta()).documents().upsert({ id: META_ID, checkpoint: 0, store_id: storeId });
  }

  async count(): Promise<number> {
    await this.ensure();
    return (await this.client.collections(this.collection).retrieve()).num_documents;
  }

  async dump(): Promise<Array<{ uri: string; json: string }>> {
    await this.ensure();
    const text: string = await this.client.collections(this.collection).documents().export({ include_fields: 'uri,json' });
    return text.split('\n').filter(Boolean).map((line) => {
      const d = JSON.parse(line);
      return { uri: d.uri, json: d.json };
    });
  }

  async uris(): Promise<string[]> {
    return (await this.dump()).map((d) => d.uri);
  }

  async close(): Promise<void> {
    // The HTTP client holds no connections that need closing.
  }
}
