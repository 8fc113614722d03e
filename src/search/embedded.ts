/**
 * The embedded index: SQLite FTS5 for tokenised fields, a (field, value) table for exact fields,
 * facets and sorting. Query ASTs compile to one WHERE clause over search_docs (a plan that can be
 * read and tested without running it).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { SearchDoc } from './documents';
import { collationKey, FieldCatalogue, foldText } from './fields';
import type { IndexState, SearchIndex, SearchRequest, SearchResult } from './port';
import { and, resolveDateMath, type Query } from './query';

/** Longer values are cut for exact matching (long text is searched through FTS). */
const MAX_VALUE = 1000;

/** Text rows of one document get FTS rowids doc * SLOTS + field code; codes stay below SLOTS. */
const SLOTS = 256;


/** Bumped when the index's tables change shape. */
const SCHEMA_VERSION = 4;

/** Fields kept out of the stored body: never returned in results. */
const UNSTORED = new Set(['fullrecord', 'fullrecord_published']);

export interface Plan {
  where: string;
  params: unknown[];
}

function ftsPhrase(text: string): string | undefined {
  if (!/[\p{L}\p{N}]/u.test(text)) return undefined;
  // FTS5's query parser ends a string at NUL; control characters are separators anyway.
  return `"${text.replace(/[\u0000-\u001f]/g, ' ').replace(/"/g, '""')}"`;
}

function globEscape(text: string): string {
  return text.replace(/[[\]]/g, (c) => `[${c}]`);
}

/** Lucene wildcards (* ?) with escapes → a GLOB pattern. */
function wildcardToGlob(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\' && i + 1 < raw.length) out += globEscape(raw[++i]);
    else if (c === '*' || c === '?') out += c;
    else out += globEscape(c);
  }
  return out;
}

function numberOf(kind: string, value: string): number | undefined {
  if (kind === 'int') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  const iso = resolveDateMath(value) ?? value;
  const ms = Date.parse(/^\d{4}(-\d{2}){0,2}$/.test(iso) ? `${iso}${iso.length === 4 ? '-01-01' : iso.length === 7 ? '-01' : ''}T00:00:00Z` : iso);
  return Number.isFinite(ms) ? ms : undefined;
}

export class EmbeddedIndex implements SearchIndex {
  readonly kind = 'embedded' as const;
  private readonly db: Database.Database;
  private readonly fieldCodes = new Map<string, number>();

