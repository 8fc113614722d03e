/**
 * The webhook dispatcher of one app process: takes the lease of each subscription no live
 * process holds (so several processes share the work and a dead one's subscriptions are taken
 * over once their leases run out), runs a worker per subscription held, renews their leases,
 * hands them queued test pings, and wakes them on this process's commits.
 */
import crypto from 'node:crypto';
import type { Services } from '../../records/context';
import { log } from '../../log';
import { allSubscriptions, pendingPings, releaseSubscriptionLease, takeSubscriptionLease } from '../../store/webhooks';
import { SubscriptionWorker } from './worker';

declare module '../../records/context' {
  interface Services {
    /** Webhook deliveries; started unless WEBHOOKS=off. */
    webhooks?: WebhookDispatcher;
  }
}

export class WebhookDispatcher {
  private readonly holder = crypto.randomBytes(8).toString('hex');
  private readonly workers = new Map<number, SubscriptionWorker>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = true;
  private readonly onCommit = () => this.nudge();

  constructor(private readonly s: Services) {}

  start(): void {
    this.stopped = false;
    this.s.db.onCommit.push(this.onCommit);
    this.timer = setInterval(() => void this.tick(), this.s.config.webhooks.pollMs);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    const at = this.s.db.onCommit.indexOf(this.onCommit);
    if (at >= 0) this.s.db.onCommit.splice(at, 1);
    await this.ticking;
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(workers.map((w) => w.stop()));
    for (const w of workers) await releaseSubscriptionLease(this.s.db, w.id, this.holder);
  }

  /** A write committed (here, or in another process of a cluster): the workers look at the change log now. */
  nudge(): void {
    for (const w of this.workers.values()) w.nudge();
  }

  /** Subscriptions changed, or a ping was queued: look at them now rather than at the next poll. */
  refreshSoon(): void {
    if (!this.stopped) setImmediate(() => void this.tick());
  }

  private tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.ticking ??= this.look().catch((err) => log.error('webhook dispatcher', { error: (err as Error).message })).finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async look(): Promise<void> {
    const { leaseMs } = this.s.config.webhooks;
    const rows = await allSubscriptions(this.s.db);
    const present = new Set(rows.map((r) => r.id));
    for (const [id, w] of this.workers) if (!present.has(id)) this.drop(id, w);
    for (const row of rows) {
      if (this.stopped) return;
      const now = Date.now();
      const worker = this.workers.get(row.id);
      if (worker) {
        if (row.lease_holder !== this.holder) this.drop(row.id, worker);
        else if (row.lease_until_ms - now < leaseMs / 2 && !(await takeSubscriptionLease(this.s.db, row.id, this.holder, now, now + leaseMs))) this.drop(row.id, worker);
        else worker.refresh(row);
      } else if ((row.lease_holder === this.holder || row.lease_until_ms < now) && (await takeSubscriptionLease(this.s.db, row.id, this.holder, now, now + leaseMs))) {
        const started = new SubscriptionWorker(this.s, this.holder, row, (id) => this.drop(id, started));
        this.workers.set(row.id, started);
        started.start();
      }
    }
    for (const ping of await pendingPings(this.s.db, [...this.workers.keys()])) void this.workers.get(ping.subscription_id)?.ping(ping);
  }

  private drop(id: number, worker: SubscriptionWorker): void {
    if (this.workers.get(id) === worker) this.workers.delete(id);
    void worker.stop();
  }
}

export function openWebhooks(s: Services): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher(s);
  if (s.config.webhooks.run) dispatcher.start();
  return dispatcher;
}
