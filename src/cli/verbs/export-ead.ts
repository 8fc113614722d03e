import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { EAD_RESOLVE, writeEad, writeEad3, writePdf } from '../../exchange/export/ead';
import { loadForExport } from '../../exchange/export/common';
import { XmlWriter } from '../../exchange/xml';
import type { Services } from '../../records/context';
import { readRecord } from '../../records/load';
import { REPOSITORY_TYPE } from '../../registry';
import { shownOfType } from '../../store/domain-reads';
import { action, cliConfig, withServices } from '../context';
import { CliError, progressReporter, say } from '../output';
import type { Verb } from './verb';

interface Options {
  repo?: string;
  resource?: string;
  allPublished?: boolean;
  out?: string;
  includeUnpublished?: boolean;
  includeDaos?: boolean;
  numberedCs?: boolean;
  ead3?: boolean;
  pdf?: boolean;
}

/** Writes one resource's EAD to a file, complete or not at all (a `.partial` file is renamed at the end). */
async function exportOne(s: Services, repoId: number, resourceId: number, file: string | undefined, o: Options): Promise<void> {
  const resource = await loadForExport(s, 'resource', resourceId, repoId, EAD_RESOLVE);
  const repository = await readRecord(s, { type: s.registry.type(REPOSITORY_TYPE) }, repoId);
  const partial = file ? `${file}.partial` : undefined;
  const out = partial ? fs.createWriteStream(partial) : process.stdout;
  const send = (chunk: string | Buffer) => new Promise<void>((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve())));
  const options = { includeUnpublished: !!o.includeUnpublished, includeDaos: !!o.includeDaos, includeUris: true, numberedCs: !!o.numberedCs };
  try {
    if (o.pdf) await writePdf(s, send, resource, repository, options);
    else {
      const w = new XmlWriter(send);
      w.declaration();
      await (o.ead3 ? writeEad3 : writeEad)(s, w, resource, repository, options);
      await w.end();
    }
    if (partial) {
      (out as fs.WriteStream).end();
      await finished(out);
      fs.renameSync(partial, file!);
    }
  } catch (err) {
    if (partial) {
      (out as fs.WriteStream).destroy();
      fs.rmSync(partial, { force: true });
    }
    throw err;
  }
}

const number = (flag: string, value: string | undefined): number => {
  if (value === undefined || !/^\d+$/.test(value)) throw new CliError(`${flag} takes a number, not ${JSON.stringify(value)}`);
  return Number(value);
};

export const exportEadVerb: Verb = {
  name: 'export-ead',
  register(program) {
    program
      .command('export-ead')
      .description('write EAD 2002 (or EAD3, or PDF) finding aids: one resource (to a file or standard output), or every published resource of a repository into a folder')
      .option('--repo <id>', 'the repository (its number, as in /repositories/2)')
      .option('--resource <id>', 'the resource to export (its number)')
      .option('--all-published', 'every published, unsuppressed resource of the repository, one file each (needs --out <folder>)')
      .option('-o, --out <path>', 'the file to write (one resource; default: standard output) or the folder (with --all-published)')
      .option('--include-unpublished', 'include unpublished components, notes and agents (marked audience="internal")')
      .option('--include-daos', 'include digital objects as dao / daogrp')
      .option('--numbered-cs', 'write <c01>..<c12> instead of <c>')
      .option('--ead3', 'write EAD3 instead of EAD 2002')
      .option('--pdf', 'write the printable finding aid (PDF: title page, collection overview, container list)')
      .action(action(async (options: Options) => {
        const repoId = number('--repo', options.repo);
        if (!!options.resource === !!options.allPublished) throw new CliError('give --resource <id> or --all-published (one of them)');
        await withServices(cliConfig(), async (s) => {
          if (options.resource !== undefined) {
            await exportOne(s, repoId, number('--resource', options.resource), options.out, options);
            say.info('exported', { resource: `/repositories/${repoId}/resources/${options.resource}`, to: options.out ?? 'stdout' });
            return;
          }
          if (!options.out) throw new CliError('--all-published writes one file per resource: give the folder with --out <folder>');
          fs.mkdirSync(options.out, { recursive: true });
          const rows = await shownOfType(s.db, 'resource', repoId);
          const wanted = rows.filter((r) => JSON.parse(r.json).publish === true);
          const progress = progressReporter('export-ead');
          const started = Date.now();
          for (const [i, row] of wanted.entries()) {
            await exportOne(s, repoId, row.id, path.join(options.out, `resource_${row.id}_ead.${options.pdf ? 'pdf' : 'xml'}`), options);
            progress.update({ done: i + 1, total: wanted.length });
          }
          progress.stop();
          say.info('exported', { resources: wanted.length, to: options.out, seconds: (Date.now() - started) / 1000 });
        });
      }));
  },
};
