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
import { appendLog, JobRow } from './queue';

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
      const busy = await this.s.db.knex('jobs').whereIn('status', ['queued', 'running']).count({ n: '*' }).first();
      if (!Number(busy?.n ?? 0) && !this.running.size) return;
      if (Date.now() > until) throw new Error('jobs still running');
      await new Promise((r) => setTimeout(r, 100));
      await this.tick();
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    try {
      const knex = this.s.db.knex;
      const now = Date.now();
      // Jobs whose process stopped holding them: failed, with the reason in their log.
      const orphans: JobRow[] = await knex('jobs').where({ status: 'running' }).andWhere('lease_until_ms', '<', now);
      for (const job of orphans) {
        if (this.running.has(job.id)) continue;
        const n = await knex('jobs').where({ id: job.id, status: 'running' }).andWhere('lease_until_ms', '<', now).update({ status: 'failed', finished_ms: now });
        if (n) await appendLog(this.s, job.id, 'failed: the process running it stopped before it finished; nothing of it was written (each file is one transaction)');
      }
      // Renew what this process runs; pass on cancellations.
      for (const [id, r] of this.running) {
        await knex('jobs').where({ id, lease_holder: this.holder }).update({ lease_until_ms: now + this.s.config.jobs.leaseMs });
        const row = await knex('jobs').where({ id }).first('cancel_requested');
        if (row && Number(row.cancel_requested)) r.controller.abort();
      }
      const live = await knex('jobs').where({ status: 'running' }).count({ n: '*' }).first();
      if (Number(live?.n ?? 0) >= this.s.config.jobs.concurrency) return;
      const next = await knex('jobs').where({ status: 'queued' }).orderBy('id').first('id');
      if (!next) return;
      const claimed = await knex('jobs').where({ id: next.id, status: 'queued' })
        .update({ status: 'running', started_ms: now, lease_holder: this.holder, lease_until_ms: now + this.s.config.jobs.leaseMs });
      if (!claimed) return;
      const controller = new AbortController();
      const done = this.run(Number(next.id), controller.signal).finally(() => this.running.delete(Number(next.id)));
      this.running.set(Number(next.id), { controller, done });
    } catch (err) {
      log.error('job runner', { error: (err as Error).message });
    } finally {
      this.ticking = false;
    }
  }

  private async run(id: number, signal: AbortSignal): Promise<void> {
    const knex = this.s.db.knex;
    const job: JobRow = await knex('jobs').where({ id }).first();
    const spec = JSON.parse(job.job_json);
    const importer = importers[spec.import_type];
    const files: Array<{ filename: string; stored: string }> = await knex('job_files').where({ job_id: id, kind: 'input' }).orderBy('id');
    const actor = { username: job.owner };
    let status: 'completed' | 'failed' | 'canceled' = 'completed';
    await appendLog(this.s, id, `started: ${importer.label}, ${files.length} file(s)`);
    let lastProgress = 0;
    for (const f of files) {
      if (signal.aborted) break;
      try {
        const report = await importer.run(this.s, job.repo_id, actor, { path: f.stored, name: f.filename }, {
          signal,
          log: (level, message) => void appendLog(this.s, id, `${level}: ${message}`),
          progress: (done, total) => {
            // At most one progress write a second.
            if (Date.now() - lastProgress < 1000) return;
            lastProgress = Date.now();
            void knex('jobs').where({ id }).update({ done, total: total ?? null });
          },
        });
        for (let i = 0; i < report.created.length; i += 500) {
          await knex('job_records').insert(report.created.slice(i, i + 500).map((uri) => ({ job_id: id, uri })));
        }
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
    const created = await knex('job_records').where({ job_id: id }).count({ n: '*' }).first();
    await knex('jobs').where({ id }).update({ status, finished_ms: Date.now(), lease_holder: null, lease_until_ms: null, done: Number(created?.n ?? 0), lock_version: job.lock_version + 1 });
    await appendLog(this.s, id, `${status}`);
  }
}
