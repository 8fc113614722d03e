/**
 * Queries of the embedded index evaluated to sets of documents: words through FTS5 (one column
 * per field), whole values and ranges over doc values, patterns FTS5 cannot answer over the
 * stored documents of what every other condition let through. Single conditions are kept
 * between searches (the filter cache).
 */
import { collationKey, foldText } from '../fields';
import type { Query } from '../query';
import type { DocSet } from './doc-sets';
import type { Column } from './doc-values';
import { SLOTS, textColumn } from './file';
import type { IndexMemory } from './memory';
import { MAX_KEY, MAX_VALUE, numberOf } from './values';

/** Condition sets kept between searches (each a bitmap of one bit per document). */
const FILTER_CACHE = 64;

/** A word or phrase as an FTS5 string (undefined: nothing searchable in it). */
function ftsPhrase(text: string): string | undefined {
  if (!/[\p{L}\p{N}]/u.test(text)) return undefined;
  // FTS5's query parser ends a string at NUL; control characters are separators anyway.
  // eslint-disable-next-line no-control-regex
  return `"${text.replace(/[\u0000-\u001f]/g, ' ').replace(/"/g, '""')}"`;
}

/** Lucene wildcards (* ?) with escapes → a regular expression over the whole value. */
function wildcardPattern(raw: string, anchored = true): RegExp {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\' && i + 1 < raw.length) out += raw[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(anchored ? `^${out}$` : out, 'u');
}

/** Documents whose text field matches an FTS5 query. */
function textDocs(m: IndexMemory, field: string, match: string): DocSet {
  const out = m.none();
  const code = m.fieldCodes.get(field);
  if (code === undefined) return out;
  // The field's column only: a common word is in several fields of every document.
  const rowids = (code <= m.textColumns
    ? m.file.stmt('SELECT rowid FROM search_text WHERE search_text MATCH ?').pluck().all(`${textColumn(code)} : (${match})`)
    : m.file.stmt(`SELECT rowid FROM search_text WHERE search_text MATCH ? AND rowid % ${SLOTS} = ?`).pluck().all(`other : (${match})`, code)) as number[];
  for (const rowid of rowids) out.add(Math.floor(rowid / SLOTS));
  return out;
}

/** Documents (among `within`) whose stored JSON, lower-cased, matches a pattern: infix wildcards FTS5 cannot answer. */
function bodyDocs(m: IndexMemory, pattern: RegExp, within: DocSet): DocSet {
  const out = m.none();
  for (const [id, body] of m.bodies(within.toArray())) if (pattern.test(foldText(body))) out.add(id);
  return out;
}

/** Which distinct values of a field a whole-value condition accepts. */
function marks(m: IndexMemory, column: Column, q: Extract<Query, { kind: 'term' | 'range' }>): Uint8Array {
  const kind = m.fields.kind(q.field);
  const numeric = kind === 'int' || kind === 'date';
  if (q.kind === 'range') {
    const bound = (v: string | undefined) => (v === undefined ? null : numeric ? numberOf(kind, v) : kind === 'collated' ? collationKey(v) : v);
    const from = bound(q.from);
    const to = bound(q.to);
    if (from === undefined || to === undefined) return new Uint8Array(column.values.length);
    return column.mark((ord) => {
      if (numeric) {
        // A run of numbers matches when any of them is in bounds.
        const span = column.span(ord);
        if (!span) return false;
        const [lo, hi] = span;
        const f = from as number | null;
        const t = to as number | null;
        if (lo === hi) return (f === null || (q.fromInclusive ? lo >= f : lo > f)) && (t === null || (q.toInclusive ? lo <= t : lo < t));
        // A run of whole numbers: its first and last number within the bounds.
        const start = f === null ? lo : Math.max(lo, q.fromInclusive ? Math.ceil(f) : Math.floor(f) + 1);
        const end = t === null ? hi : Math.min(hi, q.toInclusive ? Math.floor(t) : Math.ceil(t) - 1);
        return start <= end;
      }
      const v = kind === 'collated' ? column.key(ord) : column.values[ord];
      if (from !== null && (q.fromInclusive ? v < from : v <= from)) return false;
      if (to !== null && (q.toInclusive ? v > to : v >= to)) return false;
      return true;
    });
  }
  if (q.wildcard) {
    const pattern = wildcardPattern(kind === 'collated' ? foldText(q.value) : q.value);
    return column.mark((ord) => column.expanded(ord).some((v) => pattern.test(kind === 'collated' ? column.key(ord) : v)));
  }
  if (numeric) {
    const n = numberOf(kind, q.value);
    return column.mark((ord) => {
      const span = column.span(ord);
      return n !== undefined && span !== undefined && span[0] <= n && n <= span[1];
    });
  }
  if (kind === 'collated') {
    const key = collationKey(q.value).slice(0, MAX_KEY);
    return column.mark((ord) => column.key(ord) === key);
  }
  const wanted = new Uint8Array(column.values.length);
  const ord = column.ord(kind === 'boolean' ? String(q.value.toLowerCase() === 'true') : q.value.slice(0, MAX_VALUE));
  if (ord !== undefined) wanted[ord] = 1;
  return wanted;
}

