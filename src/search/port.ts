/** The search-index port: what the indexer and the search operations need of any index. */
import type { SearchDoc } from './documents';
import type { Query } from './query';

export interface SortKey {
  field: string;
  desc: boolean;
}

export interface SearchRequest {
  query: Query;
  /** Restrictions that do not score (repository scope, types, exclusions, filter, filter_query[]). */
  filters: Query[];
  sort: SortKey[];
  offset: number;
  limit: number;
  facets: string[];
  facetMincount: number;
  facetLimit: number;
}

export interface SearchResult {
  total: number;
  docs: SearchDoc[];
  /** Per field, [value, count] pairs, highest count first. */
  facets: Record<string, Array<[string, number]>>;
}

/** Where the index stands: the last change-log entry it holds, and the store it was built from. */
export interface IndexState {
  checkpoint: number;
  storeId?: string;
  /** While a rebuild runs: the last store row it has written (a restarted rebuild goes on from there). */
  rebuiltTo?: number | null;
  /**
   * A rebuild's page written while earlier pages may still be under way: the rebuiltTo the page
   * before it left. An index that finds another refuses the page, so a page that failed is never
   * passed over by the next one (pagesInFlight above 1).
   */
  rebuiltFrom?: number;
}

/**
 * Records as the indexer read them (decorated, links resolved) for an index that builds their
 * documents itself: `json` is their array as JSON text, `types[i]` the type of the i-th.
 */
export interface RecordBatch {
  types: string[];
  json: string;
}

export interface SearchIndex {
  readonly kind: 'embedded' | 'typesense';
  /**
   * How many rebuild pages may be handed over before the first is written: above 1 only for an
   * index that writes them one after another in call order and checks IndexState.rebuiltFrom.
   */
  readonly pagesInFlight: number;
  state(): Promise<IndexState>;
  /** Writes documents and removals, and moves the checkpoint, as one step where the index allows. */
  apply(upserts: SearchDoc[], deletes: string[], state: IndexState): Promise<void>;
  /** apply() with the documents of `records`, built by the index (the embedded one: in its own thread). */
  applyRecords?(records: RecordBatch, deletes: string[], state: IndexState): Promise<void>;
  search(request: SearchRequest): Promise<SearchResult>;
  /** Empties the index and binds it to a store. */
  clear(storeId: string): Promise<void>;
  count(): Promise<number>;
  /** Every document's uri and json, for checks that the index matches the store. */
  dump(): Promise<Array<{ uri: string; json: string }>>;
  uris(): Promise<string[]>;
  /** The memory of the index's own thread, where it has one (GET /system/info). */
  memory?(): Promise<Record<string, number>>;
  close(): Promise<void>;
}
