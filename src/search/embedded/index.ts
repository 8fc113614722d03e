/**
 * The embedded index. On disk (one SQLite file, ./file.ts): FTS5 for tokenised fields, each
 * document's exact-field values in one compact row, the stored documents compressed, and a short
 * log of which documents changed. In memory (./memory.ts): the exact fields as doc values
 * (./doc-values.ts), so filters, facets and sorts are passes over typed arrays, not B-tree
 * look-ups per match. Queries are evaluated in ./match.ts, ordered and counted in ./order.ts,
 * written in ./write.ts.
 *
 * Several processes may open the file (WORKERS=N): one writes (the indexer's lease holder), the
 * others see its commits through `PRAGMA data_version` and catch up from the change log.
 */
import type { SearchDoc } from '../documents';
import type { FieldCatalogue } from '../fields';
import type { IndexState, SearchIndex, SearchRequest, SearchResult } from '../port';
import { and, type Query } from '../query';
import { documentOf, type PreparedDoc, prepareDocument, unpack } from './bodies';
import { evaluate } from './match';
import { IndexMemory } from './memory';
import { facet, page } from './order';
import { clearIndex, writeDocuments } from './write';

export { bodiesAsBytes, type PreparedDoc, prepareDocument } from './bodies';
export { FTS_AUTOMERGE } from './file';

export class EmbeddedIndex implements SearchIndex {
  readonly kind = 'embedded' as const;
  /** Its applies run whole in the caller's turn, so pages are written in call order. */
  readonly pagesInFlight = 2;
  /** What this process holds of the index, and the file. */
  private readonly held: IndexMemory;

  /**
   * `boosts`: each type's rank when a search has no sort (x-archive.search.boost): relevance
   * without scores, as the reference's type boosts (search.md (e)), then index order.
   */
  constructor(file: string, private readonly fields: FieldCatalogue, private readonly boosts: Record<string, number> = {}) {
    this.held = new IndexMemory(file, fields);
  }

  async state(): Promise<IndexState> {
    const rows = this.held.file.stmt('SELECT key, value FROM search_meta').all() as Array<{ key: string; value: string }>;
    const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    return { checkpoint: Number(meta.checkpoint ?? 0), storeId: meta.store_id, rebuiltTo: meta.rebuilt_to !== undefined ? Number(meta.rebuilt_to) : null };
  }

  async apply(upserts: SearchDoc[], deletes: string[], state: IndexState): Promise<void> {
    return this.applyPrepared(upserts.map((doc) => prepareDocument(doc, this.fields)), deletes, state);
  }

  /** apply() of documents already prepared (prepareDocument), by this thread or another. */
  async applyPrepared(upserts: PreparedDoc[], deletes: string[], state: IndexState): Promise<void> {
    writeDocuments(this.held, this.boosts, upserts, deletes, state);
  }

  async clear(storeId: string): Promise<void> {
    clearIndex(this.held, storeId);
  }

  async count(): Promise<number> {
    this.held.sync();
    return this.held.docOf.size;
  }

  async dump(): Promise<Array<{ uri: string; json: string }>> {
    const rows = this.held.file.stmt('SELECT d.uri, b.body FROM search_docs d JOIN search_bodies b ON b.id = d.id ORDER BY d.uri').all() as Array<{ uri: string; body: Buffer }>;
    return rows.map((r) => ({ uri: r.uri, json: String(documentOf(unpack(r.body)).json) }));
  }

  async uris(): Promise<string[]> {
    this.held.sync();
    return [...this.held.docOf.keys()];
  }

  async close(): Promise<void> {
    await this.held.file.close();
  }

  async search(r: SearchRequest): Promise<SearchResult> {
    const m = this.held;
    m.sync();
    // Columns this search needs and no search used before, built in one pass.
    m.valueColumns(valueFieldsOf(r, this.fields));
    const set = evaluate(m, and([r.query, ...r.filters])).and(m.live);
    const total = set.count();
    // The hits as a list only when a step needs one (a dense match's page and facets do not).
    let hits: Int32Array | undefined;
    const hitsOf = () => (hits ??= set.toArray());
    const ids = r.limit > 0 && total > r.offset ? page(m, set, total, hitsOf, r.sort, r.offset, r.limit) : [];
    const bodies = m.bodies(ids);
    const docs = ids.map((id) => documentOf(bodies.get(id)!));
    const facets: SearchResult['facets'] = {};
    for (const field of r.facets) facets[field] = facet(m, field, r, set, total, hitsOf);
    return { total, docs, facets };
  }
}

/** The exact fields a search filters, sorts or facets on (those it may need doc values of). */
function valueFieldsOf(r: SearchRequest, fields: FieldCatalogue): Set<string> {
  const out = new Set<string>();
  const add = (field: string) => {
    if (field !== 'score' && fields.kind(field) !== 'text') out.add(field === 'id' ? 'uri' : field);
  };
  const walk = (q: Query): void => {
    if (q.kind === 'and' || q.kind === 'or') q.items.forEach(walk);
    else if (q.kind === 'not') walk(q.item);
    // A uri is found through the documents' own uris, without the column, unless by a pattern or range.
    else if (q.kind === 'exists' || (q.kind === 'term' && !q.wildcard)) {
      if (q.field !== 'id' && q.field !== 'uri') add(q.field);
    } else if (q.kind === 'term' || q.kind === 'range') add(q.field);
  };
  [r.query, ...r.filters].forEach(walk);
  r.sort.forEach((key) => add(key.field));
  r.facets.forEach(add);
  return out;
}
