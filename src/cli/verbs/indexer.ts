import type { Config } from '../../config';
import { closeServices, openServices } from '../../services';
import { action, cliConfig } from '../context';
import { CliError, progressReporter, say } from '../output';
import type { Verb } from './verb';

interface Options {
  rebuild?: boolean;
  once?: boolean;
}

/** The index thread's young generation during a rebuild (MB): a smaller one costs a rebuild of 100k records half its speed. */
const REBUILD_YOUNG_MB = 64;

/** How long a stopping indexer keeps applying the change log before it leaves the rest to the next one. */
const DRAIN_MS = 10_000;

/**
 * The indexer on its own (app processes started with INDEXER=off): with `rebuild`, the index is
 * first rebuilt from the store (resuming a rebuild that was stopped), with progress; with `once`,
 * it then applies what the change log gained meanwhile and exits, else it keeps indexing until
 * SIGTERM or SIGINT, when it finishes its batch and catches up before it exits.
 */
async function runIndexer(config: Config, options: Options): Promise<void> {
  if (options.rebuild) {
    const youngMb = Math.max(config.search.indexThreadYoungMb, REBUILD_YOUNG_MB);
    config = { ...config, search: { ...config.search, indexThreadYoungMb: youngMb } };
  }
  const services = await openServices(config);
  const search = services.search;
  const close = () => closeServices(services);
  if (!search) {
    await close();
    throw new CliError('search is not configured', 'check SEARCH_ADAPTER and its settings');
  }
  try {
    if (options.rebuild) {
      const progress = progressReporter('reindex');
      const started = Date.now();
      const records = await search.indexer.rebuild((p) => progress.update(p));
      progress.stop();
      say.info('reindexed', { records, seconds: (Date.now() - started) / 1000 });
    }
    if (options.once) {
      await search.indexer.drain(10 * 60_000);
      await close();
      return;
    }
  } catch (err) {
    await close();
    throw err;
  }
  search.indexer.start();
  say.info('indexer running', { store: services.db.describe, index: config.search.adapter });
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      say.info('indexer stopping', { signal });
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await search.indexer.drain(DRAIN_MS).catch((err: Error) => say.warn('stopped before the index caught up; the next indexer applies the rest', { error: err.message }));
  await close();
}

export const indexerVerb: Verb = {
  name: 'indexer',
  register(program) {
    program
      .command('indexer')
      .description('run the indexer as its own process (for app processes started with INDEXER=off): applies the change log to the search index until SIGTERM or SIGINT')
      .option('--rebuild', 'rebuild the index from the store first, with progress')
      .option('--once', 'exit once the index holds every change committed so far')
      .action(action((options: Options) => runIndexer(cliConfig(), options)));
  },
};

export const reindexVerb: Verb = {
  name: 'reindex',
  register(program) {
    program
      .command('reindex')
      .description('rebuild the search index from the store (progress: done/total, rate, ETA), resuming a rebuild that was stopped; then apply the changes made meanwhile, and exit')
      .action(action(() => runIndexer(cliConfig(), { rebuild: true, once: true })));
  },
};
