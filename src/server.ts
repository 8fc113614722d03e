import { loadConfig } from './config';
import { createApp } from './http/app';
import { answerClientErrors } from './http/limits';
import { log } from './log';
import { openServices } from './services';

async function main() {
  const config = loadConfig();
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
}

main().catch((err) => {
  log.error('failed to start', { error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