  /**
   * `boosts`: each type's rank when a search has no sort (x-archive.search.boost): relevance
   * without scores, as the reference's type boosts (search.md (e)), then index order.
   */
  constructor(file: string, private readonly fields: FieldCatalogue, private readonly boosts: Record<string, number> = {}) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // Index writes touch two B-trees per value; a larger page cache keeps them from re-reading pages.
    this.db.pragma('cache_size = -65536');
    this.db.pragma('temp_store = MEMORY');
    if (Number(this.db.pragma('user_version', { simple: true })) < SCHEMA_VERSION) {
      // An index is derived data: an older layout is dropped, and the indexer rebuilds it from the store.
      this.db.exec(`DROP TABLE IF EXISTS search_meta; DROP TABLE IF EXISTS search_docs; DROP TABLE IF EXISTS search_bodies; DROP TABLE IF EXISTS search_values;
        DROP TABLE IF EXISTS search_text_fields; DROP TABLE IF EXISTS search_text;`);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS search_docs (
        id INTEGER PRIMARY KEY, uri TEXT NOT NULL UNIQUE, boost INTEGER NOT NULL, title_sort TEXT,
        text_codes TEXT NOT NULL DEFAULT '');
      -- Stored documents apart, so that matching and sorting walk small rows.
      CREATE TABLE IF NOT EXISTS search_bodies (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
      -- One B-tree keyed for term look-ups and facets, one covering index for per-document sorts.
      CREATE TABLE IF NOT EXISTS search_values (
        field TEXT NOT NULL, value TEXT NOT NULL, doc INTEGER NOT NULL, num REAL, sortkey TEXT,
        PRIMARY KEY (field, value, doc)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS search_values_doc ON search_values(doc, field, num, sortkey);
      CREATE TABLE IF NOT EXISTS search_text_fields (code INTEGER PRIMARY KEY, field TEXT NOT NULL UNIQUE);
      CREATE VIRTUAL TABLE IF NOT EXISTS search_text USING fts5(
        body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
      CREATE TEMP TABLE IF NOT EXISTS hits (id INTEGER PRIMARY KEY);
    `);
    for (const row of this.db.prepare('SELECT code, field FROM search_text_fields').all() as Array<{ code: number; field: string }>) {
      this.fieldCodes.set(row.field, row.code);
    }
  }

  /**
   * The code of a text field when a query reads it. Another process (the indexer's lease holder in
   * a cluster) may have added fields since this one opened the file: an unknown one is looked up.
   */
  private knownCode(field: string): number | undefined {
    let code = this.fieldCodes.get(field);
    if (code === undefined) {
      const row = this.db.prepare('SELECT code FROM search_text_fields WHERE field = ?').get(field) as { code: number } | undefined;
      if (row) this.fieldCodes.set(field, (code = row.code));
    }
    return code;
  }

  private codeFor(field: string): number {
    let code = this.knownCode(field);
    if (code === undefined) {
      // From the file, not this process's map: the lease may have been another process's before.
      code = Number((this.db.prepare('SELECT MAX(code) AS m FROM search_text_fields').get() as { m: number | null }).m ?? 0) + 1;
      if (code >= SLOTS) throw new Error(`more than ${SLOTS - 1} text fields in the search index`);
      this.db.prepare('INSERT INTO search_text_fields (code, field) VALUES (?, ?)').run(code, field);
      this.fieldCodes.set(field, code);
    }
    return code;
  }

  async state(): Promise<IndexState> {
    const rows = this.db.prepare('SELECT key, value FROM search_meta').all() as Array<{ key: string; value: string }>;
    const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    return { checkpoint: Number(meta.checkpoint ?? 0), storeId: meta.store_id, rebuiltTo: meta.rebuilt_to !== undefined ? Number(meta.rebuilt_to) : null };
  }

  async apply(upserts: SearchDoc[], deletes: string[], state: IndexState): Promise<void> {
    const findDoc = this.db.prepare('SELECT id, text_codes FROM search_docs WHERE uri = ?');
    const insertDoc = this.db.prepare('INSERT INTO search_docs (uri, boost, title_sort, text_codes) VALUES (?, ?, ?, ?)');
    const updateDoc = this.db.prepare('UPDATE search_docs SET boost = ?, title_sort = ?, text_codes = ? WHERE id = ?');
    const putBody = this.db.prepare('INSERT INTO search_bodies (id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body');
    const dropBody = this.db.prepare('DELETE FROM search_bodies WHERE id = ?');
    const dropDoc = this.db.prepare('DELETE FROM search_docs WHERE id = ?');
    const dropValues = this.db.prepare('DELETE FROM search_values WHERE doc = ?');
    // One row at a time: FTS5 deletes by rowid range scan the whole table.
    const dropText = this.db.prepare('DELETE FROM search_text WHERE rowid = ?');
    const addValue = this.db.prepare('INSERT OR IGNORE INTO search_values (doc, field, value, num, sortkey) VALUES (?, ?, ?, ?, ?)');
    const addText = this.db.prepare('INSERT INTO search_text (rowid, body) VALUES (?, ?)');
    const setMeta = this.db.prepare('INSERT INTO search_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');

    const forget = (row: { id: number; text_codes: string }) => {
      dropValues.run(row.id);
      for (const code of row.text_codes.split(',').filter(Boolean)) dropText.run(row.id * SLOTS + Number(code));
    };
    this.db.transaction(() => {
      for (const uri of deletes) {
        const row = findDoc.get(uri) as { id: number; text_codes: string } | undefined;
        if (!row) continue;
        forget(row);
        dropDoc.run(row.id);
        dropBody.run(row.id);
      }
      for (const doc of upserts) {
        const stored: SearchDoc = {};
        for (const [k, v] of Object.entries(doc)) if (!UNSTORED.has(k)) stored[k] = v;
        const titleSort = typeof doc.title_sort === 'string' ? collationKey(doc.title_sort) : null;
        const texts: Array<[number, string]> = [];
        for (const [field, value] of Object.entries(doc)) {
          // Identifiers (collated) are words too: "SC 0123" is found by SC and by 0123, as Solr's analysed identifier field.
          const kind = this.fields.kind(field);
          if (kind === 'text' || kind === 'collated') texts.push([this.codeFor(field), (Array.isArray(value) ? value : [value]).join('\n')]);
        }
        const codes = texts.map(([code]) => code).join(',');
        const boost = this.boosts[String(doc.primary_type)] ?? 0;
        const existing = findDoc.get(doc.uri) as { id: number; text_codes: string } | undefined;
        let id: number;
        if (existing) {
          forget(existing);
          updateDoc.run(boost, titleSort, codes, existing.id);
          id = existing.id;
        } else {
          id = Number(insertDoc.run(doc.uri, boost, titleSort, codes).lastInsertRowid);
        }
        putBody.run(id, JSON.stringify(stored));
        for (const [code, text] of texts) addText.run(id * SLOTS + code, text);
        for (const [field, value] of Object.entries(doc)) {
          // Text fields live in FTS; id repeats uri (queries on id are planned on uri).
          const kind = this.fields.kind(field);
          if (field === 'json' || field === 'id' || kind === 'text') continue;
          const many = Array.isArray(value);
          for (const v of many ? value : [value]) {
            const text = String(v).slice(0, MAX_VALUE);
            const num = kind === 'int' || kind === 'date' ? numberOf(kind, text) ?? null : null;
            // Sort keys only where a sort or a collated match can use them.
            const sortkey = kind === 'collated' || (kind === 'string' && !many) ? collationKey(text).slice(0, 200) : kind === 'boolean' ? text : null;
            addValue.run(id, field, text, num, sortkey);
          }
        }
      }
      setMeta.run('checkpoint', String(state.checkpoint));
      if (state.storeId) setMeta.run('store_id', state.storeId);
      if (typeof state.rebuiltTo === 'number') setMeta.run('rebuilt_to', String(state.rebuiltTo));
      else if (state.rebuiltTo === null) this.db.prepare("DELETE FROM search_meta WHERE key = 'rebuilt_to'").run();
    })();
  }

  async clear(storeId: string): Promise<void> {
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM search_docs; DELETE FROM search_bodies; DELETE FROM search_values; DELETE FROM search_text; DELETE FROM search_meta;`);
      this.db.prepare("INSERT INTO search_meta (key, value) VALUES ('store_id', ?)").run(storeId);
    })();
  }

