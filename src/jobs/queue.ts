/**
 * The job queue in the store: jobs, their files (on disk under JOB_FILES_DIR), their log and the
 * records they created, in ArchivesSpace's job shapes. Any app process may submit and read; the
 * runner (runner.ts) claims queued jobs with a lease.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errors } from '../errors';
import type { Obj } from '../json';
import type { Services } from '../records/context';
import { isoSeconds } from '../records/context';
import { importers } from '../exchange/import';
import {
  appendJobLog, cancelQueuedJob, deleteJobRows, insertJob, insertJobFile, jobFilePaths, jobLogLines, jobPage, jobRecordCount, jobRecordUris,
  jobRow, type JobRow, jobsQueuedBefore, type JobStatus, nextJobId, outputFileIds, outputFilePath, requestJobCancel,
} from '../store/jobs';

export type { JobRow, JobStatus };

export const jobUri = (repoId: number, id: number) => `/repositories/${repoId}/jobs/${id}`;

/** The job types this installation runs, and the import types an import_job may name. */
export const JOB_TYPES = ['import_job'];

/**
 * A new queued job with its files (copied into the job's folder). The job object is checked
 * first: an unknown job or import type, or an import with no file, is refused with 400.
 */
export async function submitJob(s: Services, repoId: number, owner: string, job: Obj, files: Array<{ filename: string; data: Buffer }>): Promise<Obj> {
  const jobType = String(job.jsonmodel_type ?? job.job_type ?? '');
  if (!JOB_TYPES.includes(jobType)) throw errors.mustBeOneOf('job_type', JOB_TYPES, jobType || undefined);
  if (!importers[job.import_type]) {
    throw errors.mustBeOneOf('import_type', Object.keys(importers), job.import_type);
  }
  if (!files.length) throw errors.invalidParam('files', 'an import needs at least one file');
  for (const f of files) {
    if (f.data.length > s.config.jobs.importMaxBytes) throw errors.invalidParam('files', `${f.filename} is larger than IMPORT_MAX_BYTES (${s.config.jobs.importMaxBytes} bytes)`);
  }
  const stored = { jsonmodel_type: 'import_job', import_type: job.import_type, filenames: files.map((f) => f.filename) };
  return s.db.transaction(async (trx) => {
    const id = await nextJobId(trx);
    const dir = path.join(s.config.jobs.filesDir, String(id));
    fs.mkdirSync(dir, { recursive: true });
    await insertJob(trx, { id, repo_id: repoId, job_type: 'import_job', job_json: JSON.stringify(stored), status: 'queued', owner, submitted_ms: Date.now() });
    for (const [i, f] of files.entries()) {
      const file = path.join(dir, `${i}-${path.basename(f.filename).replace(/[^\w.-]/g, '_')}`);
      fs.writeFileSync(file, f.data);
      await insertJobFile(trx, { job_id: id, kind: 'input', filename: f.filename, stored: file });
    }
    return { status: 'Created', id, lock_version: 0, stale: null, uri: jobUri(repoId, id), warnings: [] };
  });
}

async function rowOf(s: Services, repoId: number, id: number): Promise<JobRow> {
  const row = await jobRow(s.db, id, repoId);
  if (!row) throw errors.notFound('Job');
  return row;
}

/** A job as ArchivesSpace shows it. */
export async function jobJson(s: Services, row: JobRow): Promise<Obj> {
  const t = (ms: number | null) => (ms === null || ms === undefined ? undefined : isoSeconds(Number(ms)));
  let position: number | undefined;
  if (row.status === 'queued') position = await jobsQueuedBefore(s.db, row.id);
  const created = await jobRecordCount(s.db, row.id);
  return {
    lock_version: row.lock_version, job_type: row.job_type, job: JSON.parse(row.job_json), owner: row.owner, status: row.status,
    time_submitted: t(row.submitted_ms), time_started: t(row.started_ms), time_finished: t(row.finished_ms),
    queue_position: position, has_modified_records: created > 0,
    progress: { done: Number(row.done), total: row.total === null ? null : Number(row.total) },
    jsonmodel_type: 'job', uri: jobUri(row.repo_id, row.id), repository: { ref: `/repositories/${row.repo_id}` },
  };
}

export async function getJob(s: Services, repoId: number, id: number): Promise<Obj> {
  return jobJson(s, await rowOf(s, repoId, id));
}

/** Jobs of a repository, newest first, optionally of some statuses: a page. */
export async function listJobs(s: Services, repoId: number, statuses: JobStatus[] | undefined, page: number, pageSize: number): Promise<Obj> {
  const { total, rows } = await jobPage(s.db, repoId, statuses, (page - 1) * pageSize, pageSize);
  const results = [];
  for (const row of rows) results.push(await jobJson(s, row));
  return { first_page: 1, last_page: Math.max(1, Math.ceil(total / pageSize)), this_page: page, total, results };
}

export async function jobLog(s: Services, repoId: number, id: number, offset: number): Promise<string> {
  await rowOf(s, repoId, id);
  const lines = await jobLogLines(s.db, id);
  return lines.map((l) => `${l}\n`).join('').slice(offset);
}

export async function jobRecords(s: Services, repoId: number, id: number): Promise<Obj[]> {
  await rowOf(s, repoId, id);
  const uris = await jobRecordUris(s.db, id);
  return uris.map((ref) => ({ ref }));
}

export async function outputFiles(s: Services, repoId: number, id: number): Promise<number[]> {
  await rowOf(s, repoId, id);
  return outputFileIds(s.db, id);
}

export async function outputFile(s: Services, repoId: number, id: number, fileId: number): Promise<string> {
  await rowOf(s, repoId, id);
  const stored = await outputFilePath(s.db, id, fileId);
  if (!stored) throw errors.notFound('Job file');
  return fs.readFileSync(stored, 'utf8');
}

/** Cancels a queued job at once; a running one is stopped by its runner (its transaction rolls back). */
export async function cancelJob(s: Services, repoId: number, id: number): Promise<Obj> {
  const row = await rowOf(s, repoId, id);
  if (row.status === 'queued') {
    await cancelQueuedJob(s.db, id, row.lock_version + 1);
    await appendLog(s, id, 'canceled before it started');
  } else if (row.status === 'running') {
    await requestJobCancel(s.db, id);
  }
  return { status: 'Updated', id, uri: jobUri(repoId, id) };
}

/** Deletes a job that is not running, with its files and log. */
export async function deleteJob(s: Services, repoId: number, id: number): Promise<Obj> {
  const row = await rowOf(s, repoId, id);
  if (row.status === 'running') throw errors.jobRunning();
  const files = await jobFilePaths(s.db, id);
  await s.db.transaction((trx) => deleteJobRows(trx, id));
  for (const f of files) fs.rmSync(f, { force: true });
  return { status: 'Deleted', id };
}

export async function appendLog(s: Services, id: number, line: string): Promise<void> {
  await appendJobLog(s.db, id, `${new Date().toISOString()} ${line}`);
}
