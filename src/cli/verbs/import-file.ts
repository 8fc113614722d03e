import fs from 'node:fs';
import path from 'node:path';
import { importers } from '../../exchange/import';
import { ImportFailed } from '../../exchange/import/types';
import { hasRecord } from '../../store/domain-reads';
import { action, cliConfig, withServices } from '../context';
import { CliError, progressReporter, say } from '../output';
import type { Verb } from './verb';
import { importSheets, SHEET_TYPES, type SheetOptions } from './import-sheet';

interface Options extends SheetOptions {
  repo?: string;
  type?: string;
  importEvents?: boolean;
  importSubjects?: boolean;
  untitledComponents?: boolean;
}

const TYPES = () => [...Object.keys(importers), ...Object.keys(SHEET_TYPES)];

export const importFileVerb: Verb = {
  name: 'import-file',
  register(program) {
    program
      .command('import-file')
      .description('import files (EAD finding aids, spreadsheets...) into a repository as an import job does: each file in one transaction, a report of what it created')
      .option('--repo <id>', 'the repository (its number, as in /repositories/2)')
      .option('--type <type>', `the import type: ${TYPES().join(', ')}`)
      .option('--import-events', 'marcxml_auth_agent: the record\'s creation as a maintenance event (the job option import_events)')
      .option('--import-subjects', 'marcxml_auth_agent: topics, functions, occupations and places as subjects (import_subjects)')
      .option('--untitled-components', 'ead_xml: a component with neither title nor date is titled from its container or level (untitled_components)')
      .option('--resource <id>', 'spreadsheets: the resource the rows belong to (its number or URI)')
      .option('--aoid <id>', 'bulk_import_ao: the archival object the rows are loaded from (level 1 rows go beside it, as ArchivesSpace places them)')
      .option('--only-validate', 'spreadsheets: check the sheet and write nothing')
      .option('--create-missing-top-containers', 'bulk_archival_object_updater: create the top containers the sheet names that the resource does not have')
      .option('--results <dir>', "spreadsheets: a folder for each sheet's results file")
      .argument('<files...>', 'the files to import')
      .action(action(async (files: string[], options: Options) => {
        if (!options.repo || !/^\d+$/.test(options.repo)) throw new CliError(`--repo takes a repository number, not ${JSON.stringify(options.repo)}`);
        const importer = importers[options.type ?? ''];
        if (!importer && !SHEET_TYPES[options.type ?? '']) throw new CliError(`--type must be one of ${TYPES().join(', ')}`);
        for (const f of files) if (!fs.existsSync(f)) throw new CliError(`no such file: ${f}`);
        const repoId = Number(options.repo);
        if (!importer) {
          const sheets = await withServices({ ...cliConfig(), jobs: { ...cliConfig().jobs, run: false } }, async (s) => {
            if (!(await hasRecord(s.db, { type: 'repository', id: repoId }))) throw new CliError(`there is no repository ${repoId}`, 'list them with GET /repositories');
            return importSheets(s, repoId, options.type!, files, options);
          });
          process.stdout.write(`${JSON.stringify(sheets.reports, null, 2)}\n`);
          if (sheets.failed) throw new CliError(`${sheets.failed} of ${files.length} sheet(s) failed (nothing of those was written); the log above names each problem`);
          return;
        }
        const importOptions = {
          import_events: !!options.importEvents, import_subjects: !!options.importSubjects, untitled_components: !!options.untitledComponents,
        };
        const reports: unknown[] = [];
        let failed = 0;
        await withServices({ ...cliConfig(), jobs: { ...cliConfig().jobs, run: false } }, async (s) => {
          if (!(await hasRecord(s.db, { type: 'repository', id: repoId }))) {
            throw new CliError(`there is no repository ${repoId}`, 'list them with GET /repositories');
          }
          for (const file of files) {
            const progress = progressReporter(path.basename(file));
            try {
              const report = await importer.run(s, repoId, { username: 'admin' }, { path: file, name: path.basename(file), options: importOptions }, {
                log: (level, message) => (level === 'warning' ? say.warn(message) : say.info(message)),
                progress: (done, total) => progress.update({ done, total: total ?? done }),
              });
              reports.push(report);
            } catch (err) {
              if (!(err instanceof ImportFailed)) throw err;
              failed++;
              say.error(err.message);
              reports.push({ file: path.basename(file), error: err.message });
            } finally {
              progress.stop();
            }
          }
        });
        process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
        if (failed) throw new CliError(`${failed} of ${files.length} file(s) could not be imported (nothing of those was written)`);
      }));
  },
};
