/**
 * Column-wise per-document values (Lucene's doc values) for the embedded index's exact fields:
 * each field keeps a dictionary of its distinct values and, per document, the ordinals of its
 * values in typed arrays. Filters, facets and sorts run over these in memory, so a search that
 * matches 100,000 documents counts facets and picks a sorted page without touching a B-tree.
 * Document sets and sort orders are in ./doc-sets.ts.
 */
import { DocSet, runBounds, SortOrder } from './doc-sets';

/** Fields with at most this many distinct values count facets over a bitmap per value. */
const BITMAP_VALUES = 64;

function grown(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  const next = new Int32Array(Math.max(need, a.length * 2, 64));
  next.set(a);
  return next;
}

/** Per-value facts the column computes once per distinct value. */
export interface ValueCodec {
  /** The numbers an int or date value stands for, lowest and highest (a run "1801..1851" of ints), or undefined. */
  span(value: string): [number, number] | undefined;
  /** The value's sort and comparison key. */
  key(value: string): string;
}

/** One field's values: a dictionary of distinct values and each document's ordinals. */
export class Column {
  private readonly ordOf = new Map<string, number>();
  readonly values: string[] = [];
  private readonly spans: Array<[number, number] | undefined> = [];
  private readonly keys: Array<string | undefined> = [];
  /** Documents holding each ordinal (values no document holds any more stay in the dictionary). */
  private docsPer: Int32Array = new Int32Array(0);
  /** Per document: its first ordinal + 1 (0: no value). */
  private first: Int32Array = new Int32Array(0);
  /**
   * Per document with more than one value, the others: moreLen[doc] of them from pool[moreAt[doc]].
   * A document's new values go to the pool's end; the pool is compacted when mostly unused.
   */
  private moreAt: Int32Array = new Int32Array(0);
  private moreLen: Int32Array = new Int32Array(0);
  private pool: Int32Array = new Int32Array(0);
  private poolEnd = 0;
  private poolUnused = 0;
  /** Bumped by every change of a document's values: the sort orders below follow it. */
  private version = 0;
  /** Documents with at least one value (a bitmap kept up to date), and how many. */
  private heldWords = new Uint32Array(0);
  private heldCount = 0;
  /** Once a facet needed them (at most BITMAP_VALUES values): each ordinal's documents as a bitmap, kept up to date. */
  private ordBits?: Uint32Array[];
  /** Ordinals in each sort's order of their values (the dictionary only grows: new ones are merged in). */
  private readonly ordSorts = new Map<string, { sorted: number[]; ranks: Int32Array; top: number }>();
  private readonly sortOrders = new Map<string, { version: number; order: SortOrder }>();

  constructor(private readonly codec: ValueCodec) {}

  ord(value: string): number | undefined {
    return this.ordOf.get(value);
  }

  /** The lowest and highest number the value stands for (one number: both the same). */
  span(ord: number): [number, number] | undefined {
    if (!(ord in this.spans)) this.spans[ord] = this.codec.span(this.values[ord]);
    return this.spans[ord];
  }

  key(ord: number): string {
    return (this.keys[ord] ??= this.codec.key(this.values[ord]));
  }

  /** The values an ordinal stands for: a run "1801..1851" is each of its numbers. */
  expanded(ord: number): string[] {
    const value = this.values[ord];
    const run = runBounds(value);
    if (!run) return [value];
    const out: string[] = [];
    for (let n = run[0]; n <= run[1]; n++) out.push(String(n));
    return out;
  }

  /** How many documents hold the ordinal. */
  holders(ord: number): number {
    return ord < this.docsPer.length ? this.docsPer[ord] : 0;
  }

  private intern(value: string): number {
    let ord = this.ordOf.get(value);
    if (ord === undefined) {
      ord = this.values.length;
      this.values.push(value);
      this.ordOf.set(value, ord);
      this.docsPer = grown(this.docsPer, ord + 1);
    }
    return ord;
  }

  /** Replaces a document's values (distinct, in the given order); the same values again change nothing. */
  set(doc: number, values: string[]): void {
    const ords: number[] = [];
    for (const v of values) {
      const ord = this.intern(v);
      if (!ords.includes(ord)) ords.push(ord);
    }
    if (this.holds(doc, ords)) return;
    this.remove(doc);
    if (!ords.length) return;
    for (const ord of ords) this.docsPer[ord]++;
    this.version++;
    this.first = grown(this.first, doc + 1);
    this.first[doc] = ords[0] + 1;
    if (ords.length > 1) this.setMore(doc, ords);
    this.track(doc, ords, true);
  }

