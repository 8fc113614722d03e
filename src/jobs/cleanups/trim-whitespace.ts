import type { JobType } from '../job-type';
import { editEach } from './per-record';

/**
 * trim_whitespace_job (ArchivesSpace's TrimWhitespaceRunner): the titles of the repository's
 * resources, archival objects, accessions, digital objects and digital object components lose
 * their leading and trailing white space, each record saved through the records engine in a
 * transaction of its own, as ArchivesSpace saves them one by one.
 */
const TYPES: Array<[type: string, model: string]> = [
  ['resource', 'Resource'], ['archival_object', 'ArchivalObject'], ['accession', 'Accession'],
  ['digital_object', 'DigitalObject'], ['digital_object_component', 'DigitalObjectComponent'],
];

/** Ruby's String#strip: white space and NUL at either end. */
const strip = (text: string) => text.replace(/^[\s\0]+|[\s\0]+$/g, '');

export const trimWhitespaceJob: JobType = {
  name: 'trim_whitespace_job',
  createPermissions: [],
  cancelPermissions: [],

  accept() {
    return { jsonmodel_type: 'trim_whitespace_job' };
  },

  async run(ctx) {
    const modified: string[] = [];
    for (const [type, model] of TYPES) {
      if (ctx.signal.aborted) break;
      await ctx.log(`Trimming whitespace from ${model} titles`);
      const { uris } = await editEach(ctx, { types: [type], repoId: ctx.repoId }, (record) => {
        if (typeof record.title !== 'string' || strip(record.title) === record.title) return 0;
        record.title = strip(record.title);
        return 1;
      });
      modified.push(...uris);
      await ctx.addRecords(uris);
      await ctx.log(`${uris.length} records modified.`);
      await ctx.log('================================');
    }
    if (ctx.signal.aborted) {
      await ctx.log(`canceled: the ${modified.length} record(s) trimmed before the cancel stay trimmed`);
      return 'canceled';
    }
    await ctx.log(modified.length ? 'All done, logging modified records.' : 'All done, no records modified.');
    return 'completed';
  },
};
