import { checkReportJob } from '../../reports';
import { renderReport } from '../../reports/render';
import { action, cliConfig, withServices } from '../context';
import { CliError, say } from '../output';
import type { Verb } from './verb';

interface Options {
  repo?: string;
  format?: string;
  param?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `archive-records report NAME`: a report (docs/reports.md) to standard output, progress on standard error. */
export const reportVerb: Verb = {
  name: 'report',
  register(program) {
    program
      .command('report <name>')
      .description('write a report (accession_report, location_report... see docs/reports.md) to standard output, with progress on standard error')
      .option('--repo <id>', 'the repository (its number, as in /repositories/2)', '2')
      .option('--format <format>', 'json, csv, html or pdf', 'csv')
      .option('--param <k=v>', 'a report parameter (include_suppressed=true, from=2020-01-01...); repeatable', collect)
      .action(action(async (name: string, options: Options) => {
        if (!/^\d+$/.test(options.repo ?? '')) throw new CliError(`--repo takes a number, not ${JSON.stringify(options.repo)}`);
        const params: Record<string, string> = {};
        for (const p of options.param ?? []) {
          const at = p.indexOf('=');
          if (at < 1) throw new CliError(`--param takes name=value, not ${JSON.stringify(p)}`);
          params[p.slice(0, at)] = p.slice(at + 1);
        }
        const { report, format, values } = checkReportJob({ report_type: name, format: options.format, job_params: params });
        const repoId = Number(options.repo);
        await withServices(cliConfig(), async (s) => {
          const started = Date.now();
          let rows = 0;
          const write = (chunk: string | Buffer) => new Promise<void>((resolve, reject) => process.stdout.write(chunk, (err) => (err ? reject(err) : resolve())));
          await renderReport(report, { s, repoId, format, includeSuppressed: values.include_suppressed === true, values }, write, undefined, (n) => {
            rows = n;
            if (n % 10_000 === 0) say.info('report', { rows: n });
          });
          say.info('report written', { report: report.code, format, rows, seconds: (Date.now() - started) / 1000 });
        });
      }));
  },
};