  async count(): Promise<number> {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM search_docs').get() as { n: number }).n;
  }

  async dump(): Promise<Array<{ uri: string; json: string }>> {
    const rows = this.db.prepare('SELECT d.uri, b.body FROM search_docs d JOIN search_bodies b ON b.id = d.id ORDER BY d.uri').all() as Array<{ uri: string; body: string }>;
    return rows.map((r) => ({ uri: r.uri, json: String(JSON.parse(r.body).json) }));
  }

  async uris(): Promise<string[]> {
    return (this.db.prepare('SELECT uri FROM search_docs').all() as Array<{ uri: string }>).map((r) => r.uri);
  }

  async close(): Promise<void> {
    this.db.close();
  }

  // -------------------------------------------------------------------------------------------
  // planning

  /** The WHERE clause (over `search_docs d`) that a query compiles to. */
  plan(q: Query): Plan {
    const params: unknown[] = [];
    const where = this.compile(q, params);
    return { where, params };
  }

  /**
   * True while compiling a condition that another one already narrows: it is then a per-row
   * probe (one index seek) rather than a set to build (which costs the whole set, e.g. every
   * document of a repository, however few documents the words match).
   */
  private probing = false;

  private valueIn(cond: string, params: unknown[], field: string, ...extra: unknown[]): string {
    params.push(field === 'id' ? 'uri' : field, ...extra);
    if (this.probing) return `EXISTS (SELECT 1 FROM search_values v WHERE v.field = ? AND ${cond.replace(/\b(value|num|sortkey)\b/g, 'v.$1')} AND v.doc = d.id)`;
    return `d.id IN (SELECT doc FROM search_values WHERE field = ? AND ${cond})`;
  }

