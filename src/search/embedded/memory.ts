/**
 * What one process holds of the embedded index in memory, and how far it has followed the file:
 * each document's uri, boost and text fields, the live documents as a bitmap, the doc values of
 * the exact fields searches use (./doc-values.ts), so filters, facets and sorts are passes over
 * typed arrays, not B-tree look-ups per match. Loaded at open; other processes' commits are
 * followed through `PRAGMA data_version` and the file's change log (sync).
 */
import type { FieldCatalogue } from '../fields';
import { unpack } from './bodies';
import { DocSet, type SortOrder } from './doc-sets';
import { Column } from './doc-values';
import { type DocRow, IndexFile, type PackedValues, SLOTS } from './file';
import { codecFor } from './values';

export class IndexMemory {
  readonly file: IndexFile;
  readonly fieldCodes = new Map<string, number>();
  /** Codes 1 to this are columns of a document's row in search_text; higher codes have rows of their own (SLOTS). */
  textColumns = 0;
  /** Exact fields by code (search_value_fields), and codes by field. */
  private readonly valueFields: string[] = [];
  private readonly valueCodes = new Map<string, number>();
  /**
   * Doc values of the fields a search has used since the index was opened, built from the file on
   * first use (valueColumns): most of a catalogue's exact fields (identifiers, ref_ids, enumeration
   * copies) are never filtered, sorted or faceted on, and every column costs memory per document.
   */
  readonly columns = new Map<string, Column>();
  /**
   * A column was built since this process last wrote: the fields searches use are kept in the
   * file (meta `value_fields_used`) with the next write, so the next opener builds their columns
   * at open rather than in its first searches.
   */
  usedUnsaved = false;
  /** Each distinct list of text field codes once (a few dozen lists serve every document). */
  private readonly textCodeLists = new Map<string, string>();
  readonly docOf = new Map<string, number>();
  readonly uriOf: Array<string | undefined> = [];
  readonly textCodesOf: Array<string | undefined> = [];
  boostOf: Int32Array = new Int32Array(0);
  live = new DocSet(0);
  bound = 1;
  epoch = '';
  seenSeq = 0;
  dataVersion = -1;
  /**
   * Sets of single conditions (a word, a term, a range), as Solr's filter cache: a repository's
   * scope and `suppressed:false` are in every search. Emptied by any change to the index.
   */
  readonly cached = new Map<string, DocSet>();
  /** Sorts by score (boost), descending and ascending, kept until the next change. */
  scoreOrders?: { desc?: SortOrder; asc?: SortOrder };

  constructor(file: string, readonly fields: FieldCatalogue) {
    this.file = new IndexFile(file, fields);
    this.loadAll();
  }

  none(): DocSet {
    return new DocSet(this.bound);
  }

  all(): DocSet {
    return this.live.clone();
  }