  /** Whether the document holds exactly these ordinals, in this order. */
  private holds(doc: number, ords: number[]): boolean {
    const firstOrd = doc < this.first.length ? this.first[doc] - 1 : -1;
    if (!ords.length || firstOrd !== ords[0]) return !ords.length && firstOrd === -1;
    const rest = this.rest(doc);
    return rest.length === ords.length - 1 && rest.every((ord, i) => ord === ords[i + 1]);
  }

  /** A document's values after its first. */
  private rest(doc: number): Int32Array {
    const len = doc < this.moreLen.length ? this.moreLen[doc] : 0;
    return this.pool.subarray(len ? this.moreAt[doc] : 0, len ? this.moreAt[doc] + len : 0);
  }

  private setMore(doc: number, ords: number[]): void {
    const len = ords.length - 1;
    if (this.moreLen.length <= doc) {
      this.moreLen = grown(this.moreLen, this.first.length);
      this.moreAt = grown(this.moreAt, this.first.length);
    }
    if (this.poolEnd + len > this.pool.length) {
      const pool = new Int32Array(Math.max(this.poolEnd + len, this.pool.length * 2, 64));
      pool.set(this.pool.subarray(0, this.poolEnd));
      this.pool = pool;
    }
    for (let i = 0; i < len; i++) this.pool[this.poolEnd + i] = ords[i + 1];
    this.moreAt[doc] = this.poolEnd;
    this.moreLen[doc] = len;
    this.poolEnd += len;
  }

  private dropMore(doc: number): void {
    if (doc >= this.moreLen.length || this.moreLen[doc] === 0) return;
    this.poolUnused += this.moreLen[doc];
    this.moreLen[doc] = 0;
    if (this.poolUnused > 1024 && this.poolUnused * 2 > this.poolEnd) {
      const pool = new Int32Array(Math.max(64, (this.poolEnd - this.poolUnused) * 2));
      let end = 0;
      for (let d = 0; d < this.moreLen.length; d++) {
        const len = this.moreLen[d];
        if (len === 0) continue;
        pool.set(this.pool.subarray(this.moreAt[d], this.moreAt[d] + len), end);
        this.moreAt[d] = end;
        end += len;
      }
      this.pool = pool;
      this.poolEnd = end;
      this.poolUnused = 0;
    }
  }

  remove(doc: number): void {
    if (doc >= this.first.length || this.first[doc] === 0) return;
    const ords = this.ordsOf(doc);
    this.version++;
    for (const ord of ords) this.docsPer[ord]--;
    this.first[doc] = 0;
    this.dropMore(doc);
    this.track(doc, ords, false);
  }

  /** Keeps the bitmaps of documents with values (and of each value, once built) up to date. */
  private track(doc: number, ords: number[], on: boolean): void {
    const word = doc >>> 5;
    const bit = 1 << (doc & 31);
    if (word >= this.heldWords.length) {
      const words = new Uint32Array(Math.max(word + 1, this.heldWords.length * 2, 64));
      words.set(this.heldWords);
      this.heldWords = words;
    }
    if (on) this.heldWords[word] |= bit;
    else this.heldWords[word] &= ~bit;
    this.heldCount += on ? 1 : -1;
    const bits = this.ordBits;
    if (!bits) return;
    if (this.values.length > BITMAP_VALUES || word >= bits[0].length) {
      // Too many values, or a document beyond the bitmaps: built again when next needed.
      this.ordBits = undefined;
      return;
    }
    while (bits.length < this.values.length) bits.push(new Uint32Array(bits[0].length));
    for (const ord of ords) {
      if (on) bits[ord][word] |= bit;
      else bits[ord][word] &= ~bit;
    }
  }

  /**
   * A document's sort value: the lowest of its values ascending, the highest descending; the
   * span's end for numbers, the key otherwise; null without a value.
   */
  sortValue(doc: number, desc: boolean, numeric: boolean): string | number | null {
    if (doc >= this.first.length || this.first[doc] === 0) return null;
    let best = this.ordSortValue(this.first[doc] - 1, desc, numeric);
    for (const ord of this.rest(doc)) {
      const v = this.ordSortValue(ord, desc, numeric);
      if (v !== null && (best === null || (desc ? v > best : v < best))) best = v;
    }
    return best;
  }

