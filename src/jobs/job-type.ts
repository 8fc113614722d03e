import type { Readable } from 'node:stream';
import type { Obj } from '../json';
import type { Actor, Services } from '../records/context';

/**
 * The contract between the job runner and each kind of job (ArchivesSpace's job types: import_job,
 * find_and_replace_job, report_job...). A job type says who may submit and cancel it, checks what
 * is submitted before it is queued, and does its work when the runner claims it. Each family of
 * types lives in a folder of its own under src/jobs (imports/, ...) and is listed in types.ts.
 */

/** A file uploaded with a job (jobs_with_files), before it is stored. */
export interface Upload {
  filename: string;
  data: Buffer;
}

/** A stored input file of a job. */
export interface JobFile {
  filename: string;
  /** Where it is on disk. */
  stored: string;
}

/** What a running job has at hand. */
export interface JobContext {
  s: Services;
  jobId: number;
  repoId: number;
  /** The job's owner: its writes are theirs. */
  actor: Actor;
  /** The job as accepted (what `accept` returned). */
  job: Obj;
  inputFiles: JobFile[];
  /** Aborted when the job is canceled or the server stops: stop, and let the transaction roll back. */
  signal: AbortSignal;
  /**
   * A line of the job's log (GET .../jobs/:id/log), timestamped; "warning: ..." and "error: ..." by
   * convention. Many lines at once (a line per record changed) are written together.
   */
  log(line: string | string[]): Promise<void>;
  /** Records the job created or changed (GET .../jobs/:id/records). */
  addRecords(uris: string[]): Promise<void>;
  /**
   * How far the job is (GET .../jobs/:id shows `progress`). Kept in memory and written to the store
   * by the runner with the job's lease, so a job may report from inside its own transaction.
   */
  progress(done: number, total?: number): Promise<void>;
  /**
   * Rows done so far, told from inside the job's transaction as they go by: the command line's
   * progress bar. It must not touch the store (on SQLite the transaction holds the connection); the
   * job runner leaves it out.
   */
  rowProgress?(done: number, total?: number): void;
  /** An output file (GET .../jobs/:id/output_files), e.g. a report or a PDF; a stream is written to disk as it comes. */
  addOutputFile(filename: string, data: Buffer | string | Readable): Promise<void>;
}

export type JobEnd = 'completed' | 'failed' | 'canceled';

export interface JobType {
  /** The job's jsonmodel_type, as clients send it (import_job...). */
  name: string;
  /** Left out of GET /job_types (ArchivesSpace's `hidden`), yet submitted and run like any other. */
  hidden?: boolean;
  /** What GET /job_types shows; submitting needs every create permission in the job's repository. */
  createPermissions: string[];
  cancelPermissions: string[];
  /**
   * Checks a submitted job and its files and answers what is stored as the job (GET shows it):
   * bad input is refused here with a 400, before anything is queued.
   */
  accept(s: Services, repoId: number, job: Obj, files: Upload[]): Obj | Promise<Obj>;
  /** Does the work; what it returns is the job's final status. */
  run(ctx: JobContext): Promise<JobEnd>;
}
