/**
 * `import-file --type bulk_import_ao|bulk_import_digital|top_container_linker|bulk_archival_object_updater`:
 * a spreadsheet run as its job type runs it (the same checks, the same one transaction, the same
 * log), without a server and without queueing a job: the log goes to stderr, a progress bar counts
 * the rows, and stdout gets a JSON report per file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../errors';
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import type { JobContext } from '../../jobs/job-type';
import { jobTypeNamed } from '../../jobs/types';
import { CliError, progressReporter, say } from '../output';

/** The sheet types of import-file and the job each runs as. */
export const SHEET_TYPES: Record<string, { jobType: string; job: Obj }> = {
  bulk_import_ao: { jobType: 'bulk_import_job', job: { load_type: 'ao' } },
  bulk_import_digital: { jobType: 'bulk_import_job', job: { load_type: 'digital' } },
  top_container_linker: { jobType: 'top_container_linker_job', job: {} },
  bulk_archival_object_updater: { jobType: 'bulk_archival_object_updater_job', job: {} },
};

export interface SheetOptions {
  resource?: string;
  aoid?: string;
  onlyValidate?: boolean;
  createMissingTopContainers?: boolean;
  results?: string;
}

/** Runs each file as a job of the sheet type; answers one report per file and how many failed. */
export async function importSheets(s: Services, repoId: number, typeName: string, files: string[], o: SheetOptions): Promise<{ reports: Obj[]; failed: number }> {
  const sheetType = SHEET_TYPES[typeName];
  const type = jobTypeNamed(sheetType.jobType);
  const needsResource = sheetType.jobType !== 'bulk_archival_object_updater_job';
  if (needsResource && !o.resource) throw new CliError(`--type ${typeName} needs --resource (the resource's number or URI)`);
  if (o.results && !fs.existsSync(o.results)) throw new CliError(`--results: no such folder: ${o.results}`);
  const reports: Obj[] = [];
  let failed = 0;
  for (const file of files) {
    const name = path.basename(file);
    const size = fs.statSync(file).size;
    if (size > s.config.jobs.importMaxBytes) throw new CliError(`${file} is larger than IMPORT_MAX_BYTES (${s.config.jobs.importMaxBytes} bytes)`);
    const fields: Obj = {
      jsonmodel_type: sheetType.jobType, filename: name, ...sheetType.job,
      ...(needsResource ? { resource_id: o.resource, only_validate: o.onlyValidate ? 'true' : 'false' } : {}),
      ...(o.aoid ? { aoid: o.aoid } : {}),
      ...(o.createMissingTopContainers ? { create_missing_top_containers: true } : {}),
    };
    let job: Obj;
    try {
      // The file's size was checked from its stat above, so it is not read into memory for the job's checks.
      job = await type.accept(s, repoId, fields, [{ filename: name, data: Buffer.alloc(0) }]);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      throw new CliError(`${name}: ${JSON.stringify(err.body.error)}`);
    }
    const records: string[] = [];
    const progress = progressReporter(name);
    const ctx: JobContext = {
      s, jobId: 0, repoId, actor: { username: 'admin' }, job, signal: new AbortController().signal,
      inputFiles: [{ filename: name, stored: file }],
      log: async (lines) => {
        for (const line of typeof lines === 'string' ? [lines] : lines) {
          if (line.startsWith('error:')) say.error(line);
          else if (line.startsWith('warning:')) say.warn(line);
          else say.info(line);
        }
      },
      addRecords: async (uris) => void records.push(...uris),
      progress: async () => undefined,
      rowProgress: (done, total) => progress.update({ done, total: total ?? done }),
      addOutputFile: async (filename, data) => {
        if (!o.results) return;
        const target = path.join(o.results, filename);
        if (typeof data === 'string' || Buffer.isBuffer(data)) fs.writeFileSync(target, data);
        else await new Promise<void>((resolve, reject) => data.pipe(fs.createWriteStream(target)).on('finish', resolve).on('error', reject));
      },
    };
    let status: string;
    try {
      status = await type.run(ctx);
    } finally {
      progress.stop();
    }
    if (status !== 'completed') failed++;
    reports.push({ file: name, type: typeName, status, records: records.length });
  }
  return { reports, failed };
}
