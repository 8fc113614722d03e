/**
 * The job runner: claims queued jobs with a lease in the store (safe with several app
 * processes), at most JOB_CONCURRENCY running across the installation, runs each by its type with
 * progress and a log, stops it when canceled (its transaction rolls back: nothing written). A job
 * whose lease ran out (its process died) is marked failed with that reason.
 */
import crypto from 'node:crypto';
import { log } from '../log';
import type { Services } from '../records/context';
import { addJobOutput, appendLog } from './queue';
import type { JobContext, JobEnd } from './job-type';
import { jobTypeNamed } from './types';
import { abandonedPendingJobs, discardPending } from '../store/pending';
import { discardImportedValues } from '../records/value-lists';
import {
  addJobRecords, claimJob, failJobPastLease, finishJob, firstQueuedJob, jobCancelRequested, jobCount, jobFiles, jobRecordCount, jobRow, jobsPastLease, renewJobLease, setJobProgress,
} from '../store/jobs';

const POLL_MS = 500;
/** How long a GET may still be shown an ended job's final figure from here (Runner.ended): longer than any read of its row takes. */
const ENDED_KEPT_MS = 10_000;

export class JobRunner {
  private readonly holder = crypto.randomBytes(8).toString('hex');
  private timer: NodeJS.Timeout | undefined;
  private running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  /**
   * The progress each running job of this process last reported, and whether the store has it:
   * a job reports as it goes, even from inside its one transaction (where, on SQLite, a write of
   * its own would wait for the commit), and the runner writes the figure with the job's lease.
   */
  private readonly live = new Map<number, { done: number; total: number | null; stored: boolean }>();
  /**
   * The final figure of jobs this process ended in the last seconds: a GET that read the job's row
   * before it ended (still 'running', an older figure) and asks for the live figure after it ended
   * gets this one, so the figure it shows never goes back.
   */
  private readonly ended = new Map<number, { done: number; total: number | null; at: number }>();
  private stopped = false;
  private ticking = false;
  /** Whether this runner has looked for unpublished records of dead jobs since it started. */
  private pendingSwept = false;

  constructor(private readonly s: Services) {}

  start(): void {
    // Started again after stop() (tests hold jobs queued this way) it takes jobs again.
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), POLL_MS);
    this.timer.unref();
    void this.tick();
  }

  /** A cancel was asked of a running job (and stored): stopped now if this process runs it. */
  cancelRequested(id: number): void {
    this.running.get(id)?.controller.abort();
  }

  /** Wakes the runner at once (a job was just submitted). */
  nudge(): void {
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const r of this.running.values()) r.controller.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** Waits until no job is queued or running (tests, the CLI). */
  async idle(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const busy = await jobCount(this.s.db, ['queued', 'running']);
      if (!busy && !this.running.size) return;
      if (Date.now() > until) throw new Error('jobs still running');
      await new Promise((r) => setTimeout(r, 100));
      await this.tick();
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    try {
      const db = this.s.db;
      const now = Date.now();
      // Jobs whose process stopped holding them: failed, with the reason in their log.
      const orphans = await jobsPastLease(db, now);
      for (const job of orphans) {
        if (this.running.has(job.id)) continue;
        if (await failJobPastLease(db, job.id, now)) await appendLog(this.s, job.id, 'failed: the process running it stopped before it finished; nothing of it was written (each file is one transaction, or its records are published together at its end)');
      }
      // Records a dead job wrote in chunks and never published (store/pending.ts): at start, and after a job is found dead.
      if (!this.pendingSwept || orphans.length) {
        this.pendingSwept = true;
        for (const job of await abandonedPendingJobs(db)) {
          const removed = await discardPending(db, job);
          const values = await discardImportedValues(this.s, job);
          await appendLog(this.s, job, `removed the ${removed} unpublished record(s) of its unfinished import${values ? ` and the ${values} value(s) it had added to value lists` : ''}`);
        }
      }
      for (const [id, e] of this.ended) if (now - e.at > ENDED_KEPT_MS) this.ended.delete(id);
      // Renew what this process runs; pass on cancellations.
      for (const [id, r] of this.running) {
        await renewJobLease(db, id, this.holder, now + this.s.config.jobs.leaseMs);
        const progress = this.live.get(id);
        if (progress && !progress.stored) {
          progress.stored = true;
          await setJobProgress(db, id, progress.done, progress.total);
        }
        if (await jobCancelRequested(db, id)) r.controller.abort();
      }
      if ((await jobCount(db, ['running'])) >= this.s.config.jobs.concurrency) return;
      const next = await firstQueuedJob(db);
      if (next === undefined) return;
      if (!(await claimJob(db, next, this.holder, now, now + this.s.config.jobs.leaseMs))) return;
      const controller = new AbortController();
      const done = this.run(next, controller.signal).finally(() => this.running.delete(next));
      this.running.set(next, { controller, done });
    } catch (err) {
      log.error('job runner', { error: (err as Error).message });
    } finally {
      this.ticking = false;
    }
  }

  /** The progress a job this process runs reported last (GET …/jobs/:id shows it at once; other processes see it with the next lease renewal). */
  liveProgress(id: number): { done: number; total: number | null } | undefined {
    const p = this.live.get(id) ?? this.ended.get(id);
    return p && { done: p.done, total: p.total };
  }

  private async run(id: number, signal: AbortSignal): Promise<void> {
    const row = (await jobRow(this.s.db, id))!;
    // The job's own view of the services: what it writes names its owner and itself (history.ts).
    const s: Services = { ...this.s, writeSource: { by: row.owner, via: `job ${id} (${row.job_type})` } };
    const job = JSON.parse(row.job_json);
    const ctx: JobContext = {
      s, jobId: id, repoId: row.repo_id, actor: { username: row.owner }, job, signal,
      inputFiles: await jobFiles(s.db, id, 'input'),
      log: (line) => appendLog(s, id, line),
      addRecords: (uris) => addJobRecords(s.db, id, uris),
      progress: async (done, total) => void this.live.set(id, { done, total: total ?? null, stored: false }),
      addOutputFile: (filename, data) => addJobOutput(s, id, filename, data),
    };
    let status: JobEnd;
    try {
      status = await jobTypeNamed(row.job_type).run(ctx);
    } catch (err) {
      status = signal.aborted ? 'canceled' : 'failed';
      await appendLog(s, id, status === 'canceled' ? 'canceled' : `error: ${(err as Error).message}`);
      if (status === 'failed') log.error('job', { job: id, type: row.job_type, error: (err as Error).stack });
    }
    if (signal.aborted && status === 'completed') status = 'canceled';
    const created = await jobRecordCount(s.db, id);
    await finishJob(s.db, id, { status, finished_ms: Date.now(), done: created, lock_version: row.lock_version + 1 });
    // Only now: until the row says the job ended, its figure is the one kept here (the stored one may lag).
    this.ended.set(id, { done: created, total: this.live.get(id)?.total ?? null, at: Date.now() });
    this.live.delete(id);
    await appendLog(s, id, `${status}`);
  }
}
