/**
 * The embedded index. On disk (one SQLite file): FTS5 for tokenised fields, each document's
 * exact-field values in one compact row, the stored documents compressed, and a short log of
 * which documents changed. In memory: the exact fields as doc values (./doc-values.ts), so
 * filters, facets and sorts are passes over typed arrays, not B-tree look-ups per match.
 *
 * Several processes may open the file (WORKERS=N): one writes (the indexer's lease holder), the
 * others see its commits through `PRAGMA data_version` and catch up from the change log.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { type Checkpointer, SAFETY_NET_PAGES, startCheckpointer } from '../store/checkpointer';
import type { SearchDoc } from './documents';
import { Column, DocSet, integerRuns, runBounds, SortOrder, type ValueCodec } from './doc-values';
import { collationKey, FieldCatalogue, foldText, type FieldKind } from './fields';
import type { IndexState, SearchIndex, SearchRequest, SearchResult, SortKey } from './port';
import { and, resolveDateMath, type Query } from './query';

/** Longer values are cut for exact matching (long text is searched through FTS). */
const MAX_VALUE = 1000;

/** Sort keys are compared on their first characters. */
const MAX_KEY = 200;

/**
 * A document's words are one FTS row, rowid doc * SLOTS, with a column per field the catalogue knew
 * when the table was made (codes 1 to its column count), and a row per other field, rowid doc *
 * SLOTS + that field's code, in the column `other`; codes stay below SLOTS. One row per field
 * (13.5 per accession) cost FTS5 1.6 times as much per document as one row with a column each
 * (20,000 accessions: 24,000-25,000 against 40,000-44,000 documents/s), its per-row work being
 * most of it; each column a document leaves empty costs ~0.13 µs.
 */
const SLOTS = 256;

/** The words' table's column of a field code at most its column count. */
function textColumn(code: number): string {
  return `f${code}`;
}

/** The words' table's columns for field codes 1 to `count`. */
function textColumns(count: number): string[] {
  return Array.from({ length: count }, (_, i) => textColumn(i + 1));
}

/** Bumped when the index's tables change shape. */
const SCHEMA_VERSION = 8;

/** Fields kept out of the stored body: never returned in results. */
const UNSTORED = new Set(['fullrecord', 'fullrecord_published']);

/** Condition sets kept between searches (each a bitmap of one bit per document). */
const FILTER_CACHE = 64;

/** The change log keeps at least this many entries for processes catching up; older ones reload everything. */
const CHANGES_KEPT = 200_000;

interface DocRow {
  id: number;
  uri: string;
  boost: number;
  text_codes: string;
  vals: string;
}

/** A document's exact-field values as stored: [field code, value or values, field code, ...] (JSON). */
type PackedValues = Array<number | string | string[]>;