  /**
   * The columns of these fields, those not yet held built from the file in one pass over its
   * documents. A field no document was ever given has no column. Called between writes, when
   * memory holds what the file holds (a search syncs first).
   */
  valueColumns(fields: Iterable<string>): void {
    const missing = new Map<number, Column>();
    for (const field of fields) {
      if (this.columns.has(field)) continue;
      const code = this.knownValueCode(field);
      if (code !== undefined) missing.set(code, new Column(codecFor(this.fields.kind(field))));
    }
    if (!missing.size) return;
    const rows = this.file.stmt('SELECT id, vals FROM search_docs').raw(true);
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
  usedFields(): string[] {
    const used = new Set(this.columns.keys());
    try {
      for (const field of JSON.parse(this.file.meta('value_fields_used') ?? '[]') as string[]) used.add(field);
    } catch {
      // Only a hint: a damaged value builds nothing ahead.
    }
    return [...used];
  }

  /** A held column, built first when a search has not used it yet (undefined: no document has the field). */
  valueColumn(field: string): Column | undefined {
    if (!this.columns.has(field)) this.valueColumns([field]);
    return this.columns.get(field);
  }

  /** The field's code in the file (undefined: no document was ever given the field). */
  knownValueCode(field: string): number | undefined {
    if (!this.valueCodes.has(field)) {
      const row = this.file.stmt('SELECT code FROM search_value_fields WHERE field = ?').get(field) as { code: number } | undefined;
      if (!row) return undefined;
      this.valueCodes.set(field, row.code);
      this.valueFields[row.code] = field;
    }
    return this.valueCodes.get(field);
  }

  setLive(doc: number, on: boolean): void {
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

  forget(doc: number): void {
    this.cached.clear();
    const uri = this.uriOf[doc];
    if (uri === undefined) return;
    this.docOf.delete(uri);
    this.uriOf[doc] = undefined;
    this.textCodesOf[doc] = undefined;
    for (const c of this.columns.values()) c.remove(doc);
    this.setLive(doc, false);
  }

  remember(row: DocRow): void {
    this.replace(row.id, row.uri, row.boost, row.text_codes, JSON.parse(row.vals) as PackedValues);
  }

  /**
   * Puts a document's new state into memory. A document held under the same uri keeps the values
   * that did not change, and with them what the columns keep between searches (sort orders).
   */
  replace(id: number, uri: string, boost: number, textCodes: string, vals: PackedValues): void {
    if (this.uriOf[id] !== uri) this.forget(id);
    else {
      const present = new Set<string>();
      for (let i = 0; i < vals.length; i += 2) present.add(this.valueField(vals[i] as number));
      for (const [field, column] of this.columns) if (!present.has(field)) column.remove(id);
    }
    this.place(id, uri, boost, textCodes, vals);
  }

  /** Puts a document this process does not hold (or holds under the same uri) into memory. */
  place(id: number, uri: string, boost: number, textCodes: string, vals: PackedValues): void {
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

  loadAll(): void {
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
    this.file.db.transaction(() => {
      for (const row of this.file.stmt('SELECT code, field FROM search_text_fields').all() as Array<{ code: number; field: string }>) {
        this.fieldCodes.set(row.field, row.code);
      }
      this.textColumns = (this.file.db.prepare(`SELECT COUNT(*) FROM pragma_table_info('search_text')`).pluck().get() as number) - 1;
      // Rows as arrays: no object per row for 100,000s of documents.
      const rows = this.file.db.prepare('SELECT id, uri, boost, text_codes FROM search_docs').raw(true);
      for (const [id, uri, boost, codes] of rows.iterate() as IterableIterator<[number, string, number, string]>) {
        this.place(id, uri, boost, codes, []);
      }
      this.valueColumns(used);
      this.epoch = this.file.meta('epoch') ?? '';
      this.seenSeq = Number((this.file.stmt('SELECT MAX(seq) AS m FROM search_changes').get() as { m: number | null }).m ?? 0);
    })();
    this.dataVersion = Number(this.file.db.pragma('data_version', { simple: true }));
  }

  /** Follows what another process committed to the file since this one last looked. */
  sync(): void {
    const version = Number(this.file.db.pragma('data_version', { simple: true }));
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    const epoch = this.file.meta('epoch') ?? '';
    const from = Number(this.file.meta('changes_from') ?? 0);
    if (epoch !== this.epoch || this.seenSeq + 1 < from) {
      this.loadAll();
      return;
    }
    const changes = this.file.stmt('SELECT seq, doc FROM search_changes WHERE seq > ? ORDER BY seq').all(this.seenSeq) as Array<{ seq: number; doc: number }>;
    if (!changes.length) return;
    const find = this.file.stmt('SELECT id, uri, boost, text_codes, vals FROM search_docs WHERE id = ?');
    for (const doc of new Set(changes.map((c) => c.doc))) {
      const row = find.get(doc) as DocRow | undefined;
      if (row) this.remember(row);
      else this.forget(doc);
    }
    for (const row of this.file.stmt('SELECT code, field FROM search_text_fields').all() as Array<{ code: number; field: string }>) {
      this.fieldCodes.set(row.field, row.code);
    }
    this.seenSeq = changes[changes.length - 1].seq;
  }

  /** The field of a value code; one another process added since this one looked is read from the file. */
  valueField(code: number): string {
    let field = this.valueFields[code];
    if (field === undefined) {
      for (const row of this.file.stmt('SELECT code, field FROM search_value_fields').all() as Array<{ code: number; field: string }>) {
        this.valueFields[row.code] = row.field;
        this.valueCodes.set(row.field, row.code);
      }
      field = this.valueFields[code];
      if (field === undefined) throw new Error(`the search index names an unknown field code ${code}`);
    }
    return field;
  }

  /** The field's code, given it here when the file has none yet. */
  valueCodeFor(field: string): number {
    let code = this.knownValueCode(field);
    if (code === undefined) {
      code = Number(this.file.stmt('INSERT INTO search_value_fields (field) VALUES (?)').run(field).lastInsertRowid);
      this.valueCodes.set(field, code);
      this.valueFields[code] = field;
    }
    return code;
  }

  codeFor(field: string): number {
    let code = this.fieldCodes.get(field);
    if (code === undefined) {
      code = Number((this.file.stmt('SELECT MAX(code) AS m FROM search_text_fields').get() as { m: number | null }).m ?? 0) + 1;
      if (code >= SLOTS) throw new Error(`more than ${SLOTS - 1} text fields in the search index`);
      this.file.stmt('INSERT INTO search_text_fields (code, field) VALUES (?, ?)').run(code, field);
      this.fieldCodes.set(field, code);
    }
    return code;
  }

  /** Stored documents by id (their text: documentOf reads it), read in chunks of bound parameters. */
  bodies(ids: ArrayLike<number>): Map<number, string> {
    const out = new Map<number, string>();
    const all = Array.from(ids);
    for (let i = 0; i < all.length; i += 500) {
      const part = all.slice(i, i + 500);
      const rows = this.file.stmt(`SELECT id, body FROM search_bodies WHERE id IN (${part.map(() => '?').join(',')})`).all(...part) as Array<{ id: number; body: Buffer }>;
      for (const row of rows) out.set(row.id, unpack(row.body));
    }
    return out;
  }
}
