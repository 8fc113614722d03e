import fs from 'node:fs';
import { finished } from 'node:stream/promises';
import { action, cliConfig, withStore } from '../context';
import { CliError, progressReporter, say } from '../output';
import { exportRecords, ExportScope } from '../transfer/export';
import type { Verb } from './verb';

interface Options {
  repo?: string;
  all?: boolean;
  out?: string;
}

export const exportVerb: Verb = {
  name: 'export',
  register(program) {
    program
      .command('export')
      .description('write a repository (its record, its records, the global records they link to) or the whole store as JSON lines, one record per line')
      .option('--repo <id>', 'the repository to export (its number, as in /repositories/2)')
      .option('--all', 'every record in the store instead')
      .option('-o, --out <file>', 'the file to write (default: standard output)')
      .action(action(async (options: Options) => {
        if (!!options.repo === !!options.all) throw new CliError('give --repo <id> or --all (one of them)');
        if (options.repo !== undefined && !/^\d+$/.test(options.repo)) throw new CliError(`--repo takes a repository number, not ${JSON.stringify(options.repo)}`);
        const scope: ExportScope = options.all ? { all: true } : { repoId: Number(options.repo) };
        // A file appears under its name only once it is complete: a failed export leaves no truncated file behind.
        const partial = options.out ? `${options.out}.partial` : undefined;
        const out = partial ? fs.createWriteStream(partial) : process.stdout;
        const progress = progressReporter('export');
        const started = Date.now();
        try {
          const { records } = await withStore(cliConfig(), (db, registry) => exportRecords(db, registry, scope, out, (p) => progress.update(p)));
          progress.stop();
          if (partial) {
            out.end();
            await finished(out);
            fs.renameSync(partial, options.out!);
          }
          say.info('exported', { records, to: options.out ?? 'stdout', seconds: (Date.now() - started) / 1000 });
        } catch (err) {
          progress.stop();
          if (partial) {
            out.destroy();
            fs.rmSync(partial, { force: true });
          }
          if (err instanceof Error && /^there is no repository/.test(err.message)) throw new CliError(err.message, 'list them with GET /repositories');
          throw err;
        }
      }));
  },
};
