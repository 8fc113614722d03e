/**
 * The job queue: jobs, their files (paths on disk), their log and the records they created. Any
 * app process may submit and read; a runner claims queued jobs with a lease (jobs/runner.ts).
 */
import { type Handle, readsOf, sqlOf, type Tx } from './database';

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

const count = async (query: { count(c: { n: string }): { first(): Promise<{ n?: unknown } | undefined> } }): Promise<number> => Number((await query.count({ n: '*' }).first())?.n ?? 0);

/** The next job's id (the transaction that inserts it holds the store's writer or the new row). */
export async function nextJobId(trx: Tx): Promise<number> {
  const row = await trx('jobs').max({ m: 'id' }).first();
  return Number((row as { m: number | null } | undefined)?.m ?? 0) + 1;
}

export async function insertJob(trx: Tx, job: Pick<JobRow, 'id' | 'repo_id' | 'job_type' | 'job_json' | 'status' | 'owner' | 'submitted_ms'>): Promise<void> {
  await trx('jobs').insert(job);
}

export async function insertJobFile(trx: Tx, file: { job_id: number; kind: 'input' | 'output'; filename: string; stored: string }): Promise<void> {
  await trx('job_files').insert(file);
}

/** A job, optionally only in one repository. */
export async function jobRow(h: Handle, id: number, repoId?: number): Promise<JobRow | undefined> {
  return readsOf(h)('jobs').where(repoId === undefined ? { id } : { id, repo_id: repoId }).first();
}

/** How many queued jobs come before job `id`. */
export async function jobsQueuedBefore(h: Handle, id: number): Promise<number> {
  return count(readsOf(h)('jobs').where({ status: 'queued' }).andWhere('id', '<', id));
}

export async function jobRecordCount(h: Handle, jobId: number): Promise<number> {
  return count(readsOf(h)('job_records').where({ job_id: jobId }));
}

/** A page of a repository's jobs, newest first, optionally of some statuses, and how many there are in all. */
export async function jobPage(h: Handle, repoId: number, statuses: JobStatus[] | undefined, offset: number, limit: number): Promise<{ total: number; rows: JobRow[] }> {
  const base = () => {
    const q = readsOf(h)('jobs').where({ repo_id: repoId });
    if (statuses) q.whereIn('status', statuses);
    return q;
  };
  const total = await count(base());
  const rows = await base().orderBy('id', 'desc').offset(offset).limit(limit);
  return { total, rows };
}

export async function jobLogLines(h: Handle, jobId: number): Promise<string[]> {
  return readsOf(h)('job_log').where({ job_id: jobId }).orderBy('seq').pluck('line');
}

export async function appendJobLog(h: Handle, jobId: number, line: string | string[]): Promise<void> {
  if (typeof line === 'string') {
    await sqlOf(h)('job_log').insert({ job_id: jobId, line });
    return;
  }
  // Many lines (a line per record a job changed) in one transaction, 200 to a statement: on MySQL
  // one commit, where a commit per line waited for the log's flush each.
  await sqlOf(h).transaction(async (trx) => {
    for (let i = 0; i < line.length; i += 200) await trx('job_log').insert(line.slice(i, i + 200).map((l) => ({ job_id: jobId, line: l })));
  });
}

/** The records a job noted, in the order it noted them (job_records.id, migration 023). */
export async function jobRecordUris(h: Handle, jobId: number): Promise<string[]> {
  return readsOf(h)('job_records').where({ job_id: jobId }).orderBy('id').pluck('uri');
}

/** Notes records a job created, 500 a statement. */
export async function addJobRecords(h: Handle, jobId: number, uris: string[]): Promise<void> {
  for (let i = 0; i < uris.length; i += 500) {
    await sqlOf(h)('job_records').insert(uris.slice(i, i + 500).map((uri) => ({ job_id: jobId, uri })));
  }
}

/** A job's files of a kind, in the order they were stored. */
export async function jobFiles(h: Handle, jobId: number, kind: 'input' | 'output'): Promise<Array<{ id: number; filename: string; stored: string }>> {
  return readsOf(h)('job_files').where({ job_id: jobId, kind }).orderBy('id');
}

