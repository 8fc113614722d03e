/**
 * top_container_linker_job (ArchivesSpace's "Top Container Linker" spreadsheet): links archival
 * objects of a resource to top containers, creating the containers the sheet describes. ArchivesSpace
 * registers it with no create or cancel permissions of its own (submitting a job still needs
 * create_job); it validates the whole sheet before linking anything, as the one transaction does here.
 */
import type { JobType } from '../job-type';
import { LINKER_MARKER, TopContainerLinkerLoad } from './linker-load';
import { acceptSheetJob, runSheetJob, type SheetJobKind } from './sheet-job';

const LINKER: SheetJobKind = { what: 'top container links', marker: LINKER_MARKER, load: (...args) => new TopContainerLinkerLoad(...args) };

export const topContainerLinkerJob: JobType = {
  name: 'top_container_linker_job',
  createPermissions: [],
  cancelPermissions: [],
  accept: (s, repoId, job, files) => acceptSheetJob(s, repoId, { ...job, load_type: 'top_container_linker_job' }, files, 'top_container_linker_job', ['top_container_linker_job']),
  run: (ctx) => runSheetJob(ctx, LINKER),
};
