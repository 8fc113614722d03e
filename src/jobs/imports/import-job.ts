import { errors } from '../../errors';
import { log } from '../../log';
import { importers } from '../../exchange/import';
import { ImportFailed } from '../../exchange/import/types';
import type { JobEnd, JobType } from '../job-type';

/** The import options a job keeps: ArchivesSpace's import_job schema's, and untitled_components (ead_xml). */
const OPTIONS = ['import_events', 'import_subjects', 'import_repository', 'untitled_components'];

/** import_job: each file through the importer its import_type names, one transaction per file. */
export const importJob: JobType = {
  name: 'import_job',
  createPermissions: ['import_records'],
  cancelPermissions: ['cancel_job'],

  accept(s, _repoId, job, files) {
    if (!importers[job.import_type]) throw errors.mustBeOneOf('import_type', Object.keys(importers), job.import_type);
    if (!files.length) throw errors.invalidParam('files', 'an import needs at least one file');
    for (const f of files) {
      if (f.data.length > s.config.jobs.importMaxBytes) throw errors.invalidParam('files', `${f.filename} is larger than IMPORT_MAX_BYTES (${s.config.jobs.importMaxBytes} bytes)`);
    }
    const options = Object.fromEntries(OPTIONS.filter((o) => job[o] !== undefined && job[o] !== null).map((o) => [o, job[o]]));
    for (const [o, v] of Object.entries(options)) {
      if (typeof v !== 'string' && typeof v !== 'boolean') throw errors.invalidParam(o, 'must be a string ("1" to choose it) or a boolean');
    }
    return { jsonmodel_type: 'import_job', import_type: job.import_type, filenames: files.map((f) => f.filename), ...options };
  },

  async run(ctx) {
    const importer = importers[ctx.job.import_type];
    let status: JobEnd = 'completed';
    await ctx.log(`started: ${importer.label}, ${ctx.inputFiles.length} file(s)`);
    let before = 0;
    let fileDone = 0;
    for (const f of ctx.inputFiles) {
      before += fileDone;
      fileDone = 0;
      if (ctx.signal.aborted) {
        status = 'canceled';
        await ctx.log(`canceled before ${f.filename}; nothing of it was written`);
        break;
      }
      try {
        const options = Object.fromEntries(OPTIONS.filter((o) => ctx.job[o] !== undefined).map((o) => [o, ctx.job[o]]));
        const report = await importer.run(ctx.s, ctx.repoId, ctx.actor, { path: f.stored, name: f.filename, options }, {
          signal: ctx.signal,
          // On SQLite, the file in chunks pending for this job, published at its end (store/pending.ts), where
          // the importer can: other clients' writes run between chunks. MariaDB's row locks already let
          // them through, and there a deadlock (InnoDB) is retried by running a one-transaction file
          // again, which a chunk already committed cannot be.
          ...(ctx.s.config.jobs.importChunkMs && ctx.s.db.dialect === 'sqlite' ? { chunks: { job: ctx.jobId, chunkMs: ctx.s.config.jobs.importChunkMs } } : {}),
          // Not awaited: a line that cannot be written (the store busy past DB_WAIT_SECONDS behind a
          // one-transaction file) is lost, not an unhandled rejection that ends the process.
          log: (level, message) => void ctx.log(`${level}: ${message}`).catch(() => undefined),
          // Records written so far, over the files before this one: the runner keeps the figure
          // and writes it with the lease (a write from inside the file's transaction would wait
          // for its commit on SQLite).
          progress: (done, total) => {
            fileDone = done;
            void ctx.progress(before + done, total === undefined ? undefined : before + total);
          },
        });
        await ctx.addRecords(report.created);
        await ctx.log(`${f.filename}: imported (${Object.entries(report.counts).map(([t, n]) => `${n} ${t}`).join(', ')}), ${report.warnings.length} warning(s)`);
      } catch (err) {
        if (ctx.signal.aborted) {
          status = 'canceled';
          await ctx.log(`${f.filename}: canceled; nothing of this file was written`);
          break;
        }
        status = 'failed';
        const message = err instanceof ImportFailed ? err.message : `${f.filename}: ${(err as Error).message}`;
        await ctx.log(`error: ${message}; nothing of this file was written`);
        if (!(err instanceof ImportFailed)) log.error('import job', { job: ctx.jobId, error: (err as Error).stack });
      }
    }
    return status;
  },
};
