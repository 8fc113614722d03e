import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { Config, loadConfig } from './config';
import { createApp } from './http/app';
import { answerClientErrors } from './http/limits';
import { log } from './log';
import { openServices, prepareStore } from './services';
import { serveWriteToken } from './store/write-token';

/** How long a stopping server's indexer catches up, and the limit of a whole shutdown. */
const DRAIN_MS = 5_000;
const SHUTDOWN_MS = 15_000;

/** Opens the store and serves the API on config.port until SIGTERM or SIGINT (`make run`, `archive-records serve`). */
export async function startServer(config: Config = loadConfig()): Promise<Server> {
  const services = await openServices(config);
  const app = createApp(services);
  const server = app.listen(config.port, () => {
    log.info('listening', { port: config.port, store: services.db.describe, ...(cluster.isWorker ? { worker: cluster.worker?.id } : {}) });
  });
  if (cluster.isWorker) relayCommits(services);
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  let stopping = false;
  const stop = (signal: string) => {
    // A cluster's worker hears SIGINT from the terminal and SIGTERM from its primary: one stop.
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    // In-flight requests finish; idle keep-alive connections are closed so close() can complete.
    // Then this process's indexer applies what its last writes left in the change log, so a
    // restart on a single machine leaves nothing for the next start to catch up on.
    server.close(() => {
      const search = services.search;
      const drained = search && config.search.inProcessIndexer
        ? search.indexer.drain(DRAIN_MS).catch((err: Error) => log.warn('stopped before the index caught up; the next start applies the rest', { error: err.message }))
        : Promise.resolve();
      drained
        .then(() => services.webhooks?.stop())
        .then(() => services.jobs?.stop())
        .then(() => search?.close())
        .then(() => services.db.close())
        .then(() => log.info('stopped', { signal }))
        .finally(() => process.exit(0));
    });
    // A keep-alive connection whose request was in flight turns idle only once it is answered.
    server.closeIdleConnections();
    setInterval(() => server.closeIdleConnections(), 50).unref();
    setTimeout(() => {
      log.warn('shutdown took too long; exiting', { ms: SHUTDOWN_MS });
      process.exit(0);
    }, SHUTDOWN_MS).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return server;
}

/**
 * In a cluster, the process holding the indexer's lease (or a webhook subscription's) hears of
 * every other process's commits through the primary, so it acts on them at once rather than at
 * its next poll.
 */
function relayCommits(services: Awaited<ReturnType<typeof openServices>>): void {
  let pending = false;
  services.db.onCommit.push(() => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      if (process.connected) process.send?.({ kind: 'committed' });
    });
  });
  process.on('message', (message: { kind?: string }) => {
    if (message?.kind !== 'committed') return;
    services.search?.indexer.nudge();
    services.webhooks?.nudge();
  });
}

/**
 * WORKERS=N above 1: this process migrates the store once, then forks N server processes that
 * share the port (node:cluster), restarts one that dies (waiting longer after each quick death),
 * and stops them all on SIGTERM or SIGINT, each finishing its requests first.
 */
async function runPrimary(config: Config): Promise<void> {
  await prepareStore(config);
  // SQLite's processes take turns at the file's write lock (store/write-token.ts); MySQL's never ask.
  serveWriteToken();
  let stopping = false;
  let backoffMs = 500;
  const startedAt = new Map<number, number>();
  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
    worker.on('message', (message: { kind?: string }) => {
      if (message?.kind !== 'committed') return;
      for (const other of Object.values(cluster.workers ?? {})) if (other && other !== worker && other.isConnected()) other.send(message);
    });
  };
  cluster.on('exit', (worker: Worker, code, signal) => {
    if (stopping) {
      if (!Object.keys(cluster.workers ?? {}).length) {
        log.info('stopped', { workers: config.workers });
        process.exit(0);
      }
      return;
    }
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    backoffMs = lived > 30_000 ? 500 : Math.min(backoffMs * 2, 30_000);
    log.error('a server process died; starting another', { worker: worker.id, code, signal, in_ms: backoffMs });
    setTimeout(() => !stopping && fork(), backoffMs);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal, workers: Object.keys(cluster.workers ?? {}).length });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => {
      log.warn('shutdown took too long; exiting', { ms: SHUTDOWN_MS + 2_000 });
      process.exit(0);
    }, SHUTDOWN_MS + 2_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (let i = 0; i < config.workers; i++) fork();
  log.info('serving with several processes', { port: config.port, workers: config.workers });
}

/** Starts the server (or, with WORKERS above 1, the processes that serve), or logs why it could not and exits with status 1. */
export function runServer(config?: Config): void {
  (async () => {
    const cfg = config ?? loadConfig();
    if (cfg.workers > 1 && cluster.isPrimary) await runPrimary(cfg);
    else await startServer(cfg);
  })().catch((err) => {
    log.error('failed to start', { error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  });
}

if (require.main === module) runServer();
