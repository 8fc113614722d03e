/**
 * Doc values (src/search/embedded/doc-values.ts) against a plain model: many documents rewritten many
 * times (so the pool of multi-valued documents is compacted), with facet counts (every counting
 * path), sort orders and value sets checked after each round.
 */
import assert from 'node:assert/strict';
import { DocSet } from '../../src/search/embedded/doc-sets';
import { Column } from '../../src/search/embedded/doc-values';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('doc values (Column)', () => {
  for (const [values, docs] of [[6, 3000], [90, 3000]] as const) {
    it(`follows ${docs} documents of up to four of ${values} values through rewrites: ordinals, counts, sort orders`, () => {
      const rnd = random(values * 7919 + docs);
      // Numbers: value n stands for n to n + n % 3 (a run), none when n is a multiple of 7.
      const span = (v: string): [number, number] | undefined => {
        const n = Number(v.slice(1));
        return n % 7 === 0 ? undefined : [n, n + (n % 3)];
      };
      const column = new Column({ span, key: (v) => v });
      const model = new Map<number, string[]>();
      let round = 0;
      // The dictionary grows round by round (new values are merged into the kept sort orders).
      const value = () => `v${String(Math.floor((rnd() * values * (round + 1)) / 12)).padStart(3, '0')}`;
      for (; round < 12; round++) {
        for (let i = 0; i < docs; i++) {
          const doc = Math.floor(rnd() * docs);
          if (rnd() < 0.15) {
            column.remove(doc);
            model.delete(doc);
            continue;
          }
          const vals = [...new Set(Array.from({ length: 1 + Math.floor(rnd() * 4) }, value))];
          column.set(doc, vals);
          model.set(doc, vals);
        }
        for (let doc = 0; doc < docs; doc++) {
          assert.deepEqual(column.ordsOf(doc).map((o) => column.values[o]), model.get(doc) ?? [], `round ${round}, document ${doc}`);
        }
        // Sets of every density, so each counting path runs.
        for (const density of [0.001, 0.05, 0.4, 0.9, 1]) {
          const set = new DocSet(docs + 7);
          for (let doc = 0; doc < docs; doc++) if (rnd() < density) set.add(doc);
          const expected = new Array<number>(column.values.length).fill(0);
          for (const [doc, vals] of model) if (set.has(doc)) for (const v of vals) expected[column.ord(v)!]++;
          assert.deepEqual([...column.countIn(set, set.count(), () => set.toArray())], expected, `round ${round}, density ${density}`);
        }
        for (const desc of [false, true]) {
          for (const numeric of [false, true]) {
            const order = column.sortOrder(desc, numeric, docs + 7);
            const set = new DocSet(docs + 7);
            for (let doc = 0; doc < docs; doc++) if (rnd() < 0.5) set.add(doc);
            const key = (doc: number): number | string | null => {
              const vals = model.get(doc);
              if (!vals) return null;
              if (!numeric) return [...vals].sort()[desc ? vals.length - 1 : 0];
              const spans = vals.map(span).filter((x) => x !== undefined);
              if (!spans.length) return null;
              return desc ? Math.max(...spans.map((x) => x[1])) : Math.min(...spans.map((x) => x[0]));
            };
            const expected = set.toArray().slice().sort((a, b) => {
              const ka = key(a);
              const kb = key(b);
              if (ka === kb) return a - b;
              if (ka === null) return 1;
              if (kb === null) return -1;
              return (ka < kb) !== desc ? -1 : 1;
            });
            assert.deepEqual(order.firstIn(set, 50), Array.from(expected.slice(0, 50)), `round ${round}, desc ${desc}, numeric ${numeric}`);
          }
        }
      }
    });
  }
});