function ftsPhrase(text: string): string | undefined {
  if (!/[\p{L}\p{N}]/u.test(text)) return undefined;
  // FTS5's query parser ends a string at NUL; control characters are separators anyway.
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

function numberOf(kind: string, value: string): number | undefined {
  if (kind === 'int') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  const iso = resolveDateMath(value) ?? value;
  const ms = Date.parse(/^\d{4}(-\d{2}){0,2}$/.test(iso) ? `${iso}${iso.length === 4 ? '-01-01' : iso.length === 7 ? '-01' : ''}T00:00:00Z` : iso);
  return Number.isFinite(ms) ? ms : undefined;
}

function codecFor(kind: FieldKind): ValueCodec {
  const numeric = kind === 'int' || kind === 'date';
  return {
    span: (v) => {
      if (!numeric) return undefined;
      const run = kind === 'int' ? runBounds(v) : undefined;
      if (run) return run;
      const n = numberOf(kind, v);
      return n === undefined ? undefined : [n, n];
    },
    key: (v) => (kind === 'boolean' || numeric ? v : collationKey(v).slice(0, MAX_KEY)),
  };
}

/** Segments of one level FTS5 lets pile up before it merges them (its default is 4; see createText). */
export const FTS_AUTOMERGE = 8;

/** Stored documents are compressed: read a page at a time, they would otherwise be most of the file. */
function pack(body: string | Uint8Array): Buffer {
  return zlib.deflateRawSync(body, { level: 1 });
}

/**
 * A stored body: the document's fields as JSON, then a newline and the record's JSON as it is
 * (JSON text holds no raw newline). Written inside the fields' JSON, the record's JSON was escaped
 * on every write and unescaped on every read: a tenth of a rebuild's building thread, and larger to compress.
 */
function bodyText(fields: SearchDoc, json: string | undefined): string {
  const text = JSON.stringify(fields);
  return json === undefined ? text : `${text}\n${json}`;
}

/** The document a stored body holds (bodyText's inverse). */
function documentOf(text: string): SearchDoc {
  const split = text.indexOf('\n');
  if (split < 0) return JSON.parse(text) as SearchDoc;
  const doc = JSON.parse(text.slice(0, split)) as SearchDoc;
  doc.json = text.slice(split + 1);
  return doc;
}

/**
 * A document as the index writes it: its stored body (compressed by the thread that writes it),
 * its text by field, its exact values by field. Pure (no index state), so the work can be done by
 * either thread: a rebuild prepares its pages in the thread that builds them, leaving the index's
 * thread the compression and the writes (a profile of make reindex: the building thread was busy
 * 95 % of the time, a fifth of it in zlib, and waited for by the index's thread).
 */
export interface PreparedDoc {
  uri: string;
  type: string;
  /** bodyText(): the fields stored and the record's JSON; as UTF-8 when moved between threads (bodiesAsBytes). */
  body: string | Uint8Array;
  /**
   * Field, text, field, text...: flat, as `values` (field, value or values, ...), since a page's
   * message is cloned object by object, and a pair array per field was a third of its objects.
   */
  texts: string[];
  values: Array<string | string[]>;
}

export function prepareDocument(doc: SearchDoc, fields: FieldCatalogue): PreparedDoc {
  const stored: SearchDoc = {};
  let json: string | undefined;
  const texts: string[] = [];
  const values: Array<string | string[]> = [];
  for (const field in doc) {
    const value = doc[field];
    if (field === 'json' && typeof value === 'string') json = value;
    else if (!UNSTORED.has(field)) stored[field] = value;
    const kind = fields.kind(field);
    const list = Array.isArray(value) ? value : [value];
    // Identifiers (collated) are words too, as Solr's analysed identifier field.
    if (fields.searchedAsWords(field)) texts.push(field, list.join('\n'));
    // Text fields live in FTS; id repeats uri; json is only returned.
    if (kind !== 'text' && field !== 'json' && field !== 'id') {
      const strings = list.map((v) => String(v).slice(0, MAX_VALUE));
      const exact = kind === 'int' ? integerRuns(strings) : strings;
      values.push(field, exact.length === 1 ? exact[0] : exact);
    }
  }
  return { uri: String(doc.uri), type: String(doc.primary_type), body: bodyText(stored, json), texts, values };
}

/**
 * Makes a page's bodies UTF-8 in one buffer, each document's body a view of it, and returns that
 * buffer for the page's message to transfer: the index thread gets them without a copy, and
 * compresses the bytes as they are, where a string was copied into the message, copied out into
 * a new string, then encoded again for zlib.
 */
export function bodiesAsBytes(docs: PreparedDoc[]): ArrayBuffer {
  let total = 0;
  for (const doc of docs) total += typeof doc.body === 'string' ? Buffer.byteLength(doc.body) : doc.body.length;
  const bytes = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const doc of docs) {
    const length = typeof doc.body === 'string' ? bytes.write(doc.body, at) : (bytes.set(doc.body, at), doc.body.length);
    doc.body = bytes.subarray(at, at + length);
    at += length;
  }
  return bytes.buffer;
}

function unpack(body: Buffer): string {
  return zlib.inflateRawSync(body).toString('utf8');
}

