/**
 * Column-wise per-document values (Lucene's doc values) for the embedded index's exact fields:
 * each field keeps a dictionary of its distinct values and, per document, the ordinals of its
 * values in typed arrays. Filters, facets and sorts run over these in memory, so a search that
 * matches 100,000 documents counts facets and picks a sorted page without touching a B-tree.
 * Document sets are bitmaps (one bit per document id). Whole-number fields (years) keep runs of
 * consecutive numbers as one value ("1801..1851"), so a date range is one value, not fifty.
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
  /** Per document with more than one value: the others. */
  private readonly more = new Map<number, number[]>();
  /** Bumped by every change of a document's values: what is derived from them below follows it. */
  private version = 0;
  /** Every document's ordinals in two flat arrays (document d: ords[offs[d]] to ords[offs[d + 1]]). */
  private flat?: { version: number; offs: Int32Array; ords: Int32Array };
  /** Ordinals in their keys' order (the dictionary only grows: new ones are merged in). */
  private sortedOrds: number[] = [];
  /** Per ordinal, its key's place among the distinct keys (equal keys, equal places). */
  private keyRanks?: Int32Array;
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

  /** Replaces a document's values (distinct, in the given order). */
  set(doc: number, values: string[]): void {
    this.remove(doc);
    if (!values.length) return;
    const ords: number[] = [];
    for (const v of values) {
      const ord = this.intern(v);
      if (!ords.includes(ord)) ords.push(ord);
    }
    for (const ord of ords) this.docsPer[ord]++;
    this.version++;
    this.first = grown(this.first, doc + 1);
    this.first[doc] = ords[0] + 1;
    if (ords.length > 1) this.more.set(doc, ords.slice(1));
  }

  remove(doc: number): void {
    if (doc >= this.first.length || this.first[doc] === 0) return;
    this.version++;
    this.docsPer[this.first[doc] - 1]--;
    this.first[doc] = 0;
    const rest = this.more.get(doc);
    if (rest) {
      for (const ord of rest) this.docsPer[ord]--;
      this.more.delete(doc);
    }
  }

  /**
   * A document's sort value: the lowest of its values ascending, the highest descending; the
   * span's end for numbers, the key otherwise; null without a value.
   */
  sortValue(doc: number, desc: boolean, numeric: boolean): string | number | null {
    if (doc >= this.first.length || this.first[doc] === 0) return null;
    let best = this.ordSortValue(this.first[doc] - 1, desc, numeric);
    const rest = this.more.get(doc);
    if (rest) {
      for (const ord of rest) {
        const v = this.ordSortValue(ord, desc, numeric);
        if (v !== null && (best === null || (desc ? v > best : v < best))) best = v;
      }
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
    const rest = this.more.get(doc);
    return rest ? [this.first[doc] - 1, ...rest] : [this.first[doc] - 1];
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
    for (const [doc, rest] of this.more) {
      for (const ord of rest) if (wanted[ord] === 1) out.add(doc);
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

  /** Every document's ordinals as flat arrays, rebuilt after a change. */
  private flattened(): { offs: Int32Array; ords: Int32Array } {
    if (this.flat?.version === this.version) return this.flat;
    const first = this.first;
    const n = first.length;
    const offs = new Int32Array(n + 1);
    for (let doc = 0; doc < n; doc++) if (first[doc] !== 0) offs[doc + 1] = 1;
    for (const [doc, rest] of this.more) offs[doc + 1] += rest.length;
    for (let doc = 0; doc < n; doc++) offs[doc + 1] += offs[doc];
    const ords = new Int32Array(offs[n]);
    for (let doc = 0; doc < n; doc++) if (first[doc] !== 0) ords[offs[doc]] = first[doc] - 1;
    for (const [doc, rest] of this.more) ords.set(rest, offs[doc] + 1);
    this.flat = { version: this.version, offs, ords };
    return this.flat;
  }

  /** Documents with at least one value and how many, kept until the next change. */
  private holding(size: number): { set: DocSet; count: number } {
    if (this.held?.version !== this.version || this.held.set.size !== size) {
      const set = this.docsWithAny(size);
      this.held = { version: this.version, set, count: set.count() };
    }
    return this.held;
  }

  private held?: { version: number; set: DocSet; count: number };

  /** Per ordinal, the documents holding it as a bitmap over ids below `size`, kept until the next change. */
  private bitmaps(size: number): Uint32Array[] {
    const words = (size + 31) >>> 5;
    if (this.perOrdSets?.version === this.version && this.perOrdSets.words === words && this.perOrdSets.sets.length === this.values.length) return this.perOrdSets.sets;
    const sets = Array.from(this.values, () => new Uint32Array(words));
    const { offs, ords } = this.flattened();
    const end = Math.min(size, offs.length - 1);
    for (let doc = 0; doc < end; doc++) {
      for (let j = offs[doc], stop = offs[doc + 1]; j < stop; j++) sets[ords[j]][doc >>> 5] |= 1 << (doc & 31);
    }
    this.perOrdSets = { version: this.version, words, sets };
    return sets;
  }

  private perOrdSets?: { version: number; words: number; sets: Uint32Array[] };

  /**
   * Per ordinal, how many documents of `set` (`count` of them; `docs` lists them) hold it. When
   * most documents with a value are in the set, the ones left out are counted instead and taken
   * from each ordinal's holders.
   */
  countIn(set: DocSet, count: number, docs: () => Int32Array): Int32Array {
    const { offs, ords } = this.flattened();
    const held = this.holding(set.size);
    const listed = Math.min(count, held.count - count);
    // A few values and many documents to list: each value's documents as a bitmap, counted in the set word by word.
    if (this.values.length <= BITMAP_VALUES && this.values.length * set.words.length < 4 * listed) {
      const bitmaps = this.bitmaps(set.size);
      const counts = new Int32Array(this.values.length);
      const w = set.words;
      for (let ord = 0; ord < bitmaps.length; ord++) {
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
    if (count * 2 > held.count) {
      const left = held.set.clone().andNot(set).toArray();
      const counts = this.docsPer.slice(0, this.values.length);
      for (let i = 0; i < left.length; i++) {
        const doc = left[i];
        for (let j = offs[doc], end = offs[doc + 1]; j < end; j++) counts[ords[j]]--;
      }
      return counts;
    }
    const counts = new Int32Array(this.values.length);
    const n = offs.length - 1;
    const list = docs();
    for (let i = 0; i < list.length; i++) {
      const doc = list[i];
      if (doc >= n) break;
      for (let j = offs[doc], end = offs[doc + 1]; j < end; j++) counts[ords[j]]++;
    }
    return counts;
  }

  /** Per ordinal, its key's place in binary order among the distinct keys. */
  private ranksOfKeys(): Int32Array {
    const size = this.values.length;
    if (this.keyRanks?.length === size) return this.keyRanks;
    const byKey = (a: number, b: number) => {
      const ka = this.key(a);
      const kb = this.key(b);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    };
    const fresh: number[] = [];
    for (let ord = this.sortedOrds.length; ord < size; ord++) fresh.push(ord);
    fresh.sort(byKey);
    const old = this.sortedOrds;
    const merged: number[] = new Array(size);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < fresh.length) merged[k++] = byKey(fresh[j], old[i]) < 0 ? fresh[j++] : old[i++];
    while (i < old.length) merged[k++] = old[i++];
    while (j < fresh.length) merged[k++] = fresh[j++];
    this.sortedOrds = merged;
    const ranks = new Int32Array(size);
    let rank = 0;
    for (let m = 0; m < size; m++) {
      if (m > 0 && this.key(merged[m]) !== this.key(merged[m - 1])) rank++;
      ranks[merged[m]] = rank;
    }
    this.keyRanks = ranks;
    return ranks;
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
    let perOrd: Int32Array;
    let top: number;
    if (numeric) {
      const numbers = new Float64Array(this.values.length);
      for (let ord = 0; ord < numbers.length; ord++) {
        const span = this.span(ord);
        numbers[ord] = span ? (desc ? -span[1] : span[0]) : Infinity;
      }
      ({ ranks: perOrd, top } = SortOrder.of(numbers));
    } else {
      const keyRanks = this.ranksOfKeys();
      top = keyRanks.length;
      perOrd = desc ? keyRanks.map((r) => top - 1 - r) : keyRanks;
    }
    const ranks = new Int32Array(size).fill(top);
    const { offs, ords } = this.flattened();
    const end = Math.min(size, offs.length - 1);
    for (let doc = 0; doc < end; doc++) {
      for (let j = offs[doc], stop = offs[doc + 1]; j < stop; j++) {
        const r = perOrd[ords[j]];
        if (r < ranks[doc]) ranks[doc] = r;
      }
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
