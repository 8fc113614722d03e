/**
 * The job queue in the store: jobs, their files (on disk under JOB_FILES_DIR), their log and the
 * records they created, in ArchivesSpace's job shapes. Any app process may submit and read; the
 * runner (runner.ts) claims queued jobs with a lease.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors } from '../errors';
import type { Obj } from '../json';
import type { Services } from '../records/context';
import { isoSeconds, writeTransaction } from '../records/context';
import { jobTypeNamed } from './types';
import type { Upload } from './job-type';
import type { Tx } from '../store/database';
import {
  appendJobLog, cancelQueuedJob, deleteJobRows, insertJob, insertJobFile, jobFilePaths, jobLogLines, jobPage, jobRecordCount, jobRecordUris,
  jobRow, type JobRow, jobsQueuedBefore, type JobStatus, nextJobId, outputFileIds, outputFilePath, requestJobCancel,
} from '../store/jobs';

export type { JobRow, JobStatus };

export const jobUri = (repoId: number, id: number) => `/repositories/${repoId}/jobs/${id}`;

/**
 * A new queued job with its files (copied into the job's folder). The job is checked first by its
 * type (jobs/types.ts): an unknown type, or what that type refuses, is answered 400.
 */
export async function submitJob(s: Services, repoId: number, owner: string, job: Obj, files: Upload[]): Promise<Obj> {
  const type = jobTypeNamed(String(job.jsonmodel_type ?? job.job_type ?? ''));
  const stored = await type.accept(s, repoId, job, files);
  return writeTransaction(s, async (trx) => {
    const id = await nextJobId(trx);
    await insertJob(trx, { id, repo_id: repoId, job_type: type.name, job_json: JSON.stringify(stored), status: 'queued', owner, submitted_ms: Date.now() });
    for (const f of files) await storeJobFile(trx, s, id, 'input', f.filename, f.data);
    return { status: 'Created', id, lock_version: 0, stale: null, uri: jobUri(repoId, id), warnings: [] };
  });
}

/** Where a new file of a job goes: the job's folder under JOB_FILES_DIR. */
function jobFilePath(s: Services, jobId: number, kind: 'input' | 'output', filename: string): string {
  const dir = path.join(s.config.jobs.filesDir, String(jobId));
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${kind}-${crypto.randomBytes(4).toString('hex')}-${path.basename(filename).replace(/[^\w.-]/g, '_')}`);
}

/** A file of a job, kept in the job's folder. */
export async function storeJobFile(trx: Tx, s: Services, jobId: number, kind: 'input' | 'output', filename: string, data: Buffer | string): Promise<void> {
  const file = jobFilePath(s, jobId, kind, filename);
  fs.writeFileSync(file, data);
  await insertJobFile(trx, { job_id: jobId, kind, filename, stored: file });
}

/**
 * An output file written as it is produced (a stream is written to disk as it comes, so its
 * size never reaches memory), then listed with the job. Outside any transaction while it is
 * written: what produces it may read the store meanwhile.
 */
export async function addJobOutput(s: Services, jobId: number, filename: string, data: Buffer | string | Readable): Promise<void> {
  const file = jobFilePath(s, jobId, 'output', filename);
  if (typeof data === 'string' || Buffer.isBuffer(data)) fs.writeFileSync(file, data);
  else {
    try {
      await pipeline(data, fs.createWriteStream(file));
    } catch (err) {
      // A stream that failed or was canceled leaves no half-written file behind.
      fs.rmSync(file, { force: true });
      throw err;
    }
  }
  await writeTransaction(s, (trx) => insertJobFile(trx, { job_id: jobId, kind: 'output', filename, stored: file }));
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
    progress: (row.status === 'running' ? s.jobs?.liveProgress(row.id) : undefined) ?? { done: Number(row.done), total: row.total === null ? null : Number(row.total) },
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

/**
 * One output file: where it is and what it is. Served a chunk at a time (a report of a million
 * rows is hundreds of megabytes), never read whole into the server.
 */
export async function outputFile(s: Services, repoId: number, id: number, fileId: number): Promise<{ path: string; contentType: string }> {
  await rowOf(s, repoId, id);
  const stored = await outputFilePath(s.db, id, fileId);
  if (!stored || !fs.existsSync(stored)) throw errors.notFound('Job file');
  return { path: stored, contentType: OUTPUT_TYPES[path.extname(stored).toLowerCase()] ?? 'text/plain; charset=utf-8' };
}

/** Output files are served as what their name says they are (a report's PDF, CSV...). */
const OUTPUT_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf', '.csv': 'text/csv; charset=utf-8', '.json': 'application/json; charset=utf-8', '.html': 'text/html; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8', '.rtf': 'application/rtf', '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Cancels a queued job at once; a running one is stopped by its runner (its transaction rolls back). */
export async function cancelJob(s: Services, repoId: number, id: number): Promise<Obj> {
  const row = await rowOf(s, repoId, id);
  if (row.status === 'queued') {
    await cancelQueuedJob(s.db, id, row.lock_version + 1);
    await appendLog(s, id, 'canceled before it started');
  } else if (row.status === 'running') {
    await requestJobCancel(s.db, id);
    // The process running it stops it at once; another process sees the request at its runner's next tick.
    s.jobs?.cancelRequested(id);
  }
  return { status: 'Updated', id, uri: jobUri(repoId, id) };
}

/** Deletes a job that is not running, with its files and log. */
export async function deleteJob(s: Services, repoId: number, id: number): Promise<Obj> {
  const row = await rowOf(s, repoId, id);
  if (row.status === 'running') throw errors.jobRunning();
  const files = await jobFilePaths(s.db, id);
  await writeTransaction(s, (trx) => deleteJobRows(trx, id));
  for (const f of files) fs.rmSync(f, { force: true });
  return { status: 'Deleted', id };
}

export async function appendLog(s: Services, id: number, line: string | string[]): Promise<void> {
  const at = new Date().toISOString();
  await appendJobLog(s.db, id, typeof line === 'string' ? `${at} ${line}` : line.map((l) => `${at} ${l}`));
}
