/** Opens the configured search index and its indexer. */
import type { SearchConfig } from '../config';
import type { Services } from '../records/context';
import type { Registry } from '../registry';
import { EmbeddedIndexWorker } from './embedded/worker';
import { FieldCatalogue } from './fields';
import { Indexer } from './indexer';
import type { SearchIndex } from './port';
import { TypesenseIndex } from './typesense';

export interface SearchServices {
  index: SearchIndex;
  indexer: Indexer;
  fields: FieldCatalogue;
  close(): Promise<void>;
}

declare module '../records/context' {
  interface Services {
    /** The search index and its indexer (absent only in tools that never search). */
    search?: SearchServices;
  }
}

/** Every field a type's search mapping declares, so queries know them as fields. */
function mappedFields(registry: Registry): string[] {
  return Object.values(registry.types).flatMap((t) => Object.keys(t.search?.fields ?? {}));
}

/** Each searched type's rank for searches without a sort (x-archive.search.boost). */
function boosts(registry: Registry): Record<string, number> {
  return Object.fromEntries(Object.values(registry.types).filter((t) => t.search?.boost).map((t) => [t.name, t.search!.boost!]));
}

/** The configured index alone, without an indexer (the search services, and `archive-records doctor`). */
export function openIndex(c: SearchConfig, registry: Registry): { index: SearchIndex; fields: FieldCatalogue } {
  const mapped = mappedFields(registry);
  const fields = new FieldCatalogue(mapped);
  if (c.adapter === 'typesense') {
    if (!c.typesenseUrl || !c.typesenseApiKey) throw new Error('SEARCH_ADAPTER=typesense needs TYPESENSE_URL and TYPESENSE_API_KEY');
    return { index: new TypesenseIndex(c.typesenseUrl, c.typesenseApiKey, c.typesenseCollection, fields), fields };
  }
  return { index: new EmbeddedIndexWorker(c.path, mapped, fields, boosts(registry), registry.types, c.indexThreadYoungMb), fields };
}

export function openSearch(s: Services): SearchServices {
  const { index, fields } = openIndex(s.config.search, s.registry);
  const indexer = new Indexer(s, index, { batchSize: s.config.search.indexerBatchSize, pauseMs: s.config.search.indexerPauseMs, gapWaitMs: s.config.search.indexerGapWaitMs });
  const nudge = () => indexer.nudge();
  s.db.onCommit.push(nudge);
  return {
    index,
    indexer,
    fields,
    async close() {
      s.db.onCommit.splice(s.db.onCommit.indexOf(nudge), 1);
      await indexer.stop();
      await index.close();
    },
  };
}
