import { isPlainObject } from '../../json';
import type { JobType } from '../job-type';
import { optionalBoolean } from '../job-records';
import { editEach } from './per-record';

/**
 * ns2_remover_job (ArchivesSpace's NS2RemoverRunner): notes of resources, archival objects,
 * digital objects and digital object components, in every repository, that hold ` ns2:` (the
 * namespace prefix an old EAD export left on xlink attributes, `<extref ns2:href=...>`) lose
 * every `ns2:`. Each record is saved in a transaction of its own. `dry_run` logs each note as it
 * would become and changes nothing.
 */
const TYPES = ['resource', 'archival_object', 'digital_object', 'digital_object_component'];

export const ns2RemoverJob: JobType = {
  name: 'ns2_remover_job',
  createPermissions: ['administer_system'],
  cancelPermissions: ['administer_system'],

  accept(_s, _repoId, job) {
    return { jsonmodel_type: 'ns2_remover_job', dry_run: optionalBoolean(job, 'dry_run') };
  },

  async run(ctx) {
    const dryRun = !!ctx.job.dry_run;
    const changes: string[] = [];
    const { uris, parts } = await editEach(ctx, { types: TYPES }, (record) => {
      if (!Array.isArray(record.notes)) return 0;
      let changed = 0;
      record.notes = record.notes.map((note: unknown) => {
        if (!isPlainObject(note)) return note;
        const text = JSON.stringify(note);
        if (!text.includes(' ns2:')) return note;
        const replaced = text.replaceAll('ns2:', '');
        changed++;
        if (dryRun) changes.push(`Note:\n  ${text}\nwould become:\n  ${replaced}\n`);
        return JSON.parse(replaced);
      });
      return changed;
    }, dryRun);
    for (const change of changes) await ctx.log(change);
    await ctx.log(`${parts} note(s)${dryRun ? ' would be' : ''} modified.`);
    await ctx.log('================================');
    if (ctx.signal.aborted) {
      await ctx.log(`canceled: the ${uris.length} record(s) changed before the cancel stay changed`);
      if (!dryRun) await ctx.addRecords(uris);
      return 'canceled';
    }
    if (dryRun) await ctx.log('Dry run complete, no records modified.');
    else await ctx.log(uris.length ? 'All done, logging modified records.' : 'All done, no records modified.');
    if (!dryRun) await ctx.addRecords(uris);
    return 'completed';
  },
};
