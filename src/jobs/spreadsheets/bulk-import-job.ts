/**
 * bulk_import_job (ArchivesSpace's "Load via spreadsheet"): one CSV or XLSX sheet in ArchivesSpace's
 * archival-object (load_type "ao") or digital-object ("digital") template, written all or nothing
 * in one transaction. Every problem is collected with its row and column: a problem ArchivesSpace
 * answers by dropping a value keeps the row (logged); one that stops a row fails the sheet, after
 * the whole sheet has been read so that the log lists every problem. only_validate reads and
 * checks the sheet the same way, writes it in the transaction and rolls it back.
 */
import type { JobType } from '../job-type';
import { AO_MARKER, ArchivalObjectLoad } from './ao-load';
import { DIGITAL_MARKER, DigitalObjectLoad } from './digital-load';
import { acceptSheetJob, runSheetJob, type SheetJobKind } from './sheet-job';

const KINDS: Record<string, SheetJobKind> = {
  ao: { what: 'bulk import of archival objects', marker: AO_MARKER, load: (...args) => new ArchivalObjectLoad(...args) },
  digital: { what: 'bulk import of digital objects', marker: DIGITAL_MARKER, load: (...args) => new DigitalObjectLoad(...args) },
};

export const bulkImportJob: JobType = {
  name: 'bulk_import_job',
  createPermissions: ['import_records'],
  cancelPermissions: ['cancel_importer_job'],
  accept: (s, repoId, job, files) => acceptSheetJob(s, repoId, job, files, 'bulk_import_job', Object.keys(KINDS)),
  run: (ctx) => runSheetJob(ctx, KINDS[String(ctx.job.load_type)]),
};