/** Documents a whole-value condition matches (a collated field's words also match a term, as Solr's analysed identifiers). */
function valueDocs(m: IndexMemory, q: Extract<Query, { kind: 'term' | 'range' }>): DocSet {
  const field = q.field === 'id' ? 'uri' : q.field;
  if (field === 'uri' && q.kind === 'term' && !q.wildcard) {
    const out = m.none();
    const doc = m.docOf.get(q.value);
    if (doc !== undefined) out.add(doc);
    return out;
  }
  const column = m.valueColumn(field);
  let docs = column ? column.docsWith(marks(m, column, { ...q, field }), m.bound) : m.none();
  if (q.kind === 'term' && !q.wildcard && m.fields.kind(field) === 'collated') {
    const phrase = ftsPhrase(q.value);
    if (phrase !== undefined) docs = docs.or(textDocs(m, field, phrase));
  }
  return docs;
}

/** The documents of one condition, kept in the filter cache (IndexMemory.cached) or computed and kept. */
function remembered(m: IndexMemory, q: Query, compute: () => DocSet): DocSet {
  const key = JSON.stringify(q);
  let set = m.cached.get(key);
  if (set) {
    // Most recently used last.
    m.cached.delete(key);
  } else {
    set = compute();
    if (m.cached.size >= FILTER_CACHE) m.cached.delete(m.cached.keys().next().value!);
  }
  m.cached.set(key, set);
  return set.clone();
}

/** The documents a query matches. */
export function evaluate(m: IndexMemory, q: Query): DocSet {
  switch (q.kind) {
    case 'all':
      return m.all();
    case 'none':
      return m.none();
    case 'not':
      return m.all().andNot(evaluate(m, q.item));
    case 'or': {
      const out = m.none();
      for (const item of q.items) out.or(evaluate(m, item));
      return out;
    }
    case 'and': {
      // Plain words on one field share a single FTS match ("civil" AND "war").
      const merged = new Map<string, string[]>();
      const rest: Query[] = [];
      const patterns: Query[] = [];
      for (const item of q.items) {
        if (item.kind === 'text' && item.wildcard === 'pattern') patterns.push(item);
        else if (item.kind === 'text') {
          const phrase = ftsPhrase(item.value);
          // A word of only punctuation is analysed away: it neither matches nor narrows.
          if (phrase === undefined) continue;
          merged.set(item.field, [...(merged.get(item.field) ?? []), phrase + (item.wildcard === 'prefix' ? '*' : '')]);
        } else rest.push(item);
      }
      let out: DocSet | undefined;
      for (const [field, phrases] of merged) {
        const match = remembered(m, { kind: 'text', field, value: phrases.join(' AND ') }, () => textDocs(m, field, phrases.join(' AND ')));
        out = out ? out.and(match) : match;
      }
      for (const item of rest) out = out ? out.and(evaluate(m, item)) : evaluate(m, item);
      out ??= m.all();
      // Stored documents are read only for the documents every other condition let through.
      for (const item of patterns) out = bodyDocs(m, bodyPattern(item as Extract<Query, { kind: 'text' }>), out);
      return out;
    }
    case 'text': {
      if (q.wildcard === 'pattern') return bodyDocs(m, bodyPattern(q), m.all());
      const phrase = ftsPhrase(q.value);
      // Nothing searchable (only punctuation): like an analysed-away term, it matches nothing.
      if (phrase === undefined) return m.none();
      return remembered(m, q, () => textDocs(m, q.field, phrase + (q.wildcard === 'prefix' ? '*' : '')));
    }
    case 'exists': {
      if (q.field === 'id' || q.field === 'uri') return m.all();
      if (m.fields.kind(q.field) === 'text') {
        const out = m.none();
        const code = m.fieldCodes.get(q.field);
        if (code === undefined) return out;
        m.textCodesOf.forEach((codes, doc) => {
          if (codes && `,${codes},`.includes(`,${code},`)) out.add(doc);
        });
        return out;
      }
      return m.valueColumn(q.field)?.docsWithAny(m.bound) ?? m.none();
    }
    case 'term':
    case 'range':
      return remembered(m, q, () => valueDocs(m, q));
  }
}

/** A pattern the stored documents' folded text is matched with. */
function bodyPattern(q: Extract<Query, { kind: 'text' }>): RegExp {
  return wildcardPattern(foldText(q.value), false);
}