  private textMatch(field: string, match: string, params: unknown[]): string {
    const code = this.knownCode(field);
    if (code === undefined) return '0';
    params.push(match, code);
    return `d.id IN (SELECT rowid / ${SLOTS} FROM search_text WHERE search_text MATCH ? AND rowid % ${SLOTS} = ?)`;
  }

  /**
   * A flag test through the smaller side: `suppressed:false` on every repository search is "not
   * among the few suppressed documents", not a membership test against nearly every document.
   */
  private booleanTerm(field: string, value: boolean, params: unknown[]): string {
    // Counting stops once one side is known to be the larger.
    const count = this.db.prepare('SELECT COUNT(*) AS n FROM (SELECT 1 FROM search_values WHERE field = ? AND value = ? LIMIT ?)');
    const other = (count.get(field, String(!value), 10_000) as { n: number }).n;
    const wanted = (count.get(field, String(value), other + 1) as { n: number }).n;
    if (other < wanted) {
      params.push(field, String(!value));
      const notOther = 'd.id NOT IN (SELECT doc FROM search_values WHERE field = ? AND value = ?)';
      // Every document has the flags the indexer always sets; for others, absent is not `field:value`.
      if (field === 'suppressed' || field === 'publish' || field === 'system_generated') return notOther;
      params.push(field);
      return `${notOther} AND d.id IN (SELECT doc FROM search_values WHERE field = ?)`;
    }
    return this.valueIn('value = ?', params, field, String(value));
  }

  private compile(q: Query, params: unknown[]): string {
    switch (q.kind) {
      case 'all':
        return '1';
      case 'none':
        return '0';
      case 'not':
        return `NOT (${this.compile(q.item, params)})`;
      case 'or':
        return `(${q.items.map((i) => this.compile(i, params)).join(' OR ')})`;
      case 'and': {
        // Plain words on one field share a single FTS match ("civil" AND "war").
        const merged = new Map<string, string[]>();
        const rest: Query[] = [];
        for (const item of q.items) {
          if (item.kind === 'text' && item.wildcard !== 'pattern') {
            const phrase = ftsPhrase(item.value);
            if (phrase === undefined) continue;
            merged.set(item.field, [...(merged.get(item.field) ?? []), phrase + (item.wildcard === 'prefix' ? '*' : '')]);
          } else rest.push(item);
        }
        const parts = [...merged].map(([field, phrases]) => this.textMatch(field, phrases.join(' AND '), params));
        // The word matches (or else the first condition) drive; the other conditions probe.
        const outer = this.probing;
        rest.forEach((item, i) => {
          this.probing = outer || parts.length > 0 || i > 0;
          parts.push(this.compile(item, params));
        });
        this.probing = outer;
        return parts.length ? `(${parts.join(' AND ')})` : '1';
      }
      case 'text': {
        if (q.wildcard === 'pattern') {
          const glob = `*${wildcardToGlob(foldText(q.value))}*`;
          // FTS5 has no infix wildcards: the stored document (its json included) is scanned instead.
          params.push(glob);
          return 'lower((SELECT body FROM search_bodies b WHERE b.id = d.id)) GLOB ?';
        }
        const phrase = ftsPhrase(q.value);
        // Nothing searchable (only punctuation): like an analysed-away term, it matches nothing.
        if (phrase === undefined) return '0';
        return this.textMatch(q.field, phrase + (q.wildcard === 'prefix' ? '*' : ''), params);
      }
      case 'exists': {
        if (this.fields.kind(q.field) === 'text') {
          const code = this.knownCode(q.field);
          if (code === undefined) return '0';
          params.push(`%,${code},%`);
          return "(',' || d.text_codes || ',') LIKE ?";
        }
        params.push(q.field === 'id' ? 'uri' : q.field);
        if (this.probing) return 'EXISTS (SELECT 1 FROM search_values v WHERE v.doc = d.id AND v.field = ?)';
        return 'd.id IN (SELECT doc FROM search_values WHERE field = ?)';
      }
      case 'term': {
        const kind = this.fields.kind(q.field);
        if (q.wildcard) return this.valueIn(kind === 'collated' ? 'sortkey GLOB ?' : 'value GLOB ?', params, q.field, wildcardToGlob(kind === 'collated' ? foldText(q.value) : q.value));
        if (kind === 'boolean') return this.booleanTerm(q.field, q.value.toLowerCase() === 'true', params);
        if (kind === 'int' || kind === 'date') {
          const n = numberOf(kind, q.value);
          return n === undefined ? '0' : this.valueIn('num = ?', params, q.field, n);
        }
        if (kind === 'collated') {
          const whole = this.valueIn('sortkey = ?', params, q.field, collationKey(q.value).slice(0, 200));
          const phrase = ftsPhrase(q.value);
          return phrase === undefined ? whole : `(${whole} OR ${this.textMatch(q.field, phrase, params)})`;
        }
        return this.valueIn('value = ?', params, q.field, q.value);
      }
      case 'range': {
        const kind = this.fields.kind(q.field);
        const numeric = kind === 'int' || kind === 'date';
        const conds: string[] = [];
        const extra: unknown[] = [];
        const bound = (v: string | undefined, op: string) => {
          if (v === undefined) return true;
          const b = numeric ? numberOf(kind, v) : kind === 'collated' ? collationKey(v) : v;
          if (b === undefined) return false;
          conds.push(`${numeric ? 'num' : kind === 'collated' ? 'sortkey' : 'value'} ${op} ?`);
          extra.push(b);
          return true;
        };
        if (!bound(q.from, q.fromInclusive ? '>=' : '>') || !bound(q.to, q.toInclusive ? '<=' : '<')) return '0';
        if (!conds.length) conds.push('1');
        return this.valueIn(conds.join(' AND '), params, q.field, ...extra);
      }
    }
  }

