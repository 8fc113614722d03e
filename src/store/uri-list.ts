/**
 * Record URIs kept as numbers, for what a long transaction or job keeps of every record it writes
 * (a sheet of 50,000 rows creates 50,000 records: its job's records list, the touches its
 * transaction follows), which would otherwise be a string each until it ends. Each URI is its
 * prefix (`/repositories/2/archival_objects`, one of a few) and its id; a URI not of that form is
 * kept as it is.
 */

/** A URI as its prefix and numeric id, where it has that form (the id written back gives the same URI). */
function split(uri: string): { prefix: string; id: number } | undefined {
  const slash = uri.lastIndexOf('/');
  const tail = uri.slice(slash + 1);
  return /^[1-9]\d{0,14}$/.test(tail) ? { prefix: uri.slice(0, slash), id: Number(tail) } : undefined;
}

/** A set of URIs: a set of ids per prefix. */
export class UriSet {
  private readonly byPrefix = new Map<string, Set<number>>();
  private readonly others = new Set<string>();

  add(uri: string): void {
    const parts = split(uri);
    if (!parts) {
      this.others.add(uri);
      return;
    }
    const ids = this.byPrefix.get(parts.prefix);
    if (ids) ids.add(parts.id);
    else this.byPrefix.set(parts.prefix, new Set([parts.id]));
  }

  has(uri: string): boolean {
    const parts = split(uri);
    return parts ? this.byPrefix.get(parts.prefix)?.has(parts.id) ?? false : this.others.has(uri);
  }
}

/** A list of URIs, in the order pushed. */
export class UriList {
  private readonly prefixes: string[] = [];
  private readonly prefixIndex = new Map<string, number>();
  /** Per URI: its prefix's index, and its id (or, as a negative index, one of `others`). */
  private which = new Uint16Array(16);
  private ids = new Float64Array(16);
  private readonly others: string[] = [];
  private count = 0;

  static of(uris: Iterable<string>): UriList {
    const list = new UriList();
    for (const uri of uris) list.push(uri);
    return list;
  }

  get length(): number {
    return this.count;
  }

  push(uri: string): void {
    if (this.count === this.ids.length) this.grow();
    const parts = split(uri);
    let prefix = parts && this.prefixIndex.get(parts.prefix);
    // While there are few prefixes (the index of one is 16 bits).
    if (parts && (prefix !== undefined || this.prefixes.length < 0xffff)) {
      if (prefix === undefined) {
        prefix = this.prefixes.push(parts.prefix) - 1;
        this.prefixIndex.set(parts.prefix, prefix);
      }
      this.which[this.count] = prefix;
      this.ids[this.count] = parts.id;
    } else {
      this.which[this.count] = 0xffff;
      this.ids[this.count] = this.others.push(uri) - 1;
    }
    this.count++;
  }

  at(i: number): string {
    return this.which[i] === 0xffff ? this.others[this.ids[i]] : `${this.prefixes[this.which[i]]}/${this.ids[i]}`;
  }

  *[Symbol.iterator](): Generator<string> {
    for (let i = 0; i < this.count; i++) yield this.at(i);
  }

  /** The URIs in the order pushed, `size` at a time. */
  *slices(size: number): Generator<string[]> {
    for (let i = 0; i < this.count; i += size) {
      const slice: string[] = [];
      for (let j = i; j < Math.min(this.count, i + size); j++) slice.push(this.at(j));
      yield slice;
    }
  }

  /** Which of `uris` the list holds. */
  holding(uris: readonly string[]): Set<string> {
    const wanted = new Set(uris);
    const found = new Set<string>();
    if (!wanted.size) return found;
    for (let i = 0; i < this.count; i++) {
      const uri = this.at(i);
      if (wanted.has(uri)) found.add(uri);
    }
    return found;
  }

  private grow(): void {
    const which = new Uint16Array(this.which.length * 2);
    which.set(this.which);
    this.which = which;
    const ids = new Float64Array(this.ids.length * 2);
    ids.set(this.ids);
    this.ids = ids;
  }
}