  private ordSortValue(ord: number, desc: boolean, numeric: boolean): string | number | null {
    if (!numeric) return this.key(ord);
    const span = this.span(ord);
    return span ? span[desc ? 1 : 0] : null;
  }

  /** A document's ordinals. */
  ordsOf(doc: number): number[] {
    if (doc >= this.first.length || this.first[doc] === 0) return [];
    return [this.first[doc] - 1, ...this.rest(doc)];
  }

  /** Documents holding any ordinal that `wanted` marks (indexed by ordinal). */
  docsWith(wanted: Uint8Array, size: number): DocSet {
    const out = new DocSet(size);
    const first = this.first;
    const end = Math.min(first.length, size);
    for (let doc = 0; doc < end; doc++) {
      const o = first[doc];
      if (o !== 0 && wanted[o - 1] === 1) out.words[doc >>> 5] |= 1 << (doc & 31);
    }
    const { moreAt, moreLen, pool } = this;
    for (let doc = 0; doc < moreLen.length && doc < size; doc++) {
      for (let j = moreAt[doc], stop = j + moreLen[doc]; j < stop; j++) if (wanted[pool[j]] === 1) out.words[doc >>> 5] |= 1 << (doc & 31);
    }
    return out;
  }

  /** Documents with at least one value. */
  docsWithAny(size: number): DocSet {
    const out = new DocSet(size);
    const first = this.first;
    const end = Math.min(first.length, size);
    for (let doc = 0; doc < end; doc++) if (first[doc] !== 0) out.words[doc >>> 5] |= 1 << (doc & 31);
    return out;
  }

  /** Per ordinal, the documents holding it as a bitmap of at least `words` words (built once, then kept up to date). */
  private bitmaps(words: number): Uint32Array[] {
    if (this.ordBits && this.ordBits[0].length >= words && this.ordBits.length === this.values.length) return this.ordBits;
    const width = Math.max(words, this.heldWords.length);
    const bits = Array.from({ length: Math.max(1, this.values.length) }, () => new Uint32Array(width));
    const first = this.first;
    for (let doc = 0; doc < first.length; doc++) if (first[doc] !== 0) bits[first[doc] - 1][doc >>> 5] |= 1 << (doc & 31);
    const { moreAt, moreLen, pool } = this;
    for (let doc = 0; doc < moreLen.length; doc++) {
      for (let j = moreAt[doc], stop = j + moreLen[doc]; j < stop; j++) bits[pool[j]][doc >>> 5] |= 1 << (doc & 31);
    }
    this.ordBits = bits;
    return bits;
  }

  /** Adds a document's ordinals to per-ordinal counts (by `step`: 1 or -1). */
  private tally(counts: Int32Array, doc: number, step: number): void {
    if (doc >= this.first.length || this.first[doc] === 0) return;
    counts[this.first[doc] - 1] += step;
    if (doc < this.moreLen.length) for (let j = this.moreAt[doc], stop = j + this.moreLen[doc]; j < stop; j++) counts[this.pool[j]] += step;
  }

  /**
   * Per ordinal, how many documents of `set` (`count` of them; `docs` lists them) hold it.
   * Fields of a few values and a dense set: word by word against each value's bitmap. Otherwise,
   * when most documents with a value are in the set, the ones left out are counted and taken
   * from each ordinal's holders.
   */
  countIn(set: DocSet, count: number, docs: () => Int32Array): Int32Array {
    const listed = Math.min(count, this.heldCount - count);
    const w = set.words;
    if (this.values.length <= BITMAP_VALUES && this.values.length * w.length < 4 * listed) {
      const bitmaps = this.bitmaps(w.length);
      const counts = new Int32Array(this.values.length);
      for (let ord = 0; ord < this.values.length; ord++) {
        if (this.docsPer[ord] === 0) continue;
        const b = bitmaps[ord];
        let n = 0;
        for (let i = 0; i < w.length; i++) {
          let v = w[i] & b[i];
          if (v === 0) continue;
          v -= (v >>> 1) & 0x55555555;
          v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
          n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
        }
        counts[ord] = n;
      }
      return counts;
    }
    if (count * 2 > this.heldCount) {
      const counts = this.docsPer.slice(0, this.values.length);
      const held = this.heldWords;
      for (let i = 0; i < held.length; i++) {
        let left = held[i] & ~(i < w.length ? w[i] : 0);
        while (left !== 0) {
          const low = left & -left;
          this.tally(counts, (i << 5) + 31 - Math.clz32(low), -1);
          left ^= low;
        }
      }
      return counts;
    }
    const counts = new Int32Array(this.values.length);
    const list = docs();
    for (let i = 0; i < list.length; i++) this.tally(counts, list[i], 1);
    return counts;
  }