  private orderBy(sort: SearchRequest['sort'], params: unknown[]): string {
    const parts: string[] = [];
    for (const key of sort) {
      const dir = key.desc ? 'DESC' : 'ASC';
      if (key.field === 'score') {
        parts.push(`d.boost ${key.desc ? 'DESC' : 'ASC'}`);
        continue;
      }
      if (key.field === 'title_sort') {
        parts.push(`d.title_sort IS NULL, d.title_sort ${dir}`);
        continue;
      }
      const kind = this.fields.kind(key.field);
      if (kind === 'text') {
        // Text fields are not in search_values: sort on the stored value (Solr sorts by a token).
        const value = 'lower(json_extract((SELECT body FROM search_bodies b WHERE b.id = d.id), ?))';
        parts.push(`${value} IS NULL, ${value} ${dir}`);
        params.push(`$."${key.field}"`, `$."${key.field}"`);
        continue;
      }
      const column = kind === 'int' || kind === 'date' ? 'num' : 'sortkey';
      const agg = key.desc ? 'MAX' : 'MIN';
      const expr = `(SELECT ${agg}(${column}) FROM search_values v WHERE v.doc = d.id AND v.field = ?)`;
      // Missing values sort last either way (sortMissingLast).
      parts.push(`${expr} IS NULL, ${expr} ${dir}`);
      params.push(key.field, key.field);
    }
    parts.push('d.id ASC');
    return parts.join(', ');
  }

