/**
 * Document sets of the embedded index: bitmaps of one bit per document id, and one sort key's
 * order over all ids. Whole-number fields (years) keep runs of consecutive numbers as one value
 * ("1801..1851"), so a date range is one value, not fifty (integerRuns, runBounds).
 */

/** The bounds of a run value ("1801..1851"), or undefined for any other value. */
export function runBounds(value: string): [number, number] | undefined {
  const run = /^(-?\d+)\.\.(-?\d+)$/.exec(value);
  return run ? [Number(run[1]), Number(run[2])] : undefined;
}

/** Whole numbers as runs: [1801, 1802, 1803, 1900] → ["1801..1803", "1900"]; other values as they are. */
export function integerRuns(values: string[]): string[] {
  const numbers = [...new Set(values.filter((v) => /^-?\d{1,15}$/.test(v)).map(Number))].sort((a, b) => a - b);
  const out = values.filter((v) => !/^-?\d{1,15}$/.test(v));
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    out.push(j > i ? `${numbers[i]}..${numbers[j]}` : String(numbers[i]));
    i = j + 1;
  }
  return out;
}

/** A set of document ids as a bitmap; `size` is the id bound it was made for. */
export class DocSet {
  readonly words: Uint32Array;

  constructor(readonly size: number, words?: Uint32Array) {
    this.words = words ?? new Uint32Array((size + 31) >>> 5);
  }

  add(doc: number): void {
    if (doc < this.size) this.words[doc >>> 5] |= 1 << (doc & 31);
  }

  has(doc: number): boolean {
    return doc < this.size && (this.words[doc >>> 5] & (1 << (doc & 31))) !== 0;
  }

  clone(): DocSet {
    return new DocSet(this.size, this.words.slice());
  }

  /** In place: this ∩ other. */
  and(other: DocSet): this {
    const w = this.words;
    const o = other.words;
    for (let i = 0; i < w.length; i++) w[i] &= i < o.length ? o[i] : 0;
    return this;
  }

  /** In place: this ∪ other. */
  or(other: DocSet): this {
    const w = this.words;
    const o = other.words;
    for (let i = 0; i < w.length && i < o.length; i++) w[i] |= o[i];
    return this;
  }

  /** In place: this \ other. */
  andNot(other: DocSet): this {
    const w = this.words;
    const o = other.words;
    for (let i = 0; i < w.length && i < o.length; i++) w[i] &= ~o[i];
    return this;
  }

  count(): number {
    let n = 0;
    for (let v of this.words) {
      v -= (v >>> 1) & 0x55555555;
      v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
      n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    return n;
  }

  /** Document ids in ascending order. */
  toArray(): Int32Array {
    const out = new Int32Array(this.count());
    let k = 0;
    const w = this.words;
    for (let i = 0; i < w.length; i++) {
      let word = w[i];
      while (word !== 0) {
        const low = word & -word;
        out[k++] = (i << 5) + 31 - Math.clz32(low);
        word ^= low;
      }
    }
    return out;
  }
}

/**
 * One sort key's order over document ids: each document's place (equal values, equal places;
 * documents without a value last, at `top`), and, built when first asked, every id in that order
 * (ties in id order), so a page of a dense match is the first matching ids of a walk along it.
 */
export class SortOrder {
  private order?: Int32Array;

  constructor(readonly ranks: Int32Array, readonly top: number) {}

  /** Places from numbers, lower first (Infinity: no value, last). */
  static of(values: Float64Array): SortOrder {
    const distinct = [...new Set(values)].filter((v) => v !== Infinity).sort((a, b) => a - b);
    const place = new Map<number, number>();
    distinct.forEach((v, i) => place.set(v, i));
    const ranks = new Int32Array(values.length);
    for (let doc = 0; doc < values.length; doc++) ranks[doc] = values[doc] === Infinity ? distinct.length : place.get(values[doc])!;
    return new SortOrder(ranks, distinct.length);
  }

  /** Every document id by place, then id (a counting sort). */
  sorted(): Int32Array {
    if (this.order) return this.order;
    const { ranks, top } = this;
    const starts = new Int32Array(top + 2);
    for (let doc = 0; doc < ranks.length; doc++) starts[ranks[doc] + 1]++;
    for (let r = 0; r <= top; r++) starts[r + 1] += starts[r];
    const order = new Int32Array(ranks.length);
    for (let doc = 0; doc < ranks.length; doc++) order[starts[ranks[doc]]++] = doc;
    this.order = order;
    return order;
  }

  /** The first `wanted` ids of `set` in this order. */
  firstIn(set: DocSet, wanted: number): number[] {
    const order = this.sorted();
    const words = set.words;
    const out: number[] = [];
    for (let i = 0; i < order.length && out.length < wanted; i++) {
      const doc = order[i];
      if ((words[doc >>> 5] & (1 << (doc & 31))) !== 0) out.push(doc);
    }
    return out;
  }
}
