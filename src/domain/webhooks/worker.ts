/**
 * Delivers one subscription: follows the change log from the subscription's cursor, a window of
 * events at a time. Within a window a record's events go one after another in change-log order,
 * and up to WEBHOOK_CONCURRENCY records' at once; a failed event holds back that record's later
 * ones and waits (exponential backoff) while the rest go on. The cursor passes a window only once
 * all of it is delivered, so a process that dies sends the rest again after its lease runs out
 * (at least once). An event failing for WEBHOOK_RETRY_FOR_SECONDS marks the subscription failing:
 * its events then wait until an administrator updates it or a test ping gets through.
 */
import type { Services } from '../../records/context';
import type { WebhookConfig } from '../../config';
import { log } from '../../log';
import { LogCursor } from '../../search/indexer/cursor';
import { countChangesBetween } from '../../store/indexing';
import {
  committedChangesAfter, committedChangesBetween, type DeliveryOutcome, type DeliveryRow, deliveredAfter, finishPing, pruneDeliveries, recordRound, type SubscriptionRow, type SubscriptionStatus,
} from '../../store/webhooks';
import { type Interests, type PreparedEvent, prepareEvents } from './events';
import { type Attempt, Sender } from './sender';
import { interestsOf } from './subscriptions';

/** Change-log entries read at a time (past what was read before, holes or not). */
const WINDOW = 500;
/** How long a hole in the log's sequence may be an uncommitted write before it is passed (as the indexer). */
const GAP_WAIT_MS = 30_000;
/** Rounds woken by commits start at most this often: under load a round takes every commit since the last. */
const NUDGE_MS = 10;
/** Old deliveries are pruned at most this often. */
const PRUNE_EVERY_MS = 60_000;

type Progress = Parameters<typeof recordRound>[3];

interface Pending extends PreparedEvent {
  attempts: number;
  createdMs: number;
  nextAttemptMs: number;
  firstFailureMs?: number;
  last?: Attempt & { atMs: number };
  delivered?: boolean;
}

export class SubscriptionWorker {
  private row: SubscriptionRow;
  private interests: Interests;
  private sender: Sender;
  private window: Pending[] = [];
  /** The last change-log entry the window covers: the cursor once the window is delivered. */
  private windowEnd = 0;
  private cursor: number;
  /** What was read past the cursor (search/indexer/cursor.ts): the next window reads on from there, whatever holes lie below. */
  private readonly reading = new LogCursor(GAP_WAIT_MS);
  private saved: { cursor: number; status: string; lastError: string | null };
  /** Events past the cursor already delivered (read from the deliveries when the worker starts or is reconfigured). */
  private deliveredAbove: Set<number> | undefined;
  private failing: boolean;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private nudged = false;
  private lastRoundAt = 0;
  private stopped = false;
  private prunedAt = 0;
  private pinging: Promise<void> = Promise.resolve();
  /** What rounds left for the store and it does not hold yet (save). */
  private unsaved: { progress?: Progress; outcomes: Map<number, DeliveryOutcome> } = { outcomes: new Map() };
  private saving: Promise<void> | undefined;
  /** Another process holds the subscription now. */
  private lost = false;
  /** Pings taken and not yet recorded (the dispatcher sees them queued until then). */
  private readonly pingsTaken = new Set<number>();

  constructor(
    private readonly s: Services, private readonly holder: string, row: SubscriptionRow,
    private readonly onLost: (id: number) => void,
  ) {
    this.row = row;
    this.cursor = row.cursor_seq;
    this.saved = { cursor: row.cursor_seq, status: row.status, lastError: row.last_error };
    this.failing = row.status === 'failing';
    this.interests = interestsOf(row);
    this.sender = this.newSender();
  }

  private get config(): WebhookConfig {
    return this.s.config.webhooks;
  }

  private newSender(): Sender {
    return new Sender(this.row.url, this.row.secret, this.config.timeoutMs, this.config.concurrency);
  }

