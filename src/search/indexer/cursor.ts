/**
 * Where the indexer stands in the change log. Entries are numbered by auto-increment, and the
 * numbers do not commit in order: on MySQL a transaction numbers its entries when it inserts them
 * and commits later, and on Galera each node numbers in steps of auto_increment_increment (the
 * cluster's size) from its own offset, so holes are everywhere and a node's entry can commit
 * after a higher one from another node. So the cursor has two marks:
 *
 * - `readThrough`, the highest entry read and applied. Each round reads past it, whatever holes
 *   lie below: nothing committed waits behind a hole.
 * - the checkpoint (kept in the index), below which every entry that will ever commit has been
 *   applied. Between the two, the entries applied are remembered with the time this process
 *   first read them, and the range is counted again every poll: an entry that committed late
 *   into a hole is read and applied then.
 *
 * The checkpoint passes a hole once the entry after it was first read `gapWaitMs` ago. Why that
 * suffices: a transaction numbers its entries at its end (Database.transaction holds them back
 * until its function has run), and a node numbers above every entry it has seen committed, so a
 * hole below an entry this process has read was numbered before that entry committed, or at most
 * a replication delay after; the hole's transaction commits within the time its last
 * statements and commit take after that. What passes the checkpoint is only what is applied again
 * after a restart (harmless: applying is idempotent), so the wait costs nothing in the steady state.
 */
import { committedThrough } from '../../store/indexing';

export class LogCursor {
  /** The highest entry read and applied (0: none yet: start at the index's checkpoint). */
  readThrough = 0;
  /** Entries above the checkpoint already applied, and when each was first read. */
  private readonly seen = new Map<number, number>();

  constructor(private readonly gapWaitMs: number) {}

  /**
   * At a round's start, the index's checkpoint: a cursor behind it (first round, a rebuild, or
   * another process held the lease meanwhile) starts again from there.
   */
  from(checkpoint: number): void {
    if (this.readThrough < checkpoint) {
      this.seen.clear();
      this.readThrough = checkpoint;
    } else {
      for (const seq of this.seen.keys()) if (seq <= checkpoint) this.seen.delete(seq);
    }
  }

  /** Starts again from the index's checkpoint at the next round. */
  reset(): void {
    this.seen.clear();
    this.readThrough = 0;
  }

  /** Of `rows`, those not yet applied. */
  unseen<T extends { seq: number }>(rows: T[], checkpoint: number): T[] {
    return rows.filter((r) => r.seq > checkpoint && !this.seen.has(r.seq));
  }

  /** How many entries are remembered as applied between the checkpoint and readThrough. */
  get appliedAbove(): number {
    return this.seen.size;
  }

  /** The checkpoint once `fresh` (about to be applied, read at `nowMs`) are: through the last hole settled. */
  settled(checkpoint: number, fresh: Array<{ seq: number }>, nowMs: number): number {
    const entries = [...this.seen].map(([seq, seenMs]) => ({ seq, at_ms: seenMs }));
    for (const r of fresh) entries.push({ seq: r.seq, at_ms: nowMs });
    entries.sort((a, b) => a.seq - b.seq);
    return committedThrough(entries, checkpoint, nowMs, this.gapWaitMs);
  }

  /** `fresh` are applied, read at `nowMs`, and the index's checkpoint is now `checkpoint`. */
  applied(fresh: Array<{ seq: number }>, checkpoint: number, nowMs: number): void {
    for (const r of fresh) {
      this.seen.set(r.seq, nowMs);
      if (r.seq > this.readThrough) this.readThrough = r.seq;
    }
    for (const seq of this.seen.keys()) if (seq <= checkpoint) this.seen.delete(seq);
    if (this.readThrough < checkpoint) this.readThrough = checkpoint;
  }
}
