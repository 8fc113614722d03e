import type { Server } from 'node:http';
import { Config, loadConfig } from './config';
import { createApp } from './http/app';
import { answerClientErrors } from './http/limits';
import { log } from './log';
import { openServices } from './services';

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
    server.close(() => {
      (services.search?.close() ?? Promise.resolve())
        .then(() => services.db.knex.destroy())
        .finally(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
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
