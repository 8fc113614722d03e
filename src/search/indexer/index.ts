/**
 * Applies the store's change log (written in the same transaction as each record) to a search
 * index, in order, and checkpoints in the index itself. Every step rebuilds documents from the
 * records' current state, so applying an entry twice is harmless: a crash between commit and
 * indexing loses nothing, it is only applied again. One process at a time holds the lease.
 */
import crypto from 'node:crypto';
import type { Services } from '../../records/context';
import { log } from '../../log';
import { type ChangeLogEntry, changesAfter, changesBetween, countChangesBetween, latestChange, releaseIndexerLease, storeIdOf, takeIndexerLease } from '../../store/indexing';
import { LogCursor } from './cursor';
import type { SearchDoc } from '../documents';
import type { SearchIndex } from '../port';
import { IndexedRecords, recordBatch } from './records';
import { type Progress, rebuildIndex } from './rebuild';

export type { Progress } from './rebuild';

export interface IndexerOptions {
  batchSize?: number;
  pollMs?: number;
  leaseMs?: number;
  /** How long a hole in the log's sequence may be an uncommitted write before it is passed. */
  gapWaitMs?: number;
  pauseMs?: number;
}

/**
 * Rounds woken by commits start at most this often (nudge). A round costs the same few statements
 * whether it applies one change or fifty; at 5 ms, creates at 8 connections took rounds of about
 * two changes (write-profile: 25 ms gave MariaDB 3-13 % more creates, SQLite 2-5 % more creates
 * and updates, for at most 20 ms more before a change is found under such load).
 */
const NUDGE_MS = 25;

export class Indexer {
  private readonly holder = crypto.randomBytes(8).toString('hex');
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  /** Until when this process's lease holds, as far as it knows (0: not held). */
  private leaseUntil = 0;
  private readonly gapWaitMs: number;
  private readonly pauseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private again = false;
  /** The store's id: written when the store is made, never changed, so read once (storeId). */
  private knownStoreId: Promise<string> | undefined;
  /** A round woken by a commit is scheduled (nudge): later commits wait for it. */
  private nudged = false;
  /** When the last round started (rounds woken by commits start at most every NUDGE_MS). */
  private lastRoundAt = 0;
  private stopped = true;
  /** Where this process stands in the change log (./cursor.ts). */
  private readonly cursor: LogCursor;
  /** When the entries between the checkpoint and the cursor were last counted for late commits. */
  private lastProbeAt = 0;
  /** The next round counts them whatever the time (drain). */
  private probeWanted = false;
  /** Bumped by each drain; a count records the value it began under (drain waits for one that began after it). */
  private drains = 0;
  private countedFor = 0;
  lastError: string | undefined;
  private readonly records: IndexedRecords;

  constructor(private readonly s: Services, readonly index: SearchIndex, o: IndexerOptions = {}) {
    this.batchSize = o.batchSize ?? 500;
    this.pollMs = o.pollMs ?? 200;
    this.leaseMs = o.leaseMs ?? 5_000;
    this.gapWaitMs = o.gapWaitMs ?? 30_000;
    this.pauseMs = o.pauseMs ?? 0;
    this.records = new IndexedRecords(s);
    this.cursor = new LogCursor(this.gapWaitMs);
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    this.leaseUntil = 0;
    this.cursor.reset();
    await releaseIndexerLease(this.s.db, this.holder);
  }