  get id(): number {
    return this.row.id;
  }

  start(): void {
    this.schedule(0);
  }

  /**
   * Stops: a round in flight has its requests cut (what they carried is sent again later) and
   * records nothing; what finished rounds left is written first.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.sender.close();
    await this.running?.catch(() => undefined);
    await this.pinging;
    while (this.saving) await this.saving;
  }

  /** A write committed: look at the change log now rather than at the next poll (at most every NUDGE_MS). */
  nudge(): void {
    if (this.stopped || this.failing || !this.row.enabled) return;
    if (this.running) this.again = true;
    else if (!this.nudged) {
      this.nudged = true;
      this.schedule(Math.max(0, this.lastRoundAt + NUDGE_MS - Date.now()));
    }
  }

  /**
   * The subscription as the store holds it now. Changed settings (a new lock_version: an
   * administrator's update) take effect at once: the window is prepared again under them, and a
   * failing subscription is tried again.
   */
  refresh(row: SubscriptionRow): void {
    if (row.lock_version === this.row.lock_version) return;
    this.row = row;
    this.interests = interestsOf(row);
    this.sender.close();
    this.sender = this.newSender();
    this.window = [];
    this.deliveredAbove = undefined;
    this.reading.reset();
    this.failing = row.status === 'failing';
    this.saved.status = row.status;
    this.nudge();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.nudged = false;
    this.lastRoundAt = Date.now();
    if (this.stopped) return;
    let more = false;
    try {
      this.running = this.round().then((m) => {
        more = m;
      });
      await this.running;
    } catch (err) {
      log.error('webhook round failed; retrying', { subscription: this.row.id, error: (err as Error).message });
    } finally {
      this.running = undefined;
    }
    if (this.stopped) return;
    this.schedule(this.again || more ? NUDGE_MS : this.untilNextRound());
    this.again = false;
  }

  /** A window waiting to be retried wakes when its first event is due; otherwise the poll. */
  private untilNextRound(): number {
    if (!this.window.length || this.failing) return this.config.pollMs;
    const due = Math.min(...this.window.map((e) => e.nextAttemptMs));
    return Math.max(NUDGE_MS, Math.min(due - Date.now(), this.config.pollMs * 60));
  }

  /** One round: a window prepared when none is open, its due events sent, the outcome recorded. Answers whether the log holds more. */
  private async round(): Promise<boolean> {
    if (!this.row.enabled || this.failing) return false;
    this.deliveredAbove ??= new Set(await deliveredAfter(this.s.db, this.row.id, this.cursor));
    let more = false;
    if (!this.window.length) {
      more = await this.openWindow();
      if (this.stopped) return false;
    }
    const outcomes = this.window.length ? await this.sendDue() : [];
    if (this.stopped) return false;
    this.record(outcomes);
    return more && !this.window.length;
  }

  /**
   * A window of the entries not delivered yet: those read past the last one read (LogCursor's
   * readThrough), and those that committed late into a hole below it. Entries past a hole in the
   * log's numbering go out at once (a hole is normal on MySQL and everywhere on a Galera cluster:
   * search/indexer/cursor.ts), and the reading goes on past them however many there are; the
   * cursor passes a hole only once the entry after it was read GAP_WAIT_MS ago (windowEnd). A
   * record's own entries cannot land in a hole below a later one of it: its writes conflict, so
   * each commits before the next is numbered.
   */
  private async openWindow(): Promise<boolean> {
    this.reading.from(this.cursor);
    const late = await this.lateEntries();
    const rows = await committedChangesAfter(this.s.db, this.reading.readThrough, WINDOW);
    const fresh = this.reading.unseen([...late, ...rows], this.cursor);
    const now = Date.now();
    const through = this.reading.settled(this.cursor, fresh, now);
    const undelivered = fresh.filter((r) => !this.deliveredAbove!.has(r.seq));
    const events = undelivered.length ? await prepareEvents(this.s, undelivered, this.interests) : [];
    this.window = events.map((e) => ({ ...e, attempts: 0, createdMs: now, nextAttemptMs: 0 }));
    // Entries that make no event are done with as if delivered.
    const evented = new Set(events.map((e) => e.seq));
    for (const r of undelivered) if (!evented.has(r.seq)) this.deliveredAbove!.add(r.seq);
    this.reading.applied(fresh, this.cursor, now);
    this.windowEnd = through;
    if (!this.window.length) this.cursor = Math.max(this.cursor, through);
    return rows.length === WINDOW;
  }

