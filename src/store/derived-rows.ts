import type { Queryable } from './dialect';
import { isUniqueViolation } from './store-errors';
import { Statements } from './statements';
import { type ExplainClash, type HeldKey, heldChanges, heldKeys, heldRows, noteChanges } from './transaction-memo';
import type { KeyRow, LookupRow, RefRow } from './record-rows';
import { pendingWriteOf } from './pending';
import { KEYED_TABLES } from './migrations/primary-keys';

/** Derived rows of a table a transaction holds back at most (DerivedRows.writeOrHold, setUniqueKeys). */
const HELD_ROWS = 1000;

/**
 * Tables whose primary key is the whole row (migration 023): a row derived twice (a record that
 * lists the same link twice) is one row, and its second writing is skipped, not refused.
 */
const WHOLE_ROW_KEYED = new Set(KEYED_TABLES.map((k) => k.table));

/** Change-log entries a transaction holds back (heldChanges) before it writes them, where it may write them early (Statements.oneWriter). */
const CHANGES_HELD_AT_MOST = 1000;

/**
 * The rows the store derives from a record (unique keys, find_by_id lookup keys, links) and its
 * change-log entries: written with the record, or held back by the transaction until it commits
 * or reads such rows (holdDerivedRows).
 */
export class DerivedRows {
  private statements: Promise<Statements> | undefined;

  constructor(readonly db: Queryable) {}

  /** The write path's fixed statements (statements.ts); the rest goes through Knex. */
  protected st(): Promise<Statements> {
    return (this.statements ??= Statements.of(this.db));
  }

  /**
   * Replaces the record's unique keys; a key another record holds is refused with what `explain`
   * makes of the first clash. A fresh record's keys may be held back (holdDerivedRows): then the
   * clash is found when they are written (writeHeldKeys).
   * `fresh` (here and below): the record was inserted in this transaction, so there is nothing to replace.
   */
  async setUniqueKeys(rid: number, type: string, keys: KeyRow[], fresh: boolean, explain: ExplainClash): Promise<void> {
    const rows = keys.map((key) => ({ type, rule: key.rule, scope: key.scope, key_hash: key.hash, rid }));
    const held = fresh ? heldKeys(this.db, type) : undefined;
    if (held) {
      for (const row of rows) held.push({ row, explain });
      if (held.length >= HELD_ROWS) await this.writeHeldKeys();
      return;
    }
    const st = await this.st();
    if (!fresh) {
      await this.writeHeldRows();
      await st.defer('DELETE FROM `unique_keys` WHERE `rid` = ?', [rid]);
    }
    // Sent with the transaction's next statement or its COMMIT (Statements.defer): a clash is
    // explained when the batch that carried the key fails on it (its hash is in MySQL's message).
    for (const row of rows) {
      await st.deferInsertMany('unique_keys', [row], async (err) => {
        if (!isUniqueViolation(err) || !clashIsOf(err, row)) return undefined;
        const [holder] = await this.keyHolders([row]);
        return explain(row.rule, holder ? Number(holder.rid) : null);
      });
    }
  }

  /** The unique_keys rows that hold the same keys as `rows`. */
  private async keyHolders(rows: HeldKey['row'][]): Promise<Array<HeldKey['row']>> {
    const found: Array<HeldKey['row']> = [];
    for (let i = 0; i < rows.length; i += 100) {
      const part = rows.slice(i, i + 100);
      found.push(...await this.db('unique_keys').whereIn('key_hash', [...new Set(part.map((r) => r.key_hash))])
        .select('type', 'rule', 'scope', 'key_hash', 'rid'));
    }
    const wanted = new Set(rows.map(keyOf));
    return found.filter((r) => wanted.has(keyOf(r)));
  }

  /**
   * Writes the unique keys the transaction held back. A key taken (by a record stored before, or
   * by an earlier record of the transaction) is refused as setUniqueKeys refuses it, naming the
   * first record in the order written whose key clashed: the statement that failed wrote nothing
   * (both stores undo just the statement), and the transaction is refused as a whole.
   */
  private async writeHeldKeys(): Promise<void> {
    const held = heldKeys(this.db);
    if (!held?.length) return;
    const keys = held.splice(0);
    try {
      await (await this.st()).insertMany('unique_keys', keys.map((k) => k.row));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Statements before the failed one were written: a row holding a key of its own record is not a clash.
      const holders = new Map((await this.keyHolders(keys.map((k) => k.row))).map((r) => [keyOf(r), Number(r.rid)]));
      for (const { row, explain } of keys) {
        const holder = holders.get(keyOf(row));
        if (holder !== undefined && holder !== row.rid) throw await explain(row.rule, holder);
        holders.set(keyOf(row), row.rid);
      }
      // Taken by a transaction not visible here (MySQL, committed meanwhile): lost a race, so it runs again.
      throw err;
    }
  }

