import { action, cliConfig, readStdin, withServices } from '../context';
import { CliError, progressReporter, ProgressReporter, say } from '../output';
import { CopyProgress, importFrom } from '../transfer/import-from';
import { SourceApi } from '../transfer/source';
import type { Verb } from './verb';

interface Options {
  user: string;
  password?: string;
  passwordStdin?: boolean;
  repo?: number[];
}

/** Exit status of a copy that finished but left records out (listed in its summary). */
export const EXIT_REFUSED = 2;

function repoId(value: string, previous: number[] = []): number[] {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id < 1) throw new CliError(`--repo takes a repository id (a whole number), not ${JSON.stringify(value)}`);
  return [...previous, id];
}

export const importFromVerb: Verb = {
  name: 'import-from',
  register(program) {
    program
      .command('import-from')
      .description('copy a running ArchivesSpace (or Archive Records Backend) into this store over its API, keeping ids and URIs; run it again to resume or catch up')
      .argument('<url>', 'the backend address of the source (e.g. http://localhost:8089)')
      .requiredOption('--user <username>', 'an administrator of the source')
      .option('--password <password>', 'the password (visible to other local users in the process list: prefer --password-stdin)')
      .option('--password-stdin', 'read the password from standard input')
      .option('--repo <id>', 'copy this repository only (repeat for several); installation-wide records are copied whole', repoId)
      .action(action(async (url: string, options: Options) => {
        if (!!options.password === !!options.passwordStdin) {
          throw new CliError('give the password with --password or --password-stdin (one of them)', 'archive-records import-from URL --user admin --password-stdin < secret-file');
        }
        const password = options.password ?? (await readStdin());
        const api = await SourceApi.login(url, options.user, password);
        say.info('copying', { source: api.base, repositories: options.repo ?? 'all' });
        let current: { label: string; bar: ProgressReporter } | undefined;
        const finishBar = () => {
          current?.bar.stop();
          current = undefined;
        };
        const progress = (p: CopyProgress) => {
          if (current?.label !== p.label) {
            finishBar();
            current = { label: p.label, bar: progressReporter(p.label) };
          }
          current.bar.update(p);
        };
        const started = Date.now();
        try {
          const summary = await withServices(cliConfig(), (s) => importFrom(s, api, { repos: options.repo }, progress));
          finishBar();
          process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
          say.info('copied', { seconds: (Date.now() - started) / 1000, refused: summary.refused.count, skipped_types: summary.skipped.length });
          if (summary.refused.count) {
            say.warn('some records were not copied: the summary lists them with the reason; fix them in the source (or here) and run the same command again', summary.refused.by_type);
            process.exitCode = EXIT_REFUSED;
          }
          if (summary.dangling_links.count) say.warn('some links point to records this store does not hold', summary.dangling_links);
        } finally {
          finishBar();
        }
      }));
  },
};
