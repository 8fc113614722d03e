import { errors } from '../errors';
import type { JobType } from './job-type';
import { importJob } from './imports/import-job';
import { findAndReplaceJob } from './cleanups/find-and-replace';
import { trimWhitespaceJob } from './cleanups/trim-whitespace';
import { ns2RemoverJob } from './cleanups/ns2-remover';
import { printToPdfJob, containerLabelsJob } from './finding-aids/finding-aid-jobs';
import { containerConversionJob } from './containers/container-conversion';
import { generateSlugsJob } from './identifiers/generate-slugs';
import { generateArksJob } from './identifiers/generate-arks';
import { resourceDuplicateJob } from './resources/resource-duplicate';
import { bulkImportJob } from './spreadsheets/bulk-import-job';
import { topContainerLinkerJob } from './spreadsheets/linker-job';
import { bulkArchivalObjectUpdaterJob } from './spreadsheets/updater-job';
import { reportJob } from './reports/report-job';

/** Every job type this installation runs, by name (GET /job_types lists them in this order). */
export const JOB_TYPES: ReadonlyMap<string, JobType> = new Map([
  importJob,
  findAndReplaceJob,
  printToPdfJob,
  containerLabelsJob,
  generateSlugsJob,
  generateArksJob,
  trimWhitespaceJob,
  ns2RemoverJob,
  resourceDuplicateJob,
  containerConversionJob,
  bulkImportJob,
  topContainerLinkerJob,
  bulkArchivalObjectUpdaterJob,
  reportJob,
].map((t) => [t.name, t]));

/** The type a submitted job names; 400 when it names none this installation runs. */
export function jobTypeNamed(name: string): JobType {
  const type = JOB_TYPES.get(name);
  if (!type) throw errors.mustBeOneOf('job_type', [...JOB_TYPES.keys()], name || undefined);
  return type;
}