  async setLookupKeys(rid: number, type: string, repoId: number, keys: LookupRow[], fresh = false): Promise<void> {
    if (!fresh) {
      await this.writeHeldRows();
      await (await this.st()).defer('DELETE FROM `lookup_keys` WHERE `rid` = ?', [rid]);
    }
    await this.writeOrHold('lookup_keys', keys.map((k) => ({ type, param: k.param, repo_id: repoId, value_hash: k.hash, rid })));
  }

  async setRefs(rid: number, refs: RefRow[], fresh = false): Promise<void> {
    if (!fresh) {
      await this.writeHeldRows();
      await (await this.st()).defer('DELETE FROM `record_refs` WHERE `from_rid` = ?', [rid]);
    }
    await this.writeOrHold('record_refs', refs.map((r) => ({ from_rid: rid, property: r.property, to_uri: r.uri })));
  }

  /** Versions of records replaced or deleted (history.ts), held back with the derived rows where the transaction holds them. */
  protected async keepVersions(rows: object[]): Promise<void> {
    await this.writeOrHold('record_history', rows);
  }

  /**
   * Rows of a table the transaction may hold back (holdDerivedRows): held there, else written now.
   * A thousand held rows of a table are written at once (ten statements): an import of 20,000
   * components holding all of them until its commit kept ~14 MB more at its peak.
   */
  private async writeOrHold(table: string, rows: object[]): Promise<void> {
    if (!rows.length) return;
    const held = heldRows(this.db);
    if (!held) {
      await (await this.st()).deferInsertMany(table, rows, undefined, { skipDuplicates: WHOLE_ROW_KEYED.has(table) });
      return;
    }
    const list = held.get(table) ?? [];
    list.push(...rows);
    if (list.length < HELD_ROWS) {
      held.set(table, list);
      return;
    }
    held.delete(table);
    await (await this.st()).insertMany(table, list, { skipDuplicates: WHOLE_ROW_KEYED.has(table) });
  }

  /**
   * Writes the derived rows the transaction held back: before it commits, and before anything in it
   * reads or deletes such rows (links of a record being deleted, a find_by_id match in an import).
   */
  async writeHeldRows(): Promise<void> {
    await this.writeHeldKeys();
    const held = heldRows(this.db);
    if (!held?.size) return;
    const st = await this.st();
    for (const [table, rows] of held) {
      held.delete(table);
      await st.insertMany(table, rows, { skipDuplicates: WHOLE_ROW_KEYED.has(table) });
    }
  }

  /** The one way into the change log the indexer follows: written in the same transaction as the records. */
  async appendChange(type: string, uri: string, op: 'upsert' | 'delete', atMs: number): Promise<void> {
    await this.appendChanges([{ type, uri }], op, atMs);
  }

  async appendChanges(records: Array<{ type: string; uri: string }>, op: 'upsert' | 'delete', atMs: number): Promise<void> {
    // What these changes touch is followed from here (touches.ts): no write path can miss it.
    noteChanges(this.db, records, op);
    // A pending record's entry waits for its job's publishing (pending.ts), which writes it.
    const pending = pendingWriteOf(this.db);
    const rows = (pending ? records.filter((r) => !pending.uris.has(r.uri)) : records).map((r) => ({ type: r.type, uri: r.uri, op, at_ms: atMs }));
    const held = heldChanges(this.db);
    if (!held) {
      await (await this.st()).deferInsertMany('change_log', rows);
      return;
    }
    held.push(...rows);
    // A transaction that writes thousands (an import) would hold an entry per record to its end: on
    // SQLite they go in as they fill a few statements (nothing can pass their ids, see oneWriter).
    if (held.length < CHANGES_HELD_AT_MOST) return;
    const st = await this.st();
    if (st.oneWriter) await st.insertMany('change_log', held.splice(0));
  }
}

/**
 * Whether a unique violation is that of the key `row` (SQLite: the statement that failed held only
 * that key; MySQL names the duplicate entry, its columns joined by '-' and cut at 64 characters).
 */
function clashIsOf(err: unknown, row: HeldKey['row']): boolean {
  const e = err as { errno?: number; message?: string };
  if (e.errno !== 1062) return true;
  const entry = /Duplicate entry '(.*?)(?:\.\.\.)?' for key/s.exec(e.message ?? '')?.[1];
  return entry !== undefined && `${row.type}-${row.rule}-${row.scope}-${row.key_hash}`.startsWith(entry);
}

/** What the unique index of unique_keys compares. */
function keyOf(row: HeldKey['row']): string {
  return `${row.type}\u0000${row.rule}\u0000${row.scope}\u0000${row.key_hash}`;
}
