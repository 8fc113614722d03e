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
export class LogCursor {
  /** The highest entry read and applied (0: none yet: start at the index's checkpoint). */
  readThrough = 0;
  /** Entries above the checkpoint already applied, in order (new entries come last, so mostly appended). */
  private readonly order: number[] = [];
  /** When each of them was first read. */
  private readonly seenAt = new Map<number, number>();

  constructor(private readonly gapWaitMs: number) {}

  /**
   * At a round's start, the index's checkpoint: a cursor behind it (first round, a rebuild, or
   * another process held the lease meanwhile) starts again from there.
   */
  from(checkpoint: number): void {
    if (this.readThrough < checkpoint) {
      this.reset();
      this.readThrough = checkpoint;
    } else this.forgetThrough(checkpoint);
  }

  /** Starts again from the index's checkpoint at the next round. */
  reset(): void {
    this.order.length = 0;
    this.seenAt.clear();
    this.readThrough = 0;
  }

  /** Of `rows`, those not yet applied. */
  unseen<T extends { seq: number }>(rows: T[], checkpoint: number): T[] {
    return rows.filter((r) => r.seq > checkpoint && !this.seenAt.has(r.seq));
  }

  /** How many entries are remembered as applied between the checkpoint and readThrough. */
  get appliedAbove(): number {
    return this.order.length;
  }

  /**
   * The checkpoint once `fresh` (in order, about to be applied, read at `nowMs`) are: through the
   * last hole settled (the rule of committedThrough in store/indexing.ts). Walks only up to the
   * first hole that has not settled, which is near the start: the cost does not grow with the
   * entries remembered.
   */
  settled(checkpoint: number, fresh: Array<{ seq: number }>, nowMs: number): number {
    let through = checkpoint;
    let i = 0;
    let j = 0;
    while (i < this.order.length || j < fresh.length) {
      const fromSeen = j >= fresh.length || (i < this.order.length && this.order[i] < fresh[j].seq);
      const seq = fromSeen ? this.order[i++] : fresh[j++].seq;
      const readAt = fromSeen ? this.seenAt.get(seq)! : nowMs;
      if (seq !== through + 1 && nowMs - readAt < this.gapWaitMs) break;
      through = seq;
    }
    return through;
  }

  /** `fresh` are applied, read at `nowMs`, and the index's checkpoint is now `checkpoint`. */
  applied(fresh: Array<{ seq: number }>, checkpoint: number, nowMs: number): void {
    for (const { seq } of fresh) {
      if (this.seenAt.has(seq)) continue;
      this.seenAt.set(seq, nowMs);
      if (!this.order.length || seq > this.order[this.order.length - 1]) this.order.push(seq);
      else this.order.splice(this.firstAbove(seq), 0, seq);
      if (seq > this.readThrough) this.readThrough = seq;
    }
    this.forgetThrough(checkpoint);
    if (this.readThrough < checkpoint) this.readThrough = checkpoint;
  }

  /** Forgets the entries at or below `checkpoint`. */
  private forgetThrough(checkpoint: number): void {
    const n = this.firstAbove(checkpoint);
    for (const seq of this.order.splice(0, n)) this.seenAt.delete(seq);
  }

  /** The index in `order` of the first entry above `seq` (binary search). */
  private firstAbove(seq: number): number {
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order[mid] <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
