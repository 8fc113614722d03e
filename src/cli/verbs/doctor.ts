import { action, cliConfig } from '../context';
import { formatReport, runDoctor } from '../doctor';
import type { Verb } from './verb';

export const doctorVerb: Verb = {
  name: 'doctor',
  register(program) {
    program
      .command('doctor')
      .description('check that the store is reachable and migrated, count its records per type, check its links, and say what to do about problems (exit status 1 when something fails)')
      .option('--json', 'the report as one JSON object')
      .action(action(async (options: { json?: boolean }) => {
        const report = await runDoctor(cliConfig());
        process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : formatReport(report));
        if (!report.ok) process.exitCode = 1;
      }));
  },
};
