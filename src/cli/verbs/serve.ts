import { loadConfig } from '../../config';
import { runServer } from '../../server';
import type { Verb } from './verb';

export const serveVerb: Verb = {
  name: 'serve',
  register(program) {
    program
      .command('serve')
      .description('serve the API (as `make run`): migrates the store, then listens on PORT until SIGTERM or SIGINT')
      .option('-p, --port <port>', 'the HTTP port (default: PORT, else 8089)')
      .action((options: { port?: string }) => {
        runServer(loadConfig({ ...process.env, ...(options.port ? { PORT: options.port } : {}) }));
      });
  },
};
