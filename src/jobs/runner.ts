/**
 * The job runner: claims queued jobs with a lease in the store (safe with several app
 * processes), at most JOB_CONCURRENCY running across the installation, runs each importer with
 * progress and a log, stops it when canceled (its transaction rolls back: nothing written). A job
 * whose lease ran out (its process died) is marked failed with that reason.
 */
import crypto from 'node:crypto';
import { importers } from '../exchange/import';
import { ImportFailed } from '../exchange/import/types';
import { log } from '../log';
import type { Services } from '../records/context';
import { appendLog } from './queue';
import { withWriteSource } from '../store/write-source';
import {
  addJobRecords, claimJob, failJobPastLease, finishJob, firstQueuedJob, jobCancelRequested, jobCount, jobFiles, jobRecordCount, jobRow, jobsPastLease, renewJobLease,
} from '../store/jobs';

const POLL_MS = 500;

export class JobRunner {
  private readonly holder = crypto.randomBytes(8).toString('hex');
  private timer: NodeJS.Timeout | undefined;
  private running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  private stopped = false;
  private ticking = false;

  constructor(private readonly s: Services) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), POLL_MS);
    this.timer.unref();
    void this.tick();
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
        if (await failJobPastLease(db, job.id, now)) await appendLog(this.s, job.id, 'failed: the process running it stopped before it finished; nothing of it was written (each file is one transaction)');
      }
      // Renew what this process runs; pass on cancellations.
      for (const [id, r] of this.running) {
        await renewJobLease(db, id, this.holder, now + this.s.config.jobs.leaseMs);
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

  private async run(id: number, signal: AbortSignal): Promise<void> {
    const db = this.s.db;
    const job = (await jobRow(db, id))!;
    const spec = JSON.parse(job.job_json);
    const importer = importers[spec.import_type];
    const files = await jobFiles(db, id, 'input');
    const actor = { username: job.owner };
    let status: 'completed' | 'failed' | 'canceled' = 'completed';
    await appendLog(this.s, id, `started: ${importer.label}, ${files.length} file(s)`);
    for (const f of files) {
      if (signal.aborted) break;
      try {
        const report = await withWriteSource({ by: job.owner, via: `job ${id} (${spec.import_type})` }, () => importer.run(this.s, job.repo_id, actor, { path: f.stored, name: f.filename }, {
          signal,
          log: (level, message) => void appendLog(this.s, id, `${level}: ${message}`),
          // Not written while a file imports: on SQLite the pool's one connection is the import's
          // until it commits, so a write from here would only wait for the end (and a failed one
          // would have no caller to answer to). The job's `done` is set when it finishes.
          progress: () => undefined,
        }));
        await addJobRecords(db, id, report.created);
        await appendLog(this.s, id, `${f.filename}: imported (${Object.entries(report.counts).map(([t, n]) => `${n} ${t}`).join(', ')}), ${report.warnings.length} warning(s)`);
      } catch (err) {
        if (signal.aborted) {
          status = 'canceled';
          await appendLog(this.s, id, `${f.filename}: canceled; nothing of this file was written`);
          break;
        }
        status = 'failed';
        const message = err instanceof ImportFailed ? err.message : `${f.filename}: ${(err as Error).message}`;
        await appendLog(this.s, id, `error: ${message}; nothing of this file was written`);
        if (!(err instanceof ImportFailed)) log.error('import job', { job: id, error: (err as Error).stack });
      }
    }
    if (signal.aborted && status === 'completed') status = 'canceled';
    const created = await jobRecordCount(db, id);
    await finishJob(db, id, { status, finished_ms: Date.now(), done: created, lock_version: job.lock_version + 1 });
    await appendLog(this.s, id, `${status}`);
  }
}
