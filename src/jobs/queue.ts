/**
 * The job queue in the store: jobs, their files (on disk under JOB_FILES_DIR), their log and the
 * records they created, in ArchivesSpace's job shapes. Any app process may submit and read; the
 * runner (runner.ts) claims queued jobs with a lease.
 */
import fs from 'node:fs';
import type { Knex } from 'knex';
import path from 'node:path';
import { errors } from '../errors';
import type { Obj } from '../json';
import type { Services } from '../records/context';
import { isoSeconds } from '../records/context';
import { importers } from '../exchange/import';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'canceled';

export interface JobRow {
  id: number;
  repo_id: number;
  job_type: string;
  job_json: string;
  status: JobStatus;
  owner: string;
  submitted_ms: number;
  started_ms: number | null;
  finished_ms: number | null;
  cancel_requested: unknown;
  done: number;
  total: number | null;
  lock_version: number;
}

export const jobUri = (repoId: number, id: number) => `/repositories/${repoId}/jobs/${id}`;

/** The job types this installation runs, and the import types an import_job may name. */
export const JOB_TYPES = ['import_job'];

async function nextJobId(trx: Knex.Transaction): Promise<number> {
  const row = await trx('jobs').max({ m: 'id' }).first();
  return Number((row as { m: number | null } | undefined)?.m ?? 0) + 1;
}

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
    await trx('jobs').insert({ id, repo_id: repoId, job_type: 'import_job', job_json: JSON.stringify(stored), status: 'queued', owner, submitted_ms: Date.now() });
    for (const [i, f] of files.entries()) {
      const file = path.join(dir, `${i}-${path.basename(f.filename).replace(/[^\w.-]/g, '_')}`);
      fs.writeFileSync(file, f.data);
      await trx('job_files').insert({ job_id: id, kind: 'input', filename: f.filename, stored: file });
    }
    return { status: 'Created', id, lock_version: 0, stale: null, uri: jobUri(repoId, id), warnings: [] };
  });
}

async function rowOf(s: Services, repoId: number, id: number): Promise<JobRow> {
  const row = await s.db.knex('jobs').where({ id, repo_id: repoId }).first();
  if (!row) throw errors.notFound('Job');
  return row as JobRow;
}

/** A job as ArchivesSpace shows it. */
export async function jobJson(s: Services, row: JobRow): Promise<Obj> {
  const t = (ms: number | null) => (ms === null || ms === undefined ? undefined : isoSeconds(Number(ms)));
  let position: number | undefined;
  if (row.status === 'queued') {
    const ahead = await s.db.knex('jobs').where({ status: 'queued' }).andWhere('id', '<', row.id).count({ n: '*' }).first();
    position = Number(ahead?.n ?? 0);
  }
  const created = await s.db.knex('job_records').where({ job_id: row.id }).count({ n: '*' }).first();
  return {
    lock_version: row.lock_version, job_type: row.job_type, job: JSON.parse(row.job_json), owner: row.owner, status: row.status,
    time_submitted: t(row.submitted_ms), time_started: t(row.started_ms), time_finished: t(row.finished_ms),
    queue_position: position, has_modified_records: Number(created?.n ?? 0) > 0,
    progress: { done: Number(row.done), total: row.total === null ? null : Number(row.total) },
    jsonmodel_type: 'job', uri: jobUri(row.repo_id, row.id), repository: { ref: `/repositories/${row.repo_id}` },
  };
}

export async function getJob(s: Services, repoId: number, id: number): Promise<Obj> {
  return jobJson(s, await rowOf(s, repoId, id));
}

/** Jobs of a repository, newest first, optionally of some statuses: a page. */
export async function listJobs(s: Services, repoId: number, statuses: JobStatus[] | undefined, page: number, pageSize: number): Promise<Obj> {
  const base = () => {
    const q = s.db.knex('jobs').where({ repo_id: repoId });
    if (statuses) q.whereIn('status', statuses);
    return q;
  };
  const total = Number((await base().count({ n: '*' }).first())?.n ?? 0);
  const rows = await base().orderBy('id', 'desc').offset((page - 1) * pageSize).limit(pageSize);
  const results = [];
  for (const row of rows) results.push(await jobJson(s, row as JobRow));
  return { first_page: 1, last_page: Math.max(1, Math.ceil(total / pageSize)), this_page: page, total, results };
}

export async function jobLog(s: Services, repoId: number, id: number, offset: number): Promise<string> {
  await rowOf(s, repoId, id);
  const lines: string[] = await s.db.knex('job_log').where({ job_id: id }).orderBy('seq').pluck('line');
  return lines.map((l) => `${l}\n`).join('').slice(offset);
}

export async function jobRecords(s: Services, repoId: number, id: number): Promise<Obj[]> {
  await rowOf(s, repoId, id);
  const uris: string[] = await s.db.knex('job_records').where({ job_id: id }).pluck('uri');
  return uris.map((ref) => ({ ref }));
}

export async function outputFiles(s: Services, repoId: number, id: number): Promise<number[]> {
  await rowOf(s, repoId, id);
  return (await s.db.knex('job_files').where({ job_id: id, kind: 'output' }).pluck('id')).map(Number);
}

export async function outputFile(s: Services, repoId: number, id: number, fileId: number): Promise<string> {
  await rowOf(s, repoId, id);
  const row = await s.db.knex('job_files').where({ job_id: id, kind: 'output', id: fileId }).first('stored');
  if (!row) throw errors.notFound('Job file');
  return fs.readFileSync(row.stored, 'utf8');
}

/** Cancels a queued job at once; a running one is stopped by its runner (its transaction rolls back). */
export async function cancelJob(s: Services, repoId: number, id: number): Promise<Obj> {
  const row = await rowOf(s, repoId, id);
  if (row.status === 'queued') {
    await s.db.knex('jobs').where({ id, status: 'queued' }).update({ status: 'canceled', finished_ms: Date.now(), lock_version: row.lock_version + 1 });
    await appendLog(s, id, 'canceled before it started');
  } else if (row.status === 'running') {
    await s.db.knex('jobs').where({ id }).update({ cancel_requested: true });
  }
  return { status: 'Updated', id, uri: jobUri(repoId, id) };
}

/** Deletes a job that is not running, with its files and log. */
export async function deleteJob(s: Services, repoId: number, id: number): Promise<Obj> {
  const row = await rowOf(s, repoId, id);
  if (row.status === 'running') throw errors.jobRunning();
  const files: string[] = await s.db.knex('job_files').where({ job_id: id }).pluck('stored');
  await s.db.transaction(async (trx) => {
    for (const table of ['job_records', 'job_log', 'job_files']) await trx(table).where({ job_id: id }).delete();
    await trx('jobs').where({ id }).delete();
  });
  for (const f of files) fs.rmSync(f, { force: true });
  return { status: 'Deleted', id };
}

export async function appendLog(s: Services, id: number, line: string): Promise<void> {
  await s.db.knex('job_log').insert({ job_id: id, line: `${new Date().toISOString()} ${line}` });
}
