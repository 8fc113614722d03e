/**
 * The embedded index's file (one SQLite file): FTS5 for tokenised fields, each document's
 * exact-field values in one compact row, the stored documents compressed, and a short log of
 * which documents changed (search_changes, followed by the other processes that open the file).
 * Here: its tables, opening it, and its statements kept prepared.
 */
import type { Checkpointer } from '../../store/checkpointer';
import { openSqliteFile, type SqliteFile, type SqliteStatement } from '../../store/sqlite-file';
import type { FieldCatalogue } from '../fields';

/**
 * A document's words are one FTS row, rowid doc * SLOTS, with a column per field the catalogue knew
 * when the table was made (codes 1 to its column count), and a row per other field, rowid doc *
 * SLOTS + that field's code, in the column `other`; codes stay below SLOTS. One row per field
 * (13.5 per accession) cost FTS5 1.6 times as much per document as one row with a column each
 * (20,000 accessions: 24,000-25,000 against 40,000-44,000 documents/s), its per-row work being
 * most of it; each column a document leaves empty costs ~0.13 µs.
 */
export const SLOTS = 256;

/** The words' table's column of a field code at most its column count. */
export function textColumn(code: number): string {
  return `f${code}`;
}

/** The words' table's columns for field codes 1 to `count`. */
export function textColumns(count: number): string[] {
  return Array.from({ length: count }, (_, i) => textColumn(i + 1));
}

/** Bumped when the index's tables change shape. */
const SCHEMA_VERSION = 8;

/** Segments of one level FTS5 lets pile up before it merges them (its default is 4; see createText). */
export const FTS_AUTOMERGE = 8;

/** A document's row in search_docs. */
export interface DocRow {
  id: number;
  uri: string;
  boost: number;
  text_codes: string;
  vals: string;
}

/** A document's exact-field values as stored: [field code, value or values, field code, ...] (JSON). */
export type PackedValues = Array<number | string | string[]>;

export class IndexFile {
  readonly db: SqliteFile;
  private readonly checkpointer?: Checkpointer;
  private readonly stmts = new Map<string, SqliteStatement>();

  constructor(file: string, private readonly fields: FieldCatalogue) {
    // Checkpoints (copying the WAL into the file, and their fsyncs) in a thread of their own, as
    // the store's, not inside this thread's commits: a rebuild waited on the disk there (100k on
    // MariaDB: 18.4-27.3 s, mean 23.1, against 19.3-24.3 s, mean 21.6, over seven runs each;
    // with no fsync at all 22-24 s against 27-30 s).
    ({ db: this.db, checkpointer: this.checkpointer } = openSqliteFile(file));
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
  }

  /** The words' table, with a column for each word field the catalogue knows now (see SLOTS). */
  createText(): void {
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

  stmt(sql: string): SqliteStatement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  meta(key: string): string | undefined {
    return (this.stmt('SELECT value FROM search_meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmt('INSERT INTO search_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  async close(): Promise<void> {
    this.db.close();
    await this.checkpointer?.stop();
  }
}