  async search(r: SearchRequest): Promise<SearchResult> {
    const params: unknown[] = [];
    const where = this.compile(and([r.query, ...r.filters]), params);
    const orderParams: unknown[] = [];
    const order = this.orderBy(r.sort, orderParams);
    // The match runs once into a temporary table; count, page and facets read it (one
    // connection, synchronous: no other search can interleave). CROSS JOIN keeps the matches the
    // outer loop: the planner has no statistics for the temporary table.
    const run = this.db.transaction(() => {
      this.db.prepare('DELETE FROM temp.hits').run();
      const total = Number(this.db.prepare(`INSERT INTO temp.hits (id) SELECT d.id FROM search_docs d WHERE ${where}`).run(...params).changes);
      // Ids first, bodies for the page only (a sorter would otherwise carry every match's body).
      const ids = r.limit > 0 && total > r.offset
        ? (this.db
          .prepare(`SELECT d.id AS id FROM temp.hits h CROSS JOIN search_docs d ON d.id = h.id ORDER BY ${order} LIMIT ? OFFSET ?`)
          .all(...orderParams, r.limit, r.offset) as Array<{ id: number }>).map((row) => row.id)
        : [];
      const bodies = new Map(
        (ids.length ? this.db.prepare(`SELECT id, body FROM search_bodies WHERE id IN (${ids.map(() => '?').join(',')})`).all(...ids) : [])
          .map((row) => [(row as { id: number }).id, (row as { body: string }).body]),
      );
      const docs = ids.map((id) => JSON.parse(bodies.get(id)!) as SearchDoc);
      const facets: SearchResult['facets'] = {};
      // An estimate is enough to choose how to count facets, and MAX(id) needs no scan.
      const docCount = r.facets.length ? Number((this.db.prepare('SELECT MAX(id) AS n FROM search_docs').get() as { n: number | null }).n ?? 0) : 0;
      for (const field of r.facets) facets[field] = this.facet(field, r, total, docCount);
      return { total, docs, facets };
    });
    return run();
  }

  private facet(field: string, r: SearchRequest, hits: number, docs: number): Array<[string, number]> {
    let counted: Array<{ value: string; n: number }>;
    if (hits > docs / 2) {
      // Most documents match: count the field over all of them (one covering scan) and take
      // away the few that do not match, instead of looking up every match.
      const all = this.db.prepare('SELECT value, COUNT(*) AS n FROM search_values WHERE field = ? GROUP BY value').all(field) as Array<{ value: string; n: number }>;
      const missing = this.db
        .prepare(
          `SELECT v.value AS value, COUNT(*) AS n FROM search_docs d JOIN search_values v ON v.doc = d.id AND v.field = ?
           WHERE d.id NOT IN (SELECT id FROM temp.hits) GROUP BY v.value`,
        )
        .all(field) as Array<{ value: string; n: number }>;
      const less = new Map(missing.map((m) => [m.value, m.n]));
      counted = all
        .map((a) => ({ value: a.value, n: a.n - (less.get(a.value) ?? 0) }))
        .filter((c) => c.n >= Math.max(1, r.facetMincount))
        .sort((a, b) => b.n - a.n || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        .slice(0, r.facetLimit);
    } else {
      counted = this.db
        .prepare(
          `SELECT v.value AS value, COUNT(*) AS n FROM temp.hits h CROSS JOIN search_values v ON v.doc = h.id AND v.field = ?
           GROUP BY v.value HAVING COUNT(*) >= ? ORDER BY n DESC, v.value ASC LIMIT ?`,
        )
        .all(field, Math.max(1, r.facetMincount), r.facetLimit) as Array<{ value: string; n: number }>;
    }
    const pairs: Array<[string, number]> = counted.map((c) => [c.value, c.n]);
    if (r.facetMincount <= 0 && pairs.length < r.facetLimit) {
      // As Solr with mincount 0: values of the field that no matching document has, counted 0.
      const seen = new Set(pairs.map((p) => p[0]));
      // Distinct values by hopping from one to the next in the index (no scan of every row).
      const zero = this.db
        .prepare(
          `WITH RECURSIVE v(x) AS (
             SELECT MIN(value) FROM search_values WHERE field = ?
             UNION ALL SELECT (SELECT MIN(value) FROM search_values WHERE field = ? AND value > x) FROM v WHERE x IS NOT NULL LIMIT ?)
           SELECT x AS value FROM v WHERE x IS NOT NULL`,
        )
        .all(field, field, r.facetLimit + seen.size + 1) as Array<{ value: string }>;
      for (const z of zero) if (!seen.has(z.value) && pairs.length < r.facetLimit) pairs.push([z.value, 0]);
    }
    return pairs;
  }
}
