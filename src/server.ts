import type { Server } from 'node:http';
import { Config, loadConfig } from './config';
import { createApp } from './http/app';
import { answerClientErrors } from './http/limits';
import { log } from './log';
import { openServices } from './services';

/** How long a stopping server's indexer catches up, and the limit of a whole shutdown. */
const DRAIN_MS = 5_000;
const SHUTDOWN_MS = 15_000;

/** Opens the store and serves the API on config.port until SIGTERM or SIGINT (`make run`, `archive-records serve`). */
export async function startServer(config: Config = loadConfig()): Promise<Server> {
  const services = await openServices(config);
  const app = createApp(services);
  const server = app.listen(config.port, () => {
    log.info('listening', { port: config.port, store: services.db.describe });
  });
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  const stop = (signal: string) => {
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
        .then(() => services.jobs?.stop())
        .then(() => search?.close())
        .then(() => services.db.knex.destroy())
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

/** Starts the server, or logs why it could not and exits with status 1. */
export function runServer(config?: Config): void {
  (async () => startServer(config ?? loadConfig()))().catch((err) => {
    log.error('failed to start', { error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  });
}

if (require.main === module) runServer();