  /**
   * A write committed: index it now rather than at the next poll, but start rounds at most every
   * NUDGE_MS. A commit after a quiet moment is indexed at once; under load a round takes every
   * commit since the last one (a round costs the same few reads of the store and calls to the
   * index whether it applies one change or fifty).
   */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else if (!this.nudged) {
      this.nudged = true;
      this.schedule(this.untilNextRound());
    }
  }

  private untilNextRound(): number {
    return Math.max(0, this.lastRoundAt + NUDGE_MS - Date.now());
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    this.nudged = false;
    this.lastRoundAt = Date.now();
    if (this.stopped) return;
    try {
      await this.runOnce();
      this.lastError = undefined;
    } catch (err) {
      this.lastError = (err as Error).message;
      log.error('indexer round failed; retrying', { error: this.lastError });
    }
    if (!this.stopped) this.schedule(this.again ? this.untilNextRound() : this.pollMs);
    this.again = false;
  }

  /** Applies everything the log holds past the checkpoint; returns the number of entries applied. */
  runOnce(): Promise<number> {
    if (!this.running) {
      this.running = this.round().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  /**
   * Waits until the index holds every change committed so far (tests, shutdown, doctor). In the
   * process that holds the lease: once the cursor has read past the head and a count of the range
   * behind it began after the head was read; elsewhere, once the index's checkpoint passed the head
   * (which waits for holes to settle: gapWaitMs).
   */
  async drain(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    const ticket = ++this.drains;
    const head = await this.head();
    this.probeWanted = true;
    for (;;) {
      await this.runOnce();
      if (this.leaseUntil > Date.now()) {
        if (this.cursor.readThrough >= head && this.countedFor >= ticket) return;
      } else if ((await this.index.state()).checkpoint >= head) return;
      if (Date.now() > until) throw new Error(`index still behind the change log (read through ${this.cursor.readThrough}, head ${head})`);
      this.probeWanted = true;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** How far this process has read the change log when it holds the lease (else undefined): /health's queue. */
  readThrough(): number | undefined {
    return this.leaseUntil > Date.now() ? this.cursor.readThrough : undefined;
  }

  /** The newest change-log entry. */
  head(): Promise<number> {
    return latestChange(this.s.db);
  }

  /** The store's id, read once (a failed read is tried again next time). */
  private storeId(): Promise<string> {
    if (!this.knownStoreId) {
      const read = storeIdOf(this.s.db);
      read.catch(() => { if (this.knownStoreId === read) this.knownStoreId = undefined; });
      this.knownStoreId = read;
    }
    return this.knownStoreId;
  }

  /**
   * Takes or renews the lease. A lease held with more than half its time left is not renewed: a
   * round per API write would otherwise add a write of its own to each (SQLite has one writer).
   */
  private async takeLease(): Promise<boolean> {
    const now = Date.now();
    if (this.leaseUntil - now > this.leaseMs / 2) return true;
    const taken = await takeIndexerLease(this.s.db, this.holder, now, now + this.leaseMs);
    this.leaseUntil = taken ? now + this.leaseMs : 0;
    return taken;
  }

  private async round(): Promise<number> {
    if (!(await this.takeLease())) {
      // Another process indexes: what this one remembers may be stale when it takes over.
      this.cursor.reset();
      return 0;
    }
    const storeId = await this.storeId();
    let state = await this.index.state();
    if (state.storeId !== storeId) {
      // An index built from another store (or none): rebuild it from this one.
      await this.rebuild();
      state = await this.index.state();
    }
    this.cursor.from(state.checkpoint);
    let checkpoint = state.checkpoint;
    let applied = 0;
    // New entries, past the last one read, whatever holes lie below it.
    for (;;) {
      const rows = await changesAfter(this.s.db, this.cursor.readThrough, this.batchSize);
      ({ checkpoint, applied } = await this.applyEntries(rows, checkpoint, storeId, applied));
      if (rows.length < this.batchSize) break;
      await this.takeLease();
    }
    // Entries numbered below readThrough that committed after it was read (another connection's,
    // another node's): the range is counted, and read again only when the count is not what was applied.
    const now = Date.now();
    if (this.probeWanted || now - this.lastProbeAt >= this.pollMs) {
      this.probeWanted = false;
      this.lastProbeAt = now;
      const countingFor = this.drains;
      const through = this.cursor.readThrough;
      if (through > checkpoint && (await countChangesBetween(this.s.db, checkpoint, through)) !== this.cursor.appliedAbove) {
        for (let after = checkpoint; ;) {
          const rows = await changesBetween(this.s.db, after, through, this.batchSize);
          ({ checkpoint, applied } = await this.applyEntries(rows, checkpoint, storeId, applied));
          if (rows.length < this.batchSize) break;
          after = rows[rows.length - 1].seq;
        }
      }
      this.countedFor = countingFor;
    }
    // Holes that have settled since (no entry read this round) move the checkpoint alone.
    const settled = this.cursor.settled(checkpoint, [], Date.now());
    if (settled > checkpoint) {
      await this.index.apply([], [], { checkpoint: settled, storeId });
      this.cursor.applied([], settled, Date.now());
    }
    return applied;
  }

  /** Applies those of `rows` not applied yet, moving the checkpoint as far as holes allow (LogCursor). */
  private async applyEntries(rows: ChangeLogEntry[], checkpoint: number, storeId: string, applied: number): Promise<{ checkpoint: number; applied: number }> {
    const fresh = this.cursor.unseen(rows, checkpoint);
    if (!fresh.length) return { checkpoint, applied };
    const now = Date.now();
    const next = this.cursor.settled(checkpoint, fresh, now);
    await this.apply([...new Set(fresh.map((r) => r.uri))], checkpoint, next, storeId);
    this.cursor.applied(fresh, next, now);
    return { checkpoint: next, applied: applied + fresh.length };
  }

  private async pause(): Promise<void> {
    if (this.pauseMs > 0) await new Promise((r) => setTimeout(r, this.pauseMs));
  }

  /**
   * Re-indexes `uris` and the records linking to them, whose documents carry their data; the
   * index's checkpoint moves from `from` to `checkpoint` with the last chunk.
   */
  private async apply(uris: string[], from: number, checkpoint: number, storeId: string): Promise<void> {
    const referrers = await this.records.referrersOf(uris);
    const all = [...new Set([...uris, ...referrers])];
    // A chunk's documents are built while the index writes the chunk before (an import's 20,000
    // components: building took 7 s and writing 4 s one after the other). Only the last chunk moves
    // the checkpoint, and only once every chunk before it is written: a chunk that failed fails
    // the round before the checkpoint passes its changes.
    let writing: Promise<void> | undefined;
    try {
      for (let i = 0; i < all.length; i += this.batchSize) {
        const chunk = all.slice(i, i + this.batchSize);
        const { byType, holders, found } = await this.records.recordsFor(chunk);
        const gone = chunk.filter((u) => !found.has(u));
        const last = i + this.batchSize >= all.length;
        const state = { checkpoint: last ? checkpoint : from, storeId };
        // An index that builds documents itself (the embedded one, in its own thread) gets the
        // records as text: building them here took a tenth of the thread that serves requests
        // under writes, and their garbage more.
        const batch = this.index.applyRecords ? recordBatch(byType, holders) : undefined;
        const docs = batch ? [] : await this.records.documentsOf(byType);
        await writing;
        writing = undefined;
        const written = batch ? this.index.applyRecords!(batch, gone, state) : this.index.apply(docs, gone, state);
        if (last) await written;
        else {
          // Awaited before the next chunk goes, or below when building it failed.
          written.catch(() => undefined);
          writing = written;
        }
        await this.pause();
      }
    } finally {
      await writing;
    }
  }

  /** Documents of the indexed records among `uris`, built here (bench baselines); `found` also holds records not indexed. */
  async documentsFor(uris: string[]): Promise<{ docs: SearchDoc[]; found: Set<string> }> {
    const { byType, found } = await this.records.recordsFor(uris);
    return { docs: await this.records.documentsOf(byType), found };
  }

  /**
   * Rebuilds the index from the store (./rebuild.ts): searches keep answering meanwhile, and an
   * interrupted rebuild resumes after the last page done.
   */
  async rebuild(onProgress?: (p: Progress) => void): Promise<number> {
    const done = await rebuildIndex({
      db: this.s.db,
      index: this.index,
      records: this.records,
      batchSize: this.batchSize,
      storeId: () => this.storeId(),
      head: () => this.head(),
      betweenPages: async () => {
        await this.pause();
        await this.takeLease();
      },
    }, onProgress);
    this.cursor.reset();
    return done;
  }
}
