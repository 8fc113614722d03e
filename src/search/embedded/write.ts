/**
 * Writing the embedded index: a batch of documents in one immediate transaction, each change
 * noted in the file's change log (search_changes) for the other processes that hold the index,
 * and memory kept as the file (read again from it when a write fails).
 */
import { randomUUID } from 'node:crypto';
import type { SqliteStatement } from '../../store/sqlite-file';
import type { IndexState } from '../port';
import { pack, type PreparedDoc } from './bodies';
import { type DocRow, type PackedValues, SLOTS, textColumns } from './file';
import type { IndexMemory } from './memory';

/** The change log keeps at least this many entries for processes catching up; older ones reload everything. */
const CHANGES_KEPT = 200_000;

/**
 * Writes documents already prepared (prepareDocument), by this thread or another, and drops the
 * documents of `deletes`; `boosts`: each type's rank when a search has no sort.
 */
export function writeDocuments(m: IndexMemory, boosts: Record<string, number>, upserts: PreparedDoc[], deletes: string[], state: IndexState): void {
  const insertDoc = m.file.stmt('INSERT INTO search_docs (uri, boost, text_codes, vals) VALUES (?, ?, ?, ?)');
  const updateDoc = m.file.stmt('UPDATE search_docs SET boost = ?, text_codes = ?, vals = ? WHERE id = ?');
  const putBody = m.file.stmt('INSERT INTO search_bodies (id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body');
  const dropBody = m.file.stmt('DELETE FROM search_bodies WHERE id = ?');
  const dropDoc = m.file.stmt('DELETE FROM search_docs WHERE id = ?');
  // One row at a time: FTS5 deletes by rowid range scan the whole table.
  const dropText = m.file.stmt('DELETE FROM search_text WHERE rowid = ?');
  // Known once this process has caught up (sync, in the transaction): another may have made the table anew.
  let columns = 0;
  let addRow: SqliteStatement;
  const addText = m.file.stmt('INSERT INTO search_text (rowid, other) VALUES (?, ?)');
  const changed = m.file.stmt('INSERT INTO search_changes (doc) VALUES (?)');

  const heldCodes = (id: number) => (m.textCodesOf[id] ?? '').split(',').filter(Boolean).map(Number);
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
  const write = m.file.db.transaction(() => {
    // Immediate: no other process writes between catching up and this batch.
    m.sync();
    columns = m.textColumns;
    addRow = m.file.stmt(`INSERT INTO search_text (rowid${textColumns(columns).map((c) => `, ${c}`).join('')}) VALUES (?${', ?'.repeat(columns)})`);
    if (state.rebuiltFrom !== undefined && m.file.meta('rebuilt_to') !== String(state.rebuiltFrom)) {
      throw new Error(`a rebuild page after row ${state.rebuiltFrom} came before that row was written`);
    }
    let seq = m.seenSeq;
    for (const uri of deletes) {
      const id = m.docOf.get(uri);
      if (id === undefined) continue;
      writeTexts(id, heldCodes(id), []);
      dropDoc.run(id);
      dropBody.run(id);
      seq = Number(changed.run(id).lastInsertRowid);
      m.forget(id);
    }
    for (const doc of upserts) {
      const texts: Array<[number, string]> = [];
      for (let i = 0; i < doc.texts.length; i += 2) texts.push([m.codeFor(doc.texts[i]), doc.texts[i + 1]]);
      const vals: PackedValues = [];
      for (let i = 0; i < doc.values.length; i += 2) vals.push(m.valueCodeFor(doc.values[i] as string), doc.values[i + 1]);
      const row: DocRow = {
        id: 0, uri: doc.uri, boost: boosts[doc.type] ?? 0,
        text_codes: texts.map(([code]) => code).join(','), vals: JSON.stringify(vals),
      };
      const existing = m.docOf.get(row.uri);
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
      m.replace(row.id, row.uri, row.boost, row.text_codes, vals);
    }
    if (seq - Number(m.file.meta('changes_from') ?? 0) > 2 * CHANGES_KEPT) {
      m.file.stmt('DELETE FROM search_changes WHERE seq <= ?').run(seq - CHANGES_KEPT);
      m.file.setMeta('changes_from', String(seq - CHANGES_KEPT + 1));
    }
    if (m.usedUnsaved) {
      m.file.setMeta('value_fields_used', JSON.stringify([...m.columns.keys()]));
      m.usedUnsaved = false;
    }
    m.file.setMeta('checkpoint', String(state.checkpoint));
    if (state.storeId) m.file.setMeta('store_id', state.storeId);
    if (typeof state.rebuiltTo === 'number') m.file.setMeta('rebuilt_to', String(state.rebuiltTo));
    else if (state.rebuiltTo === null) m.file.stmt("DELETE FROM search_meta WHERE key = 'rebuilt_to'").run();
    return seq;
  });
  try {
    m.seenSeq = write.immediate();
  } catch (err) {
    // Memory was changed with the rolled-back rows: read it again from the file.
    m.loadAll();
    throw err;
  }
}

/** Empties the index, which is to be built anew from the store `storeId`. */
export function clearIndex(m: IndexMemory, storeId: string): void {
  const used = m.usedFields();
  m.file.db.transaction(() => {
    m.file.db.exec(`DELETE FROM search_docs; DELETE FROM search_bodies; DELETE FROM search_meta; DELETE FROM search_changes;`);
    // Made anew: a rebuild gives a column to each field the catalogue knows now.
    m.file.createText();
    m.file.setMeta('store_id', storeId);
    m.file.setMeta('epoch', randomUUID());
    m.file.setMeta('value_fields_used', JSON.stringify(used));
  })();
  m.loadAll();
}
