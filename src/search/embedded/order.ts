/**
 * Ordering and counting the embedded index's hits: a page in the requested order, from each sort
 * key's order over all documents (kept between searches), and facet counts over doc values.
 */
import type { SearchRequest, SortKey } from '../port';
import { documentOf } from './bodies';
import { type DocSet, SortOrder } from './doc-sets';
import type { IndexMemory } from './memory';

/** Binary order of strings, as SQLite compares them. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One sort key's value per hit (null: missing, sorted last either way). */
function sortValues(m: IndexMemory, key: SortKey, hits: Int32Array): Array<string | number | null> {
  if (key.field === 'score') {
    const boosts = new Array<number>(hits.length);
    for (let i = 0; i < hits.length; i++) boosts[i] = m.boostOf[hits[i]];
    return boosts;
  }
  const kind = m.fields.kind(key.field);
  if (kind === 'text') {
    // Text fields are not doc values: sort on the stored value (Solr sorts by a token).
    const out = new Map<number, string | null>();
    for (const [id, body] of m.bodies(hits)) {
      const v = documentOf(body)[key.field];
      out.set(id, v === undefined ? null : (typeof v === 'object' ? JSON.stringify(v) : String(v)).toLowerCase());
    }
    return Array.from(hits, (doc) => out.get(doc) ?? null);
  }
  const column = m.valueColumn(key.field === 'id' ? 'uri' : key.field);
  if (!column) return Array.from(hits, () => null);
  const numeric = kind === 'int' || kind === 'date';
  const out = new Array<string | number | null>(hits.length);
  for (let i = 0; i < hits.length; i++) out[i] = column.sortValue(hits[i], key.desc, numeric);
  return out;
}

/** One sort key's order over document ids below the bound. */
function sortOrder(m: IndexMemory, key: SortKey): SortOrder {
  if (key.field === 'score') {
    const orders = (m.scoreOrders ??= {});
    const known = key.desc ? orders.desc : orders.asc;
    if (known?.ranks.length === m.bound) return known;
    const values = new Float64Array(m.bound);
    for (let doc = 0; doc < m.bound; doc++) values[doc] = key.desc ? -m.boostOf[doc] : m.boostOf[doc];
    const order = SortOrder.of(values);
    if (key.desc) orders.desc = order;
    else orders.asc = order;
    return order;
  }
  const kind = m.fields.kind(key.field);
  const column = m.valueColumn(key.field === 'id' ? 'uri' : key.field);
  if (!column) return new SortOrder(new Int32Array(m.bound), 0);
  return column.sortOrder(key.desc, kind === 'int' || kind === 'date', m.bound);
}

/**
 * The hits of one page, in the requested order (then index order), from each sort key's order
 * over all documents, kept between searches: on one key and a match of an eighth of the ids or
 * more, a walk along that order to the page's last hit; otherwise one pass over the hits.
 */
