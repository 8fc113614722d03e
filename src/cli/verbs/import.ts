import fs from 'node:fs';
import { action, cliConfig, withServices } from '../context';
import { CliError, progressReporter, say } from '../output';
import { ImportError, importRecords } from '../transfer/import';
import type { Verb } from './verb';

interface Options {
  in?: string;
  replace?: boolean;
}

export const importVerb: Verb = {
  name: 'import',
  register(program) {
    program
      .command('import')
      .description('write an export back, keeping ids, uris, JSON, lock_version and timestamps; all or nothing (one transaction)')
      .option('-i, --in <file>', 'the file to read (default: standard input)')
      .option('--replace', 'overwrite records that already exist instead of stopping (global records that exist are otherwise kept)')
      .action(action(async (options: Options) => {
        if (options.in && !fs.existsSync(options.in)) throw new CliError(`no such file: ${options.in}`);
        const input = options.in ? fs.createReadStream(options.in) : process.stdin;
        const progress = progressReporter('import');
        const started = Date.now();
        try {
          const summary = await withServices(cliConfig(), (s) => importRecords(s, input, { replace: options.replace }, (p) => progress.update(p)));
          progress.stop();
          say.info('imported', { ...summary, seconds: (Date.now() - started) / 1000 });
          if (summary.dangling_links.count) {
            say.warn('some links point to records that are in neither the export nor this store', summary.dangling_links);
          }
        } catch (err) {
          progress.stop();
          if (err instanceof ImportError) throw new CliError(`import failed, nothing was written: ${err.message}`);
          throw err;
        } finally {
          input.destroy();
        }
      }));
  },
};