  /**
   * Entries numbered between the cursor and the last one read that committed after that one was
   * read (another connection's, another node's): the range is counted, and read again only when
   * the count is not what was read (as the indexer, Indexer.round).
   */
  private async lateEntries(): Promise<Awaited<ReturnType<typeof committedChangesAfter>>> {
    const through = this.reading.readThrough;
    if (through <= this.cursor || (await countChangesBetween(this.s.db, this.cursor, through)) === this.reading.appliedAbove) return [];
    const late = [];
    for (let after = this.cursor; ;) {
      const rows = await committedChangesBetween(this.s.db, after, through, WINDOW);
      late.push(...this.reading.unseen(rows, this.cursor));
      if (rows.length < WINDOW) return late;
      after = rows[rows.length - 1].seq;
    }
  }

  /** Sends the window's due events: each record's in order, a failure stopping that record's; answers those attempted. */
  private async sendDue(): Promise<Pending[]> {
    const chains = new Map<string, Pending[]>();
    for (const e of this.window) {
      const chain = chains.get(e.uri);
      if (chain) chain.push(e);
      else chains.set(e.uri, [e]);
    }
    const queue = [...chains.values()];
    const attempted: Pending[] = [];
    const lane = async () => {
      for (let chain = queue.shift(); chain; chain = queue.shift()) {
        for (const e of chain) {
          if (this.stopped || e.nextAttemptMs > Date.now()) break;
          e.attempts++;
          const result = await this.sender.send(e.body, { 'X-Archive-Event-Id': String(e.seq), 'X-Archive-Attempt': String(e.attempts) });
          if (this.stopped) return;
          const atMs = Date.now();
          e.last = { ...result, atMs };
          attempted.push(e);
          if (result.ok) {
            e.delivered = true;
            continue;
          }
          e.firstFailureMs ??= atMs;
          const backoff = Math.min(this.config.retryBaseMs * 2 ** (e.attempts - 1), this.config.retryMaxDelayMs);
          // Jitter: subscribers that failed together are not all tried again in the same instant.
          e.nextAttemptMs = atMs + backoff * (0.75 + Math.random() / 4);
          break;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency, queue.length) }, lane));
    for (const e of attempted) if (e.delivered) this.deliveredAbove!.add(e.seq);
    this.window = this.window.filter((e) => !e.delivered);
    return attempted;
  }

  /** Writes the round's deliveries, the cursor and the subscription's status (when any of them changed). */
  private record(attempted: Pending[]): void {
    if (!this.window.length) this.cursor = Math.max(this.cursor, this.windowEnd);
    else this.cursor = Math.max(this.cursor, Math.min(this.window[0].seq - 1, this.windowEnd));
    for (const seq of this.deliveredAbove!) if (seq <= this.cursor) this.deliveredAbove!.delete(seq);
    const oldestFailure = Math.min(...this.window.map((e) => e.firstFailureMs ?? Infinity));
    const lastError = attempted.filter((e) => !e.delivered).at(-1)?.last?.error ?? (this.window.length ? this.saved.lastError : null);
    this.failing = Date.now() - oldestFailure >= this.config.retryForMs;
    const status: SubscriptionStatus = this.failing ? 'failing' : 'active';
    if (!attempted.length && this.cursor === this.saved.cursor && status === this.saved.status && lastError === this.saved.lastError) return;
    const outcomes: DeliveryOutcome[] = attempted.map((e) => ({
      subscription_id: this.row.id, seq: e.seq, kind: e.kind, uri: e.uri, event: e.body,
      status: e.delivered ? 'delivered' : 'retrying', attempts: e.attempts, response_code: e.last?.code ?? null,
      error: e.delivered ? null : e.last?.error ?? null, created_ms: e.createdMs, last_attempt_ms: e.last?.atMs ?? null,
      next_attempt_ms: e.delivered || this.failing ? null : Math.round(e.nextAttemptMs), delivered_ms: e.delivered ? e.last?.atMs ?? null : null,
    }));
    const progress: Progress = { cursor_seq: this.cursor, status, failing_since_ms: this.failing ? oldestFailure : null, last_error: lastError };
    if (this.failing && this.saved.status !== 'failing') log.warn('webhook subscription failing: its events wait', { subscription: this.row.id, error: lastError });
    this.saved = { cursor: this.cursor, status, lastError };
    this.save(progress, outcomes);
  }

  /**
   * Queues a round's record for the store and goes on: the next window is sent while it is written
   * (on SQLite a write waits for the writer, which a bulk load holds for its whole transaction).
   * Records queued meanwhile are written together; a crash before they are written only sends
   * their events again.
   */
  private save(progress: Progress, outcomes: DeliveryOutcome[]): void {
    this.unsaved.progress = progress;
    for (const o of outcomes) this.unsaved.outcomes.set(o.seq!, o);
    this.saving ??= this.writeSaved().catch(async (err) => {
      log.error('webhook deliveries not recorded; retrying', { subscription: this.row.id, error: (err as Error).message });
      await new Promise((resolve) => setTimeout(resolve, this.config.pollMs));
    })
      .finally(() => {
        this.saving = undefined;
        if (this.unsaved.progress && !this.lost) this.save(this.unsaved.progress, []);
      });
  }

  private async writeSaved(): Promise<void> {
    while (this.unsaved.progress && !this.lost) {
      const { progress } = this.unsaved;
      const outcomes = [...this.unsaved.outcomes.values()];
      if (!(await recordRound(this.s.db, this.row.id, this.holder, progress, outcomes))) {
        this.lost = true;
        this.stopped = true;
        this.onLost(this.row.id);
        return;
      }
      if (this.unsaved.progress === progress) this.unsaved.progress = undefined;
      for (const o of outcomes) if (this.unsaved.outcomes.get(o.seq!) === o) this.unsaved.outcomes.delete(o.seq!);
      if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
        this.prunedAt = Date.now();
        await pruneDeliveries(this.s.db, this.row.id, this.config.deliveriesKept, progress.cursor_seq);
      }
    }
  }

  /** Sends a queued test ping once, beside the events (a failing window does not hold it back); one that gets through revives a failing subscription. */
  ping(delivery: DeliveryRow): Promise<void> {
    if (this.pingsTaken.has(delivery.id)) return this.pinging;
    this.pingsTaken.add(delivery.id);
    this.pinging = this.pinging.then(async () => {
      if (this.stopped) return;
      const result = await this.sender.send(delivery.event, { 'X-Archive-Event-Id': `ping-${delivery.id}`, 'X-Archive-Attempt': '1' });
      if (this.stopped) return;
      const atMs = Date.now();
      await finishPing(this.s.db, delivery.id, {
        status: result.ok ? 'delivered' : 'failed', response_code: result.code ?? null, error: result.error ?? null,
        last_attempt_ms: atMs, delivered_ms: result.ok ? atMs : null,
      });
      if (result.ok && this.failing) {
        this.failing = false;
        for (const e of this.window) {
          e.nextAttemptMs = 0;
          e.firstFailureMs = undefined;
        }
        this.nudge();
      }
    }).catch((err) => log.error('webhook ping failed', { subscription: this.row.id, error: (err as Error).message }))
      .finally(() => this.pingsTaken.delete(delivery.id));
    return this.pinging;
  }
}
