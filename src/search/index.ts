/** Opens the configured search index and its indexer. */
import type { Services } from '../operations/context';
import { EmbeddedIndex } from './embedded';
import { FieldCatalogue } from './fields';
import { Indexer } from './indexer';
import type { SearchIndex } from './port';

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
  if (s.config.search.adapter !== 'embedded') {
    throw new Error(`SEARCH_ADAPTER=${s.config.search.adapter} is not available in this build; use embedded`);
  }
  const index = new EmbeddedIndex(s.config.search.path, fields);
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
