/**
 * The indexer as its own process (`npm run indexer`): for deployments where the app processes
 * run with INDEXER=off. With `--rebuild` it rebuilds the index from the store first (the same
 * as `make reindex`), showing progress, then keeps indexing new changes unless `--once`.
 */
import cliProgress from 'cli-progress';
import { loadConfig } from '../config';
import { log } from '../log';
import { openServices } from '../services';
import type { Progress } from './indexer';

/** A progress bar on a terminal; periodic structured log lines otherwise. */
export function progressReporter(label: string): { update(p: Progress): void; stop(): void } {
  const started = Date.now();
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {value}/{total} records | {rate} records/s | ETA {eta_formatted}`, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    let begun = false;
    return {
      update(p) {
        if (!begun) bar.start(p.total, 0, { rate: 0 });
        begun = true;
        bar.setTotal(p.total);
        bar.update(p.done, { rate: Math.round(p.done / Math.max(0.001, (Date.now() - started) / 1000)) });
      },
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  const line = (p: Progress, force = false) => {
    if (!force && Date.now() - last < 2000) return;
    last = Date.now();
    const seconds = (Date.now() - started) / 1000;
    const rate = p.done / Math.max(0.001, seconds);
    log.info(label, { done: p.done, total: p.total, rate: Math.round(rate), eta_s: rate ? Math.round((p.total - p.done) / rate) : null });
  };
  let latest: Progress = { done: 0, total: 0 };
  return {
    update(p) {
      latest = p;
      line(p);
    },
    stop: () => line(latest, true),
  };
}

async function main() {
  const args = new Set(process.argv.slice(2));
  const config = loadConfig({ ...process.env, INDEXER: 'off' });
  const services = await openServices(config);
  const search = services.search!;
  if (args.has('--rebuild')) {
    const progress = progressReporter('reindex');
    const started = Date.now();
    const done = await search.indexer.rebuild((p) => progress.update(p));
    progress.stop();
    log.info('reindexed', { records: done, seconds: (Date.now() - started) / 1000 });
  }
  if (args.has('--once')) {
    await search.indexer.drain(10 * 60_000);
    await search.close();
    await services.db.knex.destroy();
    return;
  }
  search.indexer.start();
  log.info('indexer running', { store: services.db.describe, index: config.search.adapter });
  const stop = async (signal: string) => {
    log.info('indexer stopping', { signal });
    await search.close();
    await services.db.knex.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  log.error('indexer failed', { error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
