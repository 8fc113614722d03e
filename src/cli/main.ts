#!/usr/bin/env node
/** `archive-records`: running and looking after an installation from the command line (README, "Command line"). */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { projectRoot } from '../registry';
import { verbs } from './verbs';

export function cliProgram(): Command {
  const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
  const program = new Command('archive-records')
    .description('Archive Records Backend: serve the API and look after its store. Settings come from the environment (DB_URL, PORT...), as for the server.')
    .version(version)
    .showHelpAfterError();
  for (const verb of verbs) verb.register(program);
  return program;
}

if (require.main === module) void cliProgram().parseAsync(process.argv);
