/**
 * The embedded index in a worker thread: its SQLite work (tokenising, B-tree writes, matching)
 * runs beside the main thread instead of blocking it, so requests keep being served during a
 * long search or a reindex, and a reindex builds the next documents while the last are written.
 * Live indexing hands it the records themselves (applyRecords): their documents are built here.
 */
import path from 'node:path';
import v8 from 'node:v8';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import type { Obj } from '../../json';
import { Registry, type TypeInfo } from '../../registry';
import { buildDocuments, type SearchDoc } from '../documents';
import { FieldCatalogue } from '../fields';
import type { IndexState, RecordBatch, SearchIndex, SearchRequest, SearchResult } from '../port';
import { bodiesAsBytes, EmbeddedIndex, prepareDocument } from './index';

interface Call {
  id: number;
  method: 'state' | 'apply' | 'applyPrepared' | 'applyRecords' | 'search' | 'clear' | 'count' | 'dump' | 'uris' | 'close' | 'memory';
  args: unknown[];
}

if (parentPort && workerData?.embeddedIndex) {
  const { file, mapped, boosts, types } = workerData.embeddedIndex as {
    file: string; mapped: string[]; boosts: Record<string, number>; types: Record<string, TypeInfo>;
  };
  const index = new EmbeddedIndex(file, new FieldCatalogue(mapped), boosts);
  // The types alone: building documents needs no validators.
  const registry = new Registry({ types }, {});
  const port = parentPort;
  const run = (call: Call): unknown => {
    if (call.method === 'memory') return threadMemory();
    if (call.method === 'applyRecords') {
      const [batch, deletes, state] = call.args as [RecordBatch, string[], IndexState];
      return index.apply(buildDocuments(registry, batch.types, JSON.parse(batch.json) as Obj[]), deletes, state);
    }
    return (index[call.method] as (...a: unknown[]) => Promise<unknown>).apply(index, call.args);
  };
  port.on('message', async (call: Call) => {
    try {
      const result = await run(call);
      port.postMessage({ id: call.id, result });
      if (call.method === 'close') port.close();
    } catch (err) {
      port.postMessage({ id: call.id, error: (err as Error).message });
    }
  });
}

/** This thread's JavaScript heap, in bytes (the process's memoryUsage() tells only the main thread's). */
function threadMemory(): Record<string, number> {
  const h = v8.getHeapStatistics();
  return { heap_used: h.used_heap_size, heap_total: h.total_heap_size, external: h.external_memory };
}

/** The SearchIndex port of an EmbeddedIndex living in a worker thread. */
export class EmbeddedIndexWorker implements SearchIndex {
  readonly kind = 'embedded' as const;
  /** The thread takes calls in order, one at a time: a rebuild's next page waits in its queue. */
  readonly pagesInFlight = 2;
  private readonly worker: Worker;
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
  private exited = false;

  /**
   * `fields`: the catalogue of `mapped` this thread already has (a rebuild prepares its pages with
   * it); `youngMb`: the thread's young generation (SearchConfig.indexThreadYoungMb), V8's default when absent.
   */
  constructor(
    file: string, mapped: string[], private readonly fields: FieldCatalogue, boosts: Record<string, number>, types: Record<string, TypeInfo>, youngMb?: number,
  ) {
    // Under tsx (tests, `npm run` from sources) the worker loads the .ts file through the same hook.
    const fromSources = __filename.endsWith('.ts');
    this.worker = new Worker(path.join(__dirname, `worker.${fromSources ? 'ts' : 'js'}`), {
      workerData: { embeddedIndex: { file: file === ':memory:' ? file : path.resolve(file), mapped, boosts, types } },
      execArgv: fromSources ? ['--require', 'tsx/cjs'] : [],
      resourceLimits: youngMb ? { maxYoungGenerationSizeMb: youngMb } : {},
    });
    this.worker.unref();
    this.worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const waiter = this.pending.get(m.id);
      if (!waiter) return;
      this.pending.delete(m.id);
      if (!this.pending.size) this.worker.unref();
      if (m.error !== undefined) waiter.reject(new Error(m.error));
      else waiter.resolve(m.result as never);
    });
    const fail = (err: Error) => {
      this.exited = true;
      for (const w of this.pending.values()) w.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('the search index is not open')));
  }

  private call<T>(method: Call['method'], args: unknown[] = [], transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.exited) return Promise.reject(new Error('the search index is not open'));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      // The worker keeps the process alive only while an answer is awaited.
      if (!this.pending.size) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, method, args } satisfies Call, transfer);
    });
  }

  state(): Promise<IndexState> {
    return this.call('state');
  }
  apply(upserts: SearchDoc[], deletes: string[], state: IndexState): Promise<void> {
    // A rebuild's pages are prepared (serialised) here, in the thread that builds them, and
    // compressed and written by the index thread, so the two threads share its work (the index
    // thread alone was the bottleneck, busy 94 % of a rebuild). Compressing here too whenever the
    // index thread was still writing the page before made this thread the slower side (100k on
    // MariaDB: 24.6-26.7 s against 19.3-24.3 s). Live indexing leaves it all to the index
    // thread: here is the thread serving requests.
    if (typeof state.rebuiltTo === 'number' && upserts.length) {
      const prepared = upserts.map((doc) => prepareDocument(doc, this.fields));
      return this.call('applyPrepared', [prepared, deletes, state], [bodiesAsBytes(prepared)]);
    }
    return this.call('apply', [upserts, deletes, state]);
  }
  applyRecords(records: RecordBatch, deletes: string[], state: IndexState): Promise<void> {
    return this.call('applyRecords', [records, deletes, state]);
  }
  search(request: SearchRequest): Promise<SearchResult> {
    return this.call('search', [request]);
  }
  clear(storeId: string): Promise<void> {
    return this.call('clear', [storeId]);
  }
  count(): Promise<number> {
    return this.call('count');
  }
  dump(): Promise<Array<{ uri: string; json: string }>> {
    return this.call('dump');
  }
  uris(): Promise<string[]> {
    return this.call('uris');
  }
  memory(): Promise<Record<string, number>> {
    return this.call('memory');
  }
  async close(): Promise<void> {
    if (this.exited) return;
    await this.call('close').catch(() => undefined);
    await this.worker.terminate();
  }
}