  /**
   * Per ordinal, its place among the distinct values in one order (equal values, equal places;
   * ordinals without a number last, at `top`): by key ('key'), by lowest number ('low'), by
   * highest number from the highest down ('high'). Kept while the dictionary does not grow; new
   * values are merged into the kept order.
   */
  private ordRanks(mode: 'key' | 'low' | 'high'): { ranks: Int32Array; top: number } {
    const size = this.values.length;
    const known = this.ordSorts.get(mode);
    if (known?.ranks.length === size) return known;
    const value = mode === 'key' ? (ord: number) => this.key(ord)
      : mode === 'low' ? (ord: number) => this.span(ord)?.[0]
      : (ord: number) => { const span = this.span(ord); return span ? -span[1] : undefined; };
    const compare = (a: number, b: number) => {
      const va = value(a);
      const vb = value(b);
      if (va === vb) return 0;
      if (va === undefined) return 1;
      if (vb === undefined) return -1;
      return va < vb ? -1 : 1;
    };
    const old = known?.sorted ?? [];
    const fresh: number[] = [];
    for (let ord = old.length; ord < size; ord++) fresh.push(ord);
    fresh.sort(compare);
    const sorted: number[] = new Array(size);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < fresh.length) sorted[k++] = compare(fresh[j], old[i]) < 0 ? fresh[j++] : old[i++];
    while (i < old.length) sorted[k++] = old[i++];
    while (j < fresh.length) sorted[k++] = fresh[j++];
    const ranks = new Int32Array(size);
    let rank = -1;
    let top = 0;
    for (let m = 0; m < size; m++) {
      const v = value(sorted[m]);
      if (v === undefined) {
        ranks[sorted[m]] = -1;
        continue;
      }
      if (m === 0 || v !== value(sorted[m - 1])) rank++;
      ranks[sorted[m]] = rank;
      top = rank + 1;
    }
    for (let m = 0; m < size; m++) if (ranks[m] === -1) ranks[m] = top;
    const out = { sorted, ranks, top };
    this.ordSorts.set(mode, out);
    return out;
  }

  /**
   * A sort on this field over document ids below `size`: documents in the order `sortValue`
   * gives them (the lowest of a document's values ascending, the highest descending).
   */
  sortOrder(desc: boolean, numeric: boolean, size: number): SortOrder {
    const name = `${desc}:${numeric}`;
    const known = this.sortOrders.get(name);
    if (known?.version === this.version && known.order.ranks.length === size) return known.order;
    // Per ordinal, its place among the distinct values (descending: from the highest); `top` without a number.
    const placed = this.ordRanks(numeric ? (desc ? 'high' : 'low') : 'key');
    const top = placed.top;
    const perOrd = !numeric && desc ? placed.ranks.map((r) => top - 1 - r) : placed.ranks;
    const ranks = new Int32Array(size).fill(top);
    const first = this.first;
    const end = Math.min(size, first.length);
    for (let doc = 0; doc < end; doc++) if (first[doc] !== 0) ranks[doc] = perOrd[first[doc] - 1];
    const { moreAt, moreLen, pool } = this;
    for (let doc = 0; doc < moreLen.length && doc < size; doc++) {
      for (let j = moreAt[doc], stop = j + moreLen[doc]; j < stop; j++) if (perOrd[pool[j]] < ranks[doc]) ranks[doc] = perOrd[pool[j]];
    }
    const order = new SortOrder(ranks, top);
    this.sortOrders.set(name, { version: this.version, order });
    return order;
  }

  /** Ordinals marked by a test of each distinct value. */
  mark(test: (ord: number) => boolean): Uint8Array {
    const wanted = new Uint8Array(this.values.length);
    for (let ord = 0; ord < this.values.length; ord++) if (this.docsPer[ord] > 0 && test(ord)) wanted[ord] = 1;
    return wanted;
  }
}