/** The ids of a job's output files. */
export async function outputFileIds(h: Handle, jobId: number): Promise<number[]> {
  return (await readsOf(h)('job_files').where({ job_id: jobId, kind: 'output' }).pluck('id')).map(Number);
}

/** Where an output file of a job is stored. */
export async function outputFilePath(h: Handle, jobId: number, fileId: number): Promise<string | undefined> {
  const row = await readsOf(h)('job_files').where({ job_id: jobId, kind: 'output', id: fileId }).first('stored');
  return row?.stored;
}

/** Where every file of a job is stored. */
export async function jobFilePaths(h: Handle, jobId: number): Promise<string[]> {
  return readsOf(h)('job_files').where({ job_id: jobId }).pluck('stored');
}

/** Cancels a job that is still queued (a runner may have claimed it meanwhile: then nothing changes). */
export async function cancelQueuedJob(h: Handle, id: number, lockVersion: number): Promise<void> {
  await sqlOf(h)('jobs').where({ id, status: 'queued' }).update({ status: 'canceled', finished_ms: Date.now(), lock_version: lockVersion });
}

/** Asks the runner of a running job to stop it. */
export async function requestJobCancel(h: Handle, id: number): Promise<void> {
  await sqlOf(h)('jobs').where({ id }).update({ cancel_requested: true });
}

/** Whether a job's cancellation was asked for. */
export async function jobCancelRequested(h: Handle, id: number): Promise<boolean> {
  const row = await readsOf(h)('jobs').where({ id }).first('cancel_requested');
  return !!(row && Number(row.cancel_requested));
}

/** Deletes a job with its records, log and files' rows. */
export async function deleteJobRows(trx: Tx, id: number): Promise<void> {
  for (const table of ['job_records', 'job_log', 'job_files']) await trx(table).where({ job_id: id }).delete();
  await trx('jobs').where({ id }).delete();
}

export async function jobCount(h: Handle, statuses: JobStatus[]): Promise<number> {
  return count(readsOf(h)('jobs').whereIn('status', statuses));
}

/** Running jobs whose lease ran out before `now` (their process stopped holding them). */
export async function jobsPastLease(h: Handle, now: number): Promise<JobRow[]> {
  return readsOf(h)('jobs').where({ status: 'running' }).andWhere('lease_until_ms', '<', now);
}

/** Marks a job failed if it is still running with its lease run out; whether it was. */
export async function failJobPastLease(h: Handle, id: number, now: number): Promise<boolean> {
  return !!(await sqlOf(h)('jobs').where({ id, status: 'running' }).andWhere('lease_until_ms', '<', now).update({ status: 'failed', finished_ms: now }));
}

/** Extends the lease `holder` has on a job. */
export async function renewJobLease(h: Handle, id: number, holder: string, untilMs: number): Promise<void> {
  await sqlOf(h)('jobs').where({ id, lease_holder: holder }).update({ lease_until_ms: untilMs });
}

/** The first queued job's id. */
export async function firstQueuedJob(h: Handle): Promise<number | undefined> {
  const next = await readsOf(h)('jobs').where({ status: 'queued' }).orderBy('id').first('id');
  return next ? Number(next.id) : undefined;
}

/** Claims a queued job for `holder` with a lease until `untilMs`; false when another runner claimed it first. */
export async function claimJob(h: Handle, id: number, holder: string, now: number, untilMs: number): Promise<boolean> {
  return !!(await sqlOf(h)('jobs').where({ id, status: 'queued' })
    .update({ status: 'running', started_ms: now, lease_holder: holder, lease_until_ms: untilMs }));
}

/** A job's end: its status, its lease given up. */
export async function finishJob(h: Handle, id: number, fields: { status: JobStatus; finished_ms: number; done: number; lock_version: number }): Promise<void> {
  await sqlOf(h)('jobs').where({ id }).update({ status: fields.status, finished_ms: fields.finished_ms, lease_holder: null, lease_until_ms: null, done: fields.done, lock_version: fields.lock_version });
}

/** How far a running job is: `done` of `total` (null: not known). */
export async function setJobProgress(h: Handle, id: number, done: number, total: number | null): Promise<void> {
  await sqlOf(h)('jobs').where({ id, status: 'running' }).update({ done, total });
}
