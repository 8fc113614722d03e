/** Opens the configured search index and its indexer. */
import type { Services } from '../operations/context';
import { EmbeddedIndexWorker } from './embedded-worker';
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

/** Every field a type's search mapping declares, so queries know them as fields. */
function mappedFields(s: Services): string[] {
  return Object.values(s.registry.types).flatMap((t) => Object.keys(t.search?.fields ?? {}));
}

export function openSearch(s: Services): SearchServices {
  const fields = new FieldCatalogue(mappedFields(s));
  const c = s.config.search;
  let index: SearchIndex;
  if (c.adapter === 'typesense') {
    if (!c.typesenseUrl || !c.typesenseApiKey) throw new Error('SEARCH_ADAPTER=typesense needs TYPESENSE_URL and TYPESENSE_API_KEY');
    index = new TypesenseIndex(c.typesenseUrl, c.typesenseApiKey, c.typesenseCollection, fields);
  } else {
    index = new EmbeddedIndexWorker(c.path, mappedFields(s));
  }
  const indexer = new Indexer(s, index, { batchSize: s.config.search.indexerBatchSize, pauseMs: s.config.search.indexerPauseMs });
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
