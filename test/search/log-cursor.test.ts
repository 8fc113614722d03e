import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LogCursor } from '../../src/search/indexer/cursor';
import { committedThrough } from '../../src/store/indexing';

/** The indexer's place in the change log (src/search/indexer/cursor.ts), against the plain rule it keeps. */
describe('the indexer\'s cursor in the change log', () => {
  const GAP = 1_000;

  it('moves the checkpoint as committedThrough does over every entry it applied, however they arrive', () => {
    fc.assert(fc.property(
      // Batches of entries, each read at a time: numbers with holes, some batches late (below what was read).
      fc.array(fc.record({ seqs: fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { maxLength: 20 }), at: fc.integer({ min: 0, max: 5_000 }) }), { maxLength: 12 }),
      (batches) => {
        const cursor = new LogCursor(GAP);
        const seenAt = new Map<number, number>();
        let checkpoint = 0;
        let now = 0;
        for (const batch of batches) {
          now += batch.at;
          const rows = batch.seqs.sort((a, b) => a - b).map((seq) => ({ seq }));
          const fresh = cursor.unseen(rows, checkpoint);
          for (const r of fresh) assert.ok(!seenAt.has(r.seq) && r.seq > checkpoint);
          const next = cursor.settled(checkpoint, fresh, now);
          for (const r of fresh) seenAt.set(r.seq, now);
          const expected = committedThrough([...seenAt].filter(([seq]) => seq > checkpoint).sort((a, b) => a[0] - b[0]).map(([seq, at]) => ({ seq, at_ms: at })), checkpoint, now, GAP);
          assert.equal(next, expected);
          cursor.applied(fresh, next, now);
          checkpoint = next;
          assert.equal(cursor.appliedAbove, [...seenAt.keys()].filter((seq) => seq > checkpoint).length);
          assert.equal(cursor.readThrough, Math.max(checkpoint, ...seenAt.keys()));
        }
      },
    ));
  });

  it('passes a hole only once the entry after it was read the wait ago, and never past an entry not yet applied', () => {
    const cursor = new LogCursor(GAP);
    cursor.from(0);
    // Entries 1, 2 and 5: 3 and 4 are a hole (another node's numbers, or a write still committing).
    let next = cursor.settled(0, [{ seq: 1 }, { seq: 2 }, { seq: 5 }], 0);
    assert.equal(next, 2);
    cursor.applied([{ seq: 1 }, { seq: 2 }, { seq: 5 }], next, 0);
    assert.equal(cursor.readThrough, 5);
    assert.equal(cursor.settled(2, [], 999), 2);
    // 4 commits late: applied, and the hole at 3 still holds the checkpoint.
    next = cursor.settled(2, [{ seq: 4 }], 500);
    assert.equal(next, 2);
    cursor.applied([{ seq: 4 }], next, 500);
    assert.equal(cursor.appliedAbove, 2);
    assert.equal(cursor.settled(2, [], 1_000), 2, 'the entry after the hole (4) was read at 500');
    assert.equal(cursor.settled(2, [], 1_500), 5);
  });
});