export function page(m: IndexMemory, set: DocSet, total: number, hitsOf: () => Int32Array, sort: SortKey[], offset: number, limit: number): number[] {
  const wanted = Math.min(total, offset + limit);
  if (!sort.length) return Array.from(hitsOf().subarray(offset, wanted));
  if (sort.some((key) => key.field !== 'score' && m.fields.kind(key.field) === 'text')) return pageByValues(m, hitsOf(), sort, offset, wanted);
  const orders = sort.map((key) => sortOrder(m, key));
  if (orders.length === 1 && total * 8 >= m.bound) return orders[0].firstIn(set, wanted).slice(offset);
  const ranks = orders.map((o) => o.ranks);
  const hits = hitsOf();
  if (wanted * 8 >= hits.length) {
    const before = (a: number, b: number): number => {
      for (let k = 0; k < ranks.length; k++) {
        const ra = ranks[k][a];
        const rb = ranks[k][b];
        if (ra !== rb) return ra - rb;
      }
      return a - b;
    };
    return Array.from(hits).sort(before).slice(offset, wanted);
  }
  // A page near the front: the best `wanted` so far, in order, in typed arrays. Hits come in
  // ascending ids, so a hit tied with the last kept one comes after it.
  const top = new Int32Array(wanted);
  let kept = 0;
  if (ranks.length === 1) {
    const rank = ranks[0];
    const topRank = new Int32Array(wanted);
    for (let i = 0; i < hits.length; i++) {
      const doc = hits[i];
      const r = rank[doc];
      if (kept === wanted && r >= topRank[kept - 1]) continue;
      let lo = 0;
      let hi = kept;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (topRank[mid] <= r) lo = mid + 1;
        else hi = mid;
      }
      const end = kept === wanted ? kept - 1 : kept;
      top.copyWithin(lo + 1, lo, end);
      topRank.copyWithin(lo + 1, lo, end);
      top[lo] = doc;
      topRank[lo] = r;
      if (kept < wanted) kept++;
    }
  } else {
    // Whether document a (a later hit) sorts before b on the keys alone.
    const ahead = (a: number, b: number): boolean => {
      for (let k = 0; k < ranks.length; k++) {
        const ra = ranks[k][a];
        const rb = ranks[k][b];
        if (ra !== rb) return ra < rb;
      }
      return false;
    };
    for (let i = 0; i < hits.length; i++) {
      const doc = hits[i];
      if (kept === wanted && !ahead(doc, top[kept - 1])) continue;
      let lo = 0;
      let hi = kept;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (!ahead(doc, top[mid])) lo = mid + 1;
        else hi = mid;
      }
      top.copyWithin(lo + 1, lo, kept === wanted ? kept - 1 : kept);
      top[lo] = doc;
      if (kept < wanted) kept++;
    }
  }
  return Array.from(top.subarray(offset, wanted));
}

/** `page` for sorts on text fields, read from the stored documents. */
function pageByValues(m: IndexMemory, hits: Int32Array, sort: SortKey[], offset: number, wanted: number): number[] {
  const values = sort.map((key) => sortValues(m, key, hits));
  const before = (i: number, j: number): number => {
    for (let k = 0; k < sort.length; k++) {
      const a = values[k][i];
      const b = values[k][j];
      if (a === b) continue;
      if (a === null) return 1;
      if (b === null) return -1;
      const c = a < b ? -1 : 1;
      return sort[k].desc ? -c : c;
    }
    return hits[i] - hits[j];
  };
  let order: number[];
  if (wanted * 8 < hits.length) {
    // A page near the front: keep the best `wanted` seen so far, in order.
    order = [];
    for (let i = 0; i < hits.length; i++) {
      if (order.length === wanted && before(i, order[wanted - 1]) >= 0) continue;
      let lo = 0;
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (before(order[mid], i) < 0) lo = mid + 1;
        else hi = mid;
      }
      order.splice(lo, 0, i);
      if (order.length > wanted) order.pop();
    }
  } else {
    order = Array.from(hits.keys()).sort(before);
  }
  return order.slice(offset, wanted).map((i) => hits[i]);
}

/** A field's values among the hits with their counts, most first, as Solr's facet.field (limit, mincount). */
export function facet(m: IndexMemory, field: string, r: SearchRequest, set: DocSet, total: number, hitsOf: () => Int32Array): Array<[string, number]> {
  if (m.fields.kind(field) === 'text') return [];
  const column = m.valueColumn(field === 'id' ? 'uri' : field);
  if (!column) return [];
  const perOrd = column.countIn(set, total, hitsOf);
  // Per value; a run of years counts for each year in it.
  const counts = new Map<string, number>();
  const present = new Set<string>();
  for (let ord = 0; ord < perOrd.length; ord++) {
    if (column.holders(ord) === 0 || (perOrd[ord] === 0 && r.facetMincount > 0)) continue;
    for (const value of column.expanded(ord)) {
      if (perOrd[ord] > 0) counts.set(value, (counts.get(value) ?? 0) + perOrd[ord]);
      else present.add(value);
    }
  }
  const min = Math.max(1, r.facetMincount);
  const pairs: Array<[string, number]> = [...counts]
    .filter(([, n]) => n >= min)
    .sort((a, b) => b[1] - a[1] || compare(a[0], b[0]))
    .slice(0, r.facetLimit);
  if (r.facetMincount <= 0 && pairs.length < r.facetLimit) {
    // As Solr with mincount 0: values of the field that no matching document has, counted 0.
    for (const value of [...present].filter((v) => !counts.has(v)).sort(compare)) {
      if (pairs.length >= r.facetLimit) break;
      pairs.push([value, 0]);
    }
  }
  return pairs;
}