/** Binary order of strings, as SQLite compares them. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class EmbeddedIndex implements SearchIndex {
  readonly kind = 'embedded' as const;
  /** Its applies run whole in the caller's turn, so pages are written in call order. */
  readonly pagesInFlight = 2;
  private readonly db: Database.Database;
  private readonly checkpointer?: Checkpointer;
  private readonly fieldCodes = new Map<string, number>();
  /** Codes 1 to this are columns of a document's row in search_text; higher codes have rows of their own (SLOTS). */
  private textColumns = 0;
  /** Exact fields by code (search_value_fields), and codes by field. */
  private readonly valueFields: string[] = [];
  private readonly valueCodes = new Map<string, number>();
  private readonly stmts = new Map<string, Database.Statement>();

  // What this process holds in memory, and how far it has followed the file.
  /**
   * Doc values of the fields a search has used since the index was opened, built from the file on
   * first use (valueColumns): most of a catalogue's exact fields (identifiers, ref_ids, enumeration
   * copies) are never filtered, sorted or faceted on, and every column costs memory per document.
   */
  private readonly columns = new Map<string, Column>();
  /**
   * A column was built since this process last wrote: the fields searches use are kept in the
   * file (meta `value_fields_used`) with the next write, so the next opener builds their columns
   * at open rather than in its first searches.
   */
  private usedUnsaved = false;
  /** Each distinct list of text field codes once (a few dozen lists serve every document). */
  private readonly textCodeLists = new Map<string, string>();
  private readonly docOf = new Map<string, number>();
  private readonly uriOf: Array<string | undefined> = [];
  private readonly textCodesOf: Array<string | undefined> = [];
  private boostOf: Int32Array = new Int32Array(0);
  private live = new DocSet(0);
  private bound = 1;
  private epoch = '';
  private seenSeq = 0;
  private dataVersion = -1;

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
    // Checkpoints (copying the WAL into the file, and their fsyncs) in a thread of their own, as
    // the store's, not inside this thread's commits: a rebuild waited on the disk there (100k on
    // MariaDB: 18.4-27.3 s, mean 23.1, against 19.3-24.3 s, mean 21.6, over seven runs each;
    // with no fsync at all 22-24 s against 27-30 s).
    if (file !== ':memory:') {
      this.checkpointer = startCheckpointer(file);
      this.db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
    }
    // 8 MB of pages: searches read words' postings once (the filter cache keeps their sets) and
    // stored documents a page at a time. 32 MB held 30 MB more once a bulk load had filled it, and
    // answered the bench's searches and a rebuild no faster (100k: 6,751 against 6,170-7,012 records/s).
    this.db.pragma('cache_size = -8192');
    this.db.pragma('temp_store = MEMORY');
    if (Number(this.db.pragma('user_version', { simple: true })) < SCHEMA_VERSION) {
      // An index is derived data: an older layout is dropped, and the indexer rebuilds it from the store.
      this.db.exec(`DROP TABLE IF EXISTS search_meta; DROP TABLE IF EXISTS search_docs; DROP TABLE IF EXISTS search_bodies; DROP TABLE IF EXISTS search_values;
        DROP TABLE IF EXISTS search_text_fields; DROP TABLE IF EXISTS search_text; DROP TABLE IF EXISTS search_changes;
        DROP TABLE IF EXISTS search_value_fields;`);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      -- vals: the exact fields' values (PackedValues: field codes, not names), loaded into doc values at open.
      CREATE TABLE IF NOT EXISTS search_docs (
        id INTEGER PRIMARY KEY, uri TEXT NOT NULL UNIQUE, boost INTEGER NOT NULL, text_codes TEXT NOT NULL DEFAULT '', vals TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS search_value_fields (code INTEGER PRIMARY KEY, field TEXT NOT NULL UNIQUE);
      CREATE TABLE IF NOT EXISTS search_bodies (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS search_changes (seq INTEGER PRIMARY KEY, doc INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS search_text_fields (code INTEGER PRIMARY KEY, field TEXT NOT NULL UNIQUE);
    `);
    this.db.transaction(() => {
      if (!this.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'search_text'`).get()) this.createText();
    }).immediate();
    this.loadAll();
  }

  /** The words' table, with a column for each word field the catalogue knows now (see SLOTS). */
  private createText(): void {
    const known = this.fields.wordFields().slice(0, SLOTS - 2);
    this.db.exec(`DROP TABLE IF EXISTS search_text; DELETE FROM search_text_fields;
      CREATE VIRTUAL TABLE search_text USING fts5(${textColumns(known.length).map((c) => `${c}, `).join('')}other,
        content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');`);
    // FTS5 merges a level's segments once it holds `automerge` of them, in the transaction that
    // wrote the last: at its default, 4, that merging was half of every live index write (100k
    // documents, 8 per commit: 431-498 µs per document, against 175-256 at 8; bench/apply-profile.ts).
    // Searches read up to twice as many segments per word: a word's postings took the same time
    // within noise (12 words of 0 to 450,000 matches). Kept in the table's own configuration, so
    // set whenever the table is made.
    this.db.exec(`INSERT INTO search_text (search_text, rank) VALUES ('automerge', ${FTS_AUTOMERGE})`);
    const name = this.db.prepare('INSERT INTO search_text_fields (code, field) VALUES (?, ?)');
    known.forEach((field, i) => name.run(i + 1, field));
    this.stmts.clear();
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  private meta(key: string): string | undefined {
    return (this.stmt('SELECT value FROM search_meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  private setMeta(key: string, value: string): void {
    this.stmt('INSERT INTO search_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  // -------------------------------------------------------------------------------------------
  // memory ↔ file

  /**
   * The columns of these fields, those not yet held built from the file in one pass over its
   * documents. A field no document was ever given has no column. Called between writes, when
   * memory holds what the file holds (a search syncs first).
   */
  private valueColumns(fields: Iterable<string>): void {
    const missing = new Map<number, Column>();
    for (const field of fields) {
      if (this.columns.has(field)) continue;
      const code = this.knownValueCode(field);
      if (code !== undefined) missing.set(code, new Column(codecFor(this.fields.kind(field))));
    }
    if (!missing.size) return;
    const rows = this.stmt('SELECT id, vals FROM search_docs').raw(true);
    for (const [id, packed] of rows.iterate() as IterableIterator<[number, string]>) {
      const vals = JSON.parse(packed) as PackedValues;
      for (let i = 0; i < vals.length; i += 2) {
        const values = vals[i + 1];
        missing.get(vals[i] as number)?.set(id, typeof values === 'string' ? [values] : (values as string[]));
      }
    }
    for (const [code, column] of missing) this.columns.set(this.valueField(code), column);
    this.usedUnsaved = true;
  }

  /** The fields whose columns an opener builds at once: those this or an earlier process used. */
  private usedFields(): string[] {
    const used = new Set(this.columns.keys());
    try {
      for (const field of JSON.parse(this.meta('value_fields_used') ?? '[]') as string[]) used.add(field);
    } catch {
      // Only a hint: a damaged value builds nothing ahead.
    }
    return [...used];
  }

  /** A held column, built first when a search has not used it yet (undefined: no document has the field). */
  private valueColumn(field: string): Column | undefined {
    if (!this.columns.has(field)) this.valueColumns([field]);
    return this.columns.get(field);
  }

  /** The field's code in the file (undefined: no document was ever given the field). */
  private knownValueCode(field: string): number | undefined {
    if (!this.valueCodes.has(field)) {
      const row = this.stmt('SELECT code FROM search_value_fields WHERE field = ?').get(field) as { code: number } | undefined;
      if (!row) return undefined;
      this.valueCodes.set(field, row.code);
      this.valueFields[row.code] = field;
    }
    return this.valueCodes.get(field);
  }

  private setLive(doc: number, on: boolean): void {
    if (doc >= this.bound) {
      this.bound = Math.max(doc + 1, this.bound * 2);
      const words = new Uint32Array((this.bound + 31) >>> 5);
      words.set(this.live.words);
      this.live = new DocSet(this.bound, words);
      const boosts = new Int32Array(this.bound);
      boosts.set(this.boostOf);
      this.boostOf = boosts;
    }
    if (on) this.live.add(doc);
    else this.live.words[doc >>> 5] &= ~(1 << (doc & 31));
  }

  private forget(doc: number): void {
    this.cached.clear();
    const uri = this.uriOf[doc];
    if (uri === undefined) return;
    this.docOf.delete(uri);
    this.uriOf[doc] = undefined;
    this.textCodesOf[doc] = undefined;
    for (const c of this.columns.values()) c.remove(doc);
    this.setLive(doc, false);
  }

  private remember(row: DocRow): void {
    this.replace(row.id, row.uri, row.boost, row.text_codes, JSON.parse(row.vals) as PackedValues);
  }

  /**
   * Puts a document's new state into memory. A document held under the same uri keeps the values
   * that did not change, and with them what the columns keep between searches (sort orders).
   */
  private replace(id: number, uri: string, boost: number, textCodes: string, vals: PackedValues): void {
    if (this.uriOf[id] !== uri) this.forget(id);
    else {
      const present = new Set<string>();
      for (let i = 0; i < vals.length; i += 2) present.add(this.valueField(vals[i] as number));
      for (const [field, column] of this.columns) if (!present.has(field)) column.remove(id);
    }
    this.place(id, uri, boost, textCodes, vals);
  }

  /** Puts a document this process does not hold (or holds under the same uri) into memory. */
  private place(id: number, uri: string, boost: number, textCodes: string, vals: PackedValues): void {
    this.cached.clear();
    this.docOf.set(uri, id);
    this.uriOf[id] = uri;
    let codes = this.textCodeLists.get(textCodes);
    if (codes === undefined) this.textCodeLists.set(textCodes, (codes = textCodes));
    this.textCodesOf[id] = codes;
    this.setLive(id, true);
    if (this.boostOf[id] !== boost) {
      this.boostOf[id] = boost;
      this.scoreOrders = undefined;
    }
    if (!this.columns.size) return;
    for (let i = 0; i < vals.length; i += 2) {
      const values = vals[i + 1];
      this.columns.get(this.valueField(vals[i] as number))?.set(id, typeof values === 'string' ? [values] : (values as string[]));
    }
  }

  private loadAll(): void {
    this.cached.clear();
    this.scoreOrders = undefined;
    const used = this.usedFields();
    this.columns.clear();
    this.textCodeLists.clear();
    this.docOf.clear();
    this.uriOf.length = 0;
    this.textCodesOf.length = 0;
    this.boostOf = new Int32Array(0);
    this.live = new DocSet(0);
    this.bound = 1;
    this.fieldCodes.clear();
    this.db.transaction(() => {
      for (const row of this.stmt('SELECT code, field FROM search_text_fields').all() as Array<{ code: number; field: string }>) {
        this.fieldCodes.set(row.field, row.code);
      }
      this.textColumns = (this.db.prepare(`SELECT COUNT(*) FROM pragma_table_info('search_text')`).pluck().get() as number) - 1;
      // Rows as arrays: no object per row for 100,000s of documents.
      const rows = this.db.prepare('SELECT id, uri, boost, text_codes FROM search_docs').raw(true);
      for (const [id, uri, boost, codes] of rows.iterate() as IterableIterator<[number, string, number, string]>) {
        this.place(id, uri, boost, codes, []);
      }
      this.valueColumns(used);
      this.epoch = this.meta('epoch') ?? '';
      this.seenSeq = Number((this.stmt('SELECT MAX(seq) AS m FROM search_changes').get() as { m: number | null }).m ?? 0);
    })();
    this.dataVersion = Number(this.db.pragma('data_version', { simple: true }));
  }

  /** Follows what another process committed to the file since this one last looked. */
  private sync(): void {
    const version = Number(this.db.pragma('data_version', { simple: true }));
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    const epoch = this.meta('epoch') ?? '';
    const from = Number(this.meta('changes_from') ?? 0);
    if (epoch !== this.epoch || this.seenSeq + 1 < from) {
      this.loadAll();
      return;
    }
    const changes = this.stmt('SELECT seq, doc FROM search_changes WHERE seq > ? ORDER BY seq').all(this.seenSeq) as Array<{ seq: number; doc: number }>;
    if (!changes.length) return;
    const find = this.stmt('SELECT id, uri, boost, text_codes, vals FROM search_docs WHERE id = ?');
    for (const doc of new Set(changes.map((c) => c.doc))) {
      const row = find.get(doc) as DocRow | undefined;
      if (row) this.remember(row);
      else this.forget(doc);
    }
    for (const row of this.stmt('SELECT code, field FROM search_text_fields').all() as Array<{ code: number; field: string }>) {
      this.fieldCodes.set(row.field, row.code);
    }
    this.seenSeq = changes[changes.length - 1].seq;
  }

  /** The field of a value code; one another process added since this one looked is read from the file. */
  private valueField(code: number): string {
    let field = this.valueFields[code];
    if (field === undefined) {
      for (const row of this.stmt('SELECT code, field FROM search_value_fields').all() as Array<{ code: number; field: string }>) {
        this.valueFields[row.code] = row.field;
        this.valueCodes.set(row.field, row.code);
      }
      field = this.valueFields[code];
      if (field === undefined) throw new Error(`the search index names an unknown field code ${code}`);
    }
    return field;
  }

  /** The field's code, given it here when the file has none yet. */
  private valueCodeFor(field: string): number {
    let code = this.knownValueCode(field);
    if (code === undefined) {
      code = Number(this.stmt('INSERT INTO search_value_fields (field) VALUES (?)').run(field).lastInsertRowid);
      this.valueCodes.set(field, code);
      this.valueFields[code] = field;
    }
    return code;
  }

  private codeFor(field: string): number {
    let code = this.fieldCodes.get(field);
    if (code === undefined) {
      code = Number((this.stmt('SELECT MAX(code) AS m FROM search_text_fields').get() as { m: number | null }).m ?? 0) + 1;
      if (code >= SLOTS) throw new Error(`more than ${SLOTS - 1} text fields in the search index`);
      this.stmt('INSERT INTO search_text_fields (code, field) VALUES (?, ?)').run(code, field);
      this.fieldCodes.set(field, code);
    }
    return code;
  }

  async state(): Promise<IndexState> {
    const rows = this.stmt('SELECT key, value FROM search_meta').all() as Array<{ key: string; value: string }>;
    const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    return { checkpoint: Number(meta.checkpoint ?? 0), storeId: meta.store_id, rebuiltTo: meta.rebuilt_to !== undefined ? Number(meta.rebuilt_to) : null };
  }

  async apply(upserts: SearchDoc[], deletes: string[], state: IndexState): Promise<void> {
    return this.applyPrepared(upserts.map((doc) => prepareDocument(doc, this.fields)), deletes, state);
  }

  /** apply() of documents already prepared (prepareDocument), by this thread or another. */
  async applyPrepared(upserts: PreparedDoc[], deletes: string[], state: IndexState): Promise<void> {
    const insertDoc = this.stmt('INSERT INTO search_docs (uri, boost, text_codes, vals) VALUES (?, ?, ?, ?)');
    const updateDoc = this.stmt('UPDATE search_docs SET boost = ?, text_codes = ?, vals = ? WHERE id = ?');
    const putBody = this.stmt('INSERT INTO search_bodies (id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body');
    const dropBody = this.stmt('DELETE FROM search_bodies WHERE id = ?');
    const dropDoc = this.stmt('DELETE FROM search_docs WHERE id = ?');
    // One row at a time: FTS5 deletes by rowid range scan the whole table.
    const dropText = this.stmt('DELETE FROM search_text WHERE rowid = ?');
    // Known once this process has caught up (sync, in the transaction): another may have made the table anew.
    let columns = 0;
    let addRow: Database.Statement;
    const addText = this.stmt('INSERT INTO search_text (rowid, other) VALUES (?, ?)');
    const changed = this.stmt('INSERT INTO search_changes (doc) VALUES (?)');

    const heldCodes = (id: number) => (this.textCodesOf[id] ?? '').split(',').filter(Boolean).map(Number);
    // FTS5 writes what it buffers to disk whenever a rowid is not above the last one written in
    // the transaction: a document's rows go in ascending rowid order (its old rows dropped just
    // before its new ones), or every document would flush (three times the cost, measured).
    const writeTexts = (id: number, old: number[], texts: Array<[number, string]>) => {
      if (old.some((code) => code <= columns)) dropText.run(id * SLOTS);
      if (texts.some(([code]) => code <= columns)) {
        const row: Array<number | string | null> = new Array(columns + 1).fill(null);
        row[0] = id * SLOTS;
        for (const [code, text] of texts) if (code <= columns) row[code] = text;
        addRow.run(row);
      }
      const fresh = new Map(texts);
      for (const code of [...new Set([...old, ...fresh.keys()])].sort((a, b) => a - b)) {
        if (code <= columns) continue;
        if (old.includes(code)) dropText.run(id * SLOTS + code);
        const text = fresh.get(code);
        if (text !== undefined) addText.run(id * SLOTS + code, text);
      }
    };
    const write = this.db.transaction(() => {
      // Immediate: no other process writes between catching up and this batch.
      this.sync();
      columns = this.textColumns;
      addRow = this.stmt(`INSERT INTO search_text (rowid${textColumns(columns).map((c) => `, ${c}`).join('')}) VALUES (?${', ?'.repeat(columns)})`);
      if (state.rebuiltFrom !== undefined && this.meta('rebuilt_to') !== String(state.rebuiltFrom)) {
        throw new Error(`a rebuild page after row ${state.rebuiltFrom} came before that row was written`);
      }
      let seq = this.seenSeq;
      for (const uri of deletes) {
        const id = this.docOf.get(uri);
        if (id === undefined) continue;
        writeTexts(id, heldCodes(id), []);
        dropDoc.run(id);
        dropBody.run(id);
        seq = Number(changed.run(id).lastInsertRowid);
        this.forget(id);
      }
      for (const doc of upserts) {
        const texts: Array<[number, string]> = [];
        for (let i = 0; i < doc.texts.length; i += 2) texts.push([this.codeFor(doc.texts[i]), doc.texts[i + 1]]);
        const vals: PackedValues = [];
        for (let i = 0; i < doc.values.length; i += 2) vals.push(this.valueCodeFor(doc.values[i] as string), doc.values[i + 1]);
        const row: DocRow = {
          id: 0, uri: doc.uri, boost: this.boosts[doc.type] ?? 0,
          text_codes: texts.map(([code]) => code).join(','), vals: JSON.stringify(vals),
        };
        const existing = this.docOf.get(row.uri);
        let old: number[] = [];
        if (existing !== undefined) {
          old = heldCodes(existing);
          updateDoc.run(row.boost, row.text_codes, row.vals, existing);
          row.id = existing;
        } else {
          row.id = Number(insertDoc.run(row.uri, row.boost, row.text_codes, row.vals).lastInsertRowid);
        }
        putBody.run(row.id, pack(doc.body));
        writeTexts(row.id, old, texts);
        seq = Number(changed.run(row.id).lastInsertRowid);
        this.replace(row.id, row.uri, row.boost, row.text_codes, vals);
      }
      if (seq - Number(this.meta('changes_from') ?? 0) > 2 * CHANGES_KEPT) {
        this.stmt('DELETE FROM search_changes WHERE seq <= ?').run(seq - CHANGES_KEPT);
        this.setMeta('changes_from', String(seq - CHANGES_KEPT + 1));
      }
      if (this.usedUnsaved) {
        this.setMeta('value_fields_used', JSON.stringify([...this.columns.keys()]));
        this.usedUnsaved = false;
      }
      this.setMeta('checkpoint', String(state.checkpoint));
      if (state.storeId) this.setMeta('store_id', state.storeId);
      if (typeof state.rebuiltTo === 'number') this.setMeta('rebuilt_to', String(state.rebuiltTo));
      else if (state.rebuiltTo === null) this.stmt("DELETE FROM search_meta WHERE key = 'rebuilt_to'").run();
      return seq;
    });
    try {
      this.seenSeq = write.immediate();
    } catch (err) {
      // Memory was changed with the rolled-back rows: read it again from the file.
      this.loadAll();
      throw err;
    }
  }

  async clear(storeId: string): Promise<void> {
    const used = this.usedFields();
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM search_docs; DELETE FROM search_bodies; DELETE FROM search_meta; DELETE FROM search_changes;`);
      // Made anew: a rebuild gives a column to each field the catalogue knows now.
      this.createText();
      this.setMeta('store_id', storeId);
      this.setMeta('epoch', randomUUID());
      this.setMeta('value_fields_used', JSON.stringify(used));
    })();
    this.loadAll();
  }

  async count(): Promise<number> {
    this.sync();
    return this.docOf.size;
  }

  async dump(): Promise<Array<{ uri: string; json: string }>> {
    const rows = this.stmt('SELECT d.uri, b.body FROM search_docs d JOIN search_bodies b ON b.id = d.id ORDER BY d.uri').all() as Array<{ uri: string; body: Buffer }>;
    return rows.map((r) => ({ uri: r.uri, json: String(documentOf(unpack(r.body)).json) }));
  }

  async uris(): Promise<string[]> {
    this.sync();
    return [...this.docOf.keys()];
  }

  async close(): Promise<void> {
    this.db.close();
    await this.checkpointer?.stop();
  }

  // -------------------------------------------------------------------------------------------
  // matching

  private none(): DocSet {
    return new DocSet(this.bound);
  }

  private all(): DocSet {
    return this.live.clone();
  }

  /** Documents whose text field matches an FTS5 query. */
  private textDocs(field: string, match: string): DocSet {
    const out = this.none();
    const code = this.fieldCodes.get(field);
    if (code === undefined) return out;
    // The field's column only: a common word is in several fields of every document.
    const rowids = (code <= this.textColumns
      ? this.stmt('SELECT rowid FROM search_text WHERE search_text MATCH ?').pluck().all(`${textColumn(code)} : (${match})`)
      : this.stmt(`SELECT rowid FROM search_text WHERE search_text MATCH ? AND rowid % ${SLOTS} = ?`).pluck().all(`other : (${match})`, code)) as number[];
    for (const rowid of rowids) out.add(Math.floor(rowid / SLOTS));
    return out;
  }

  /** Stored documents by id (their text: documentOf reads it), read in chunks of bound parameters. */
  private bodies(ids: ArrayLike<number>): Map<number, string> {
    const out = new Map<number, string>();
    const all = Array.from(ids);
    for (let i = 0; i < all.length; i += 500) {
      const part = all.slice(i, i + 500);
      const rows = this.stmt(`SELECT id, body FROM search_bodies WHERE id IN (${part.map(() => '?').join(',')})`).all(...part) as Array<{ id: number; body: Buffer }>;
      for (const row of rows) out.set(row.id, unpack(row.body));
    }
    return out;
  }

  /** Documents (among `within`) whose stored JSON, lower-cased, matches a pattern: infix wildcards FTS5 cannot answer. */
  private bodyDocs(pattern: RegExp, within: DocSet): DocSet {
    const out = this.none();
    for (const [id, body] of this.bodies(within.toArray())) if (pattern.test(foldText(body))) out.add(id);
    return out;
  }

  /** Which distinct values of a field a whole-value condition accepts. */
  private marks(column: Column, q: Extract<Query, { kind: 'term' | 'range' }>): Uint8Array {
    const kind = this.fields.kind(q.field);
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

  private valueDocs(q: Extract<Query, { kind: 'term' | 'range' }>): DocSet {
    const field = q.field === 'id' ? 'uri' : q.field;
    if (field === 'uri' && q.kind === 'term' && !q.wildcard) {
      const out = this.none();
      const doc = this.docOf.get(q.value);
      if (doc !== undefined) out.add(doc);
      return out;
    }
    const column = this.valueColumn(field);
    let docs = column ? column.docsWith(this.marks(column, { ...q, field }), this.bound) : this.none();
    if (q.kind === 'term' && !q.wildcard && this.fields.kind(field) === 'collated') {
      const phrase = ftsPhrase(q.value);
      if (phrase !== undefined) docs = docs.or(this.textDocs(field, phrase));
    }
    return docs;
  }

  /**
   * Sets of single conditions (a word, a term, a range), as Solr's filter cache: a repository's
   * scope and `suppressed:false` are in every search. Emptied by any change to the index.
   */
  private readonly cached = new Map<string, DocSet>();

  private remembered(q: Query, compute: () => DocSet): DocSet {
    const key = JSON.stringify(q);
    let set = this.cached.get(key);
    if (set) {
      // Most recently used last.
      this.cached.delete(key);
    } else {
      set = compute();
      if (this.cached.size >= FILTER_CACHE) this.cached.delete(this.cached.keys().next().value!);
    }
    this.cached.set(key, set);
    return set.clone();
  }

  private evaluate(q: Query): DocSet {
    switch (q.kind) {
      case 'all':
        return this.all();
      case 'none':
        return this.none();
      case 'not':
        return this.all().andNot(this.evaluate(q.item));
      case 'or': {
        const out = this.none();
        for (const item of q.items) out.or(this.evaluate(item));
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
          const match = this.remembered({ kind: 'text', field, value: phrases.join(' AND ') }, () => this.textDocs(field, phrases.join(' AND ')));
          out = out ? out.and(match) : match;
        }
        for (const item of rest) out = out ? out.and(this.evaluate(item)) : this.evaluate(item);
        out ??= this.all();
        // Stored documents are read only for the documents every other condition let through.
        for (const item of patterns) out = this.bodyDocs(this.bodyPattern(item as Extract<Query, { kind: 'text' }>), out);
        return out;
      }
      case 'text': {
        if (q.wildcard === 'pattern') return this.bodyDocs(this.bodyPattern(q), this.all());
        const phrase = ftsPhrase(q.value);
        // Nothing searchable (only punctuation): like an analysed-away term, it matches nothing.
        if (phrase === undefined) return this.none();
        return this.remembered(q, () => this.textDocs(q.field, phrase + (q.wildcard === 'prefix' ? '*' : '')));
      }
      case 'exists': {
        if (q.field === 'id' || q.field === 'uri') return this.all();
        if (this.fields.kind(q.field) === 'text') {
          const out = this.none();
          const code = this.fieldCodes.get(q.field);
          if (code === undefined) return out;
          this.textCodesOf.forEach((codes, doc) => {
            if (codes && `,${codes},`.includes(`,${code},`)) out.add(doc);
          });
          return out;
        }
        return this.valueColumn(q.field)?.docsWithAny(this.bound) ?? this.none();
      }
      case 'term':
      case 'range':
        return this.remembered(q, () => this.valueDocs(q));
    }
  }

  private bodyPattern(q: Extract<Query, { kind: 'text' }>): RegExp {
    return wildcardPattern(foldText(q.value), false);
  }

  // -------------------------------------------------------------------------------------------
  // ordering and counting

  /** One sort key's value per hit (null: missing, sorted last either way). */
  private sortValues(key: SortKey, hits: Int32Array): Array<string | number | null> {
    if (key.field === 'score') {
      const boosts = new Array<number>(hits.length);
      for (let i = 0; i < hits.length; i++) boosts[i] = this.boostOf[hits[i]];
      return boosts;
    }
    const kind = this.fields.kind(key.field);
    if (kind === 'text') {
      // Text fields are not doc values: sort on the stored value (Solr sorts by a token).
      const out = new Map<number, string | null>();
      for (const [id, body] of this.bodies(hits)) {
        const v = documentOf(body)[key.field];
        out.set(id, v === undefined ? null : (typeof v === 'object' ? JSON.stringify(v) : String(v)).toLowerCase());
      }
      return Array.from(hits, (doc) => out.get(doc) ?? null);
    }
    const column = this.valueColumn(key.field === 'id' ? 'uri' : key.field);
    if (!column) return Array.from(hits, () => null);
    const numeric = kind === 'int' || kind === 'date';
    const out = new Array<string | number | null>(hits.length);
    for (let i = 0; i < hits.length; i++) out[i] = column.sortValue(hits[i], key.desc, numeric);
    return out;
  }

  /** Sorts by score (boost), descending and ascending, kept until the next change. */
  private scoreOrders?: { desc?: SortOrder; asc?: SortOrder };

  /** One sort key's order over document ids below the bound. */
  private sortOrder(key: SortKey): SortOrder {
    if (key.field === 'score') {
      const orders = (this.scoreOrders ??= {});
      const known = key.desc ? orders.desc : orders.asc;
      if (known?.ranks.length === this.bound) return known;
      const values = new Float64Array(this.bound);
      for (let doc = 0; doc < this.bound; doc++) values[doc] = key.desc ? -this.boostOf[doc] : this.boostOf[doc];
      const order = SortOrder.of(values);
      if (key.desc) orders.desc = order;
      else orders.asc = order;
      return order;
    }
    const kind = this.fields.kind(key.field);
    const column = this.valueColumn(key.field === 'id' ? 'uri' : key.field);
    if (!column) return new SortOrder(new Int32Array(this.bound), 0);
    return column.sortOrder(key.desc, kind === 'int' || kind === 'date', this.bound);
  }

  /**
   * The hits of one page, in the requested order (then index order), from each sort key's order
   * over all documents, kept between searches: on one key and a match of an eighth of the ids or
   * more, a walk along that order to the page's last hit; otherwise one pass over the hits.
   */
  private page(set: DocSet, total: number, hitsOf: () => Int32Array, sort: SortKey[], offset: number, limit: number): number[] {
    const wanted = Math.min(total, offset + limit);
    if (!sort.length) return Array.from(hitsOf().subarray(offset, wanted));
    if (sort.some((key) => key.field !== 'score' && this.fields.kind(key.field) === 'text')) return this.pageByValues(hitsOf(), sort, offset, wanted);
    const orders = sort.map((key) => this.sortOrder(key));
    if (orders.length === 1 && total * 8 >= this.bound) return orders[0].firstIn(set, wanted).slice(offset);
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
  private pageByValues(hits: Int32Array, sort: SortKey[], offset: number, wanted: number): number[] {
    const values = sort.map((key) => this.sortValues(key, hits));
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

  private facet(field: string, r: SearchRequest, set: DocSet, total: number, hitsOf: () => Int32Array): Array<[string, number]> {
    if (this.fields.kind(field) === 'text') return [];
    const column = this.valueColumn(field === 'id' ? 'uri' : field);
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

  async search(r: SearchRequest): Promise<SearchResult> {
    this.sync();
    // Columns this search needs and no search used before, built in one pass.
    this.valueColumns(valueFieldsOf(r, this.fields));
    const set = this.evaluate(and([r.query, ...r.filters])).and(this.live);
    const total = set.count();
    // The hits as a list only when a step needs one (a dense match's page and facets do not).
    let hits: Int32Array | undefined;
    const hitsOf = () => (hits ??= set.toArray());
    const ids = r.limit > 0 && total > r.offset ? this.page(set, total, hitsOf, r.sort, r.offset, r.limit) : [];
    const bodies = this.bodies(ids);
    const docs = ids.map((id) => documentOf(bodies.get(id)!));
    const facets: SearchResult['facets'] = {};
    for (const field of r.facets) facets[field] = this.facet(field, r, set, total, hitsOf);
    return { total, docs, facets };
  }
}

/** The exact fields a search filters, sorts or facets on (those it may need doc values of). */
function valueFieldsOf(r: SearchRequest, fields: FieldCatalogue): Set<string> {
  const out = new Set<string>();
  const add = (field: string) => {
    if (field !== 'score' && fields.kind(field) !== 'text') out.add(field === 'id' ? 'uri' : field);
  };
  const walk = (q: Query): void => {
    if (q.kind === 'and' || q.kind === 'or') q.items.forEach(walk);
    else if (q.kind === 'not') walk(q.item);
    // A uri is found through the documents' own uris, without the column, unless by a pattern or range.
    else if (q.kind === 'exists' || (q.kind === 'term' && !q.wildcard)) {
      if (q.field !== 'id' && q.field !== 'uri') add(q.field);
    } else if (q.kind === 'term' || q.kind === 'range') add(q.field);
  };
  [r.query, ...r.filters].forEach(walk);
  r.sort.forEach((key) => add(key.field));
  r.facets.forEach(add);
  return out;
}
