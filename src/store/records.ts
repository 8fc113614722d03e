import type BetterSqlite3 from 'better-sqlite3';
import { Knex } from 'knex';
import type { Database } from './database';
import { onMysql } from './dialect';
import { isUniqueViolation } from './store-errors';
import type { PlaceColumns } from './positions';
import { committedRows, Statements } from './statements';
import { untilNextWrite } from './until-next-write';
import type { Freshness } from './freshness';
import { type ExplainClash, type HeldKey, heldChanges, heldKeys, heldRows, noteDeletion, transactionMemo } from './transaction-memo';

/** One row of the generic records table. `json` is the complete record as served. */
/** A record that links to another: what a rewrite of it needs to find it, and what decides how. */
export interface Linking {
  rid: number;
  type: string;
  id: number;
  repo_id: number;
  uri: string;
}

export interface RecordRow {
  rid?: number;
  type: string;
  id: number;
  repo_id: number;
  uri: string;
  json: string;
  lock_version: number;
  create_time_ms: number;
  system_mtime_ms: number;
  user_mtime_ms: number;
  suppressed?: boolean;
  hidden?: boolean;
}

/** A listed record: its JSON as stored bytes. */
export interface ListedRow {
  rid: number;
  type: string;
  id: number;
  uri: string;
  json: string;
}

export interface KeyRow {
  rule: string;
  scope: string;
  hash: string;
}

export interface LookupRow {
  param: string;
  hash: string;
}

export interface RefRow {
  property: string;
  uri: string;
}

export interface ListQuery {
  type: string;
  repoId?: number;
  modifiedSinceMs?: number;
  sortColumn: string;
  sortDirection: 'asc' | 'desc';
  ids?: number[];
  limit?: number;
  offset?: number;
  includeHidden?: boolean;
  includeSuppressed?: boolean;
}

/** Sortable columns of the generic table, by the name clients use. */
export const SORT_COLUMNS: Record<string, string> = {
  id: 'id',
  create_time: 'create_time_ms',
  system_mtime: 'system_mtime_ms',
  user_mtime: 'user_mtime_ms',
  lock_version: 'lock_version',
};

/** Queries of the generic record store; works on a transaction or on the pool alike. */
/** Reads one record by type and id. */
export interface RecordGetter {
  get(type: string, id: number): Promise<RecordRow | undefined>;
  getByUris(uris: string[]): Promise<RecordRow[]>;
}

/** The last change-log entry (0 when empty): any record written since moves it. */
export async function changeLogHead(knex: Knex | Knex.Transaction): Promise<number> {
  const row = await knex('change_log').max('seq as seq').first();
  return Number(row?.seq ?? 0);
}

const HEAD_SQL = 'SELECT MAX(`seq`) AS `seq` FROM `change_log`';

/** changeLogHead outside a transaction (read per request that uses values kept until the next write). */
export async function committedChangeLogHead(db: Database): Promise<number> {
  const [row] = await committedRows<{ seq: number | string | null }>(db, HEAD_SQL);
  return Number(row?.seq ?? 0);
}

/**
 * The record getter for reads outside a transaction: the SQLite read connection where there is
 * one (a prepared statement, never queued behind a write), else the pool, where rows are kept
 * until the next write (`asOf`: the caller's freshness, until-next-write.ts).
 */
export function recordReads(db: Database, asOf?: Freshness): RecordGetter {
  const conn = db.readConnection?.();
  if (!conn) {
    const reads = turnBatchedReads(db);
    return { get: (type, id) => reads.getAsOf(type, id, asOf), getByUris: reads.getByUris };
  }
  return {
    get: async (type, id) => flagsOf(conn.prepare(`SELECT ${ROW_COLUMNS} FROM records WHERE type = ? AND id = ? LIMIT 1`).get(type, id) as RecordRow | undefined),
    getByUris: async (uris) => {
      const rows: unknown[] = [];
      // One statement per list length up to 50 (the connection keeps them prepared), then chunks.
      for (let i = 0; i < uris.length; i += 50) {
        const chunk = uris.slice(i, i + 50);
        rows.push(...conn.prepare(`SELECT * FROM records WHERE uri IN (${chunk.map(() => '?').join(',')})`).all(...chunk));
      }
      return rows.map(normalise) as RecordRow[];
    },
  };
}

/** Records by id read in one statement at most (the rest in further statements). */
const GETS_BATCHED = 16;

const batchedReads = new WeakMap<Database, BatchedReads>();

interface BatchedReads {
  getAsOf(type: string, id: number, asOf: Freshness | undefined): Promise<RecordRow | undefined>;
  getByUris(uris: string[]): Promise<RecordRow[]>;
}

/**
 * The pool's record getter, where the records asked for by id in one turn of the event loop are
 * read in one statement per type: a statement costs the app process a socket write and the
 * database a thread's wake-up (a CPU profile of GET one on MariaDB at 8 connections: 15 % of the
 * server in that write), and concurrent GETs that arrive together share one. Answers what a
 * statement of its own would (the statement is issued after every request of the turn arrived).
 */
function turnBatchedReads(db: Database): BatchedReads {
  let reads = batchedReads.get(db);
  if (reads) return reads;
  const pooled = new RecordQueries(db.knex);
  type Waiting = { id: number; resolve: (row: RecordRow | undefined) => void; reject: (err: unknown) => void };
  let waiting = new Map<string, Waiting[]>();
  const readType = async (type: string, asked: Waiting[]) => {
    const ids = [...new Set(asked.map((w) => w.id))];
    const rows = new Map<number, RecordRow>();
    for (let i = 0; i < ids.length; i += GETS_BATCHED) {
      const chunk = ids.slice(i, i + GETS_BATCHED);
      const found = await committedRows(db, `SELECT * FROM \`records\` WHERE \`type\` = ? AND \`id\` IN (${chunk.map(() => '?').join(', ')})`, [type, ...chunk]);
      for (const row of found) rows.set(Number((row as RecordRow).id), normalise(row)!);
    }
    for (const w of asked) w.resolve(rows.get(w.id));
  };
  const flush = () => {
    const turn = waiting;
    waiting = new Map();
    for (const [type, asked] of turn) readType(type, asked).catch((err) => asked.forEach((w) => w.reject(err)));
  };
  const readInTurn = (type: string, id: number) => new Promise<RecordRow | undefined>((resolve, reject) => {
    if (!waiting.size) setImmediate(flush);
    const asked = waiting.get(type);
    if (asked) asked.push({ id, resolve, reject });
    else waiting.set(type, [{ id, resolve, reject }]);
  });
  reads = {
    // Rows read are kept until the next write (until-next-write.ts): GETs of a record read often
    // cost no statement of their own (callers never change a row they get).
    getAsOf: async (type, id, asOf) => {
      const kept = await untilNextWrite(db, asOf);
      const key = `row:${type}:${id}`;
      const known = kept.get<RecordRow | null>(key);
      if (known !== undefined) return known ?? undefined;
      const row = await readInTurn(type, id);
      kept.set(key, row ?? null, row ? 1 + (row.json.length >> 10) : 1);
      return row;
    },
    getByUris: (uris) => pooled.getByUris(uris),
  };
  batchedReads.set(db, reads);
  return reads;
}

/**
 * An id for a create about to open its own transaction, taken before it where that matters:
 * MySQL keeps the sequence's row locked until the transaction that bumped it ends, so taken
 * inside, every create of a type waited for the one before it to commit; taken first, in a
 * statement of its own, the row is locked for that statement (the id of a create that then fails
 * is not reused, as with AUTO_INCREMENT). SQLite's writers queue for the store anyway, and an id
 * taken outside would cost a second commit: undefined, the create takes it inside.
 */
export async function idBeforeTransaction(db: Database, type: string): Promise<number | undefined> {
  return db.dialect === 'mysql' ? new RecordQueries(db.knex).nextId(type) : undefined;
}

/**
 * URIs per question about links (`record_refs.to_uri IN (...)`). MariaDB reads all of record_refs
 * for lists of 200 URIs or more (its estimate of the rows per URI comes from the index's
 * statistics, which a resource linked by every one of its components skews): 80 ms a question at
 * 40,000 links, 3.3 s of an import's catch-up. With 100 it reads the index (EXPLAIN: range on
 * record_refs_to_from).
 */
export const LINKS_ASKED = 100;

/** Records a transaction remembers having inserted, the latest (TransactionMemo.inserted). */
const INSERTED_KEPT = 5000;

/** Derived rows of a table a transaction holds back at most (RecordQueries.writeOrHold, setUniqueKeys). */
const HELD_ROWS = 1000;

/** Ids a transaction takes at a time once it has taken two of a type (RecordQueries.nextId). */
const ID_BLOCK = 64;

export class RecordQueries implements RecordGetter {
  private statements: Promise<Statements> | undefined;

  constructor(readonly db: Knex | Knex.Transaction) {}

  /** The write path's fixed statements (statements.ts); the rest goes through Knex. */
  private st(): Promise<Statements> {
    return (this.statements ??= Statements.of(this.db));
  }

  /**
   * The next id of `type`. A transaction that writes many records of a type (an import, a bulk
   * load) takes its ids ID_BLOCK at a time from its second one on, and gives back what it did not
   * use before it commits (releaseIdBlocks): one statement per ID_BLOCK records instead of one
   * each, with the same ids as one at a time. Nobody else takes ids of the type meanwhile: the
   * transaction holds the sequence's row (MySQL locks it until the end; SQLite has one writer).
   */
  async nextId(type: string): Promise<number> {
    const blocks = transactionMemo(this.db)?.idBlocks;
    const block = blocks?.get(type);
    if (block && block.next <= block.last) return block.next++;
    const size = block ? ID_BLOCK : 1;
    const last = await this.bumpId(type, size);
    if (last !== undefined) {
      blocks?.set(type, { next: last - size + 2, last });
      return last - size + 1;
    }
    try {
      await this.db('id_sequences').insert({ type, last_id: 1 });
      blocks?.set(type, { next: 2, last: 1 });
      return 1;
    } catch (err) {
      // Another transaction made the sequence first: take the next value from it.
      if (!isUniqueViolation(err)) throw err;
      return (await this.bumpId(type, 1))!;
    }
  }

  /** Adds `by` to the type's sequence and returns the new value; undefined when the type has none yet. */
  private async bumpId(type: string, by: number): Promise<number | undefined> {
    const st = await this.st();
    // SQLite hands the new value back from the UPDATE itself (RETURNING); MySQL has no UPDATE … RETURNING.
    if (!onMysql(this.db)) {
      const [row] = await st.all<{ last_id: number }>('UPDATE `id_sequences` SET `last_id` = `last_id` + ? WHERE `type` = ? RETURNING `last_id`', [by, type]);
      return row ? Number(row.last_id) : undefined;
    }
    // LAST_INSERT_ID(expr) hands the new value back in the statement's own answer (its insert id):
    // no SELECT after the UPDATE.
    const r = await st.run('UPDATE `id_sequences` SET `last_id` = LAST_INSERT_ID(`last_id` + ?) WHERE `type` = ?', [by, type]);
    return r.changes ? r.lastInsertId : undefined;
  }

  /** Gives back the ids this transaction took and did not use (nextId): the sequence ends at the last one used. */
  async releaseIdBlocks(): Promise<void> {
    const blocks = transactionMemo(this.db)?.idBlocks;
    if (!blocks) return;
    for (const [type, block] of blocks) {
      if (block.next <= block.last) {
        await (await this.st()).run('UPDATE `id_sequences` SET `last_id` = ? WHERE `type` = ? AND `last_id` = ?', [block.next - 1, type, block.last]);
      }
    }
    blocks.clear();
  }

  /** Makes sure the next id handed out for `type` is above `id` (records created with a fixed id). */
  async reserveId(type: string, id: number): Promise<void> {
    // Ids this transaction holds in reserve would otherwise be handed out again above `id`.
    await this.releaseIdBlocks();
    const updated = await this.db('id_sequences').where({ type }).andWhere('last_id', '<', id).update({ last_id: id });
    if (!updated) {
      const exists = await this.db('id_sequences').where({ type }).first('type');
      if (!exists) await this.db('id_sequences').insert({ type, last_id: id });
    }
  }

  /** `place`: the row's place in a tree, for a tree node created where it belongs (positions.ts placeNew). */
  async insert(row: RecordRow, place?: PlaceColumns): Promise<number> {
    const rid = (await (await this.st()).insert('records', place ? { ...row, ...place } : row)).lastInsertId;
    this.noteInserted(row, rid, place);
    return rid;
  }

  /**
   * Inserts records a hundred a statement, then reads their row ids by URI (the insert answers
   * with one id only, and on MySQL the ids of one statement need not be consecutive): on MySQL
   * two round trips for a hundred records instead of a hundred.
   */
  async insertAll(records: Array<{ row: RecordRow; place?: PlaceColumns }>): Promise<number[]> {
    const st = await this.st();
    // One shape for every row (insertMany takes the first row's columns): no place is no place columns set.
    await st.insertMany('records', records.map(({ row, place }) => ({ ...row, parent_key: null, parent_rid: null, position: null, root_uri: null, ...place })));
    const rids = new Map<string, number>();
    for (let i = 0; i < records.length; i += 100) {
      const uris = records.slice(i, i + 100).map((r) => r.row.uri);
      const rows = await st.all<{ rid: number; uri: string }>(`SELECT \`rid\`, \`uri\` FROM \`records\` WHERE \`uri\` IN (${uris.map(() => '?').join(', ')})`, uris);
      for (const r of rows) rids.set(r.uri, Number(r.rid));
    }
    return records.map(({ row, place }) => {
      const rid = rids.get(row.uri)!;
      this.noteInserted(row, rid, place);
      return rid;
    });
  }

  /** Puts a record inserted without its place into it (a create that takes its place last: records/write.ts). */
  async putInPlace(row: RecordRow, rid: number, place: PlaceColumns): Promise<void> {
    await (await this.st()).update('records', place, { rid });
    this.noteInserted(row, rid, place);
  }

  private noteInserted(row: RecordRow, rid: number, place?: PlaceColumns): void {
    const inserted = transactionMemo(this.db)?.inserted;
    if (!inserted) return;
    // The latest ones only (a component's parent was written shortly before it): bounded memory.
    if (inserted.size >= INSERTED_KEPT) inserted.delete(inserted.keys().next().value!);
    inserted.set(row.uri, { rid, type: row.type, root_uri: place?.root_uri ?? null });
  }

  /** Optimistic update: false when the stored lock_version is not `expectedLock`. */
  async update(rid: number, expectedLock: number, fields: Partial<RecordRow>): Promise<boolean> {
    return (await (await this.st()).update('records', fields, { rid, lock_version: expectedLock })).changes === 1;
  }

  /**
   * The record's row. `forRewrite`: the row as committed, held until the transaction ends (MySQL
   * FOR UPDATE; SQLite has one writer), for a rewrite of a record someone else may be saving: a
   * plain read there answers from the transaction's snapshot, and the update after it then found
   * another lock_version and changed nothing.
   */
  async get(type: string, id: number, forRewrite = false): Promise<RecordRow | undefined> {
    const lock = forRewrite ? lockedRead(this.db) : '';
    const [row] = await (await this.st()).all(`SELECT * FROM \`records\` WHERE \`type\` = ? AND \`id\` = ? LIMIT 1${lock}`, [type, id]);
    return normalise(row);
  }

  async getByUris(uris: string[]): Promise<RecordRow[]> {
    if (!uris.length) return [];
    const rows = await this.db('records').whereIn('uri', uris);
    return rows.map(normalise) as RecordRow[];
  }

  /**
   * Type and repository of the records that exist among `uris` (no JSON: a cheap existence check).
   * Not a locking read: a tree node's create finds its parent here and locks it for its place
   * afterwards, and concurrent creates that each held it shared then waited for each other's
   * share (deadlocks, past every retry, in test/records/concurrency.test.ts).
   */
  async existing(uris: string[]): Promise<Array<{ uri: string; type: string; repo_id: number }>> {
    // Records this transaction already found (the same resource, parent and containers are linked from thousands of components).
    const memo = transactionMemo(this.db);
    const known = memo ? uris.flatMap((uri) => memo.existing.get(uri) ?? []) : [];
    const asked = memo ? uris.filter((uri) => !memo.existing.has(uri)) : uris;
    const st = asked.length ? await this.st() : undefined;
    const rows: Array<{ uri: string; type: string; repo_id: number }> = [];
    // Chunks of 50: one statement per list length up to 50, kept prepared.
    for (let i = 0; i < asked.length; i += 50) {
      const chunk = asked.slice(i, i + 50);
      rows.push(...await st!.all<{ uri: string; type: string; repo_id: number }>(
        `SELECT \`uri\`, \`type\`, \`repo_id\` FROM \`records\` WHERE \`uri\` IN (${chunk.map(() => '?').join(', ')})`, chunk));
    }
    const found = rows.map((r) => ({ uri: r.uri, type: r.type, repo_id: Number(r.repo_id) }));
    for (const row of found) memo?.existing.set(row.uri, row);
    return known.concat(found);
  }

  /** Records that link to `uri` (from record_refs), other than the record itself, once each (see linksTo). */
  async referrers(uri: string): Promise<Linking[]> {
    const byRid = new Map<number, Linking>();
    for (const link of await this.linksTo([uri])) if (link.uri !== uri) byRid.set(link.rid, link);
    return [...byRid.values()];
  }

  /**
   * The links records hold to any of `uris`: the linking record (its row's keys, no JSON: a
   * rewrite reads it again, held) and the URI it links to, 500 URIs a statement. In a write
   * transaction on MySQL, as committed and locked until it ends, new links included: a link
   * another client is saving meanwhile is waited for and found, not left dangling.
   */
  async linksTo(uris: string[]): Promise<Array<Linking & { to_uri: string }>> {
    await this.writeHeldRows();
    const links: Array<Linking & { to_uri: string }> = [];
    for (let i = 0; i < uris.length; i += 500) {
      const query = this.db('record_refs as x')
        .join('records as r', 'r.rid', 'x.from_rid')
        .whereIn('x.to_uri', uris.slice(i, i + 500))
        .distinct('r.rid', 'r.type', 'r.id', 'r.repo_id', 'r.uri', 'x.to_uri');
      if (lockedRead(this.db)) query.forUpdate();
      for (const row of await query) {
        links.push({ rid: Number(row.rid), type: row.type, id: Number(row.id), repo_id: Number(row.repo_id), uri: row.uri, to_uri: row.to_uri });
      }
    }
    return links;
  }

  async delete(rid: number): Promise<void> {
    await this.writeHeldRows();
    // Child rows go first: MySQL and SQLite both cascade, but only with foreign keys enforced.
    await this.db('unique_keys').where({ rid }).delete();
    await this.db('lookup_keys').where({ rid }).delete();
    await this.db('record_refs').where({ from_rid: rid }).delete();
    await this.db('records').where({ rid }).delete();
    noteDeletion();
  }

  /**
   * Replaces the record's unique keys; a key another record holds is refused with what `explain`
   * makes of the first clash. A fresh record's keys may be held back (holdDerivedRows): then the
   * clash is found when they are written (writeHeldKeys).
   * `fresh` (here and below): the record was inserted in this transaction, so there is nothing to replace.
   */
  async setUniqueKeys(rid: number, type: string, keys: KeyRow[], fresh: boolean, explain: ExplainClash): Promise<void> {
    const rows = keys.map((key) => ({ type, rule: key.rule, scope: key.scope, key_hash: key.hash, rid }));
    const held = fresh ? heldKeys(this.db) : undefined;
    if (held) {
      for (const row of rows) held.push({ row, explain });
      if (held.length >= HELD_ROWS) await this.writeHeldKeys();
      return;
    }
    const st = await this.st();
    if (!fresh) {
      await this.writeHeldRows();
      await st.run('DELETE FROM `unique_keys` WHERE `rid` = ?', [rid]);
    }
    for (const row of rows) {
      try {
        await st.insert('unique_keys', row);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        const [holder] = await this.keyHolders([row]);
        throw await explain(row.rule, holder ? Number(holder.rid) : null);
      }
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
      await (await this.st()).run('DELETE FROM `lookup_keys` WHERE `rid` = ?', [rid]);
    }
    await this.writeOrHold('lookup_keys', keys.map((k) => ({ type, param: k.param, repo_id: repoId, value_hash: k.hash, rid })));
  }

  async setRefs(rid: number, refs: RefRow[], fresh = false): Promise<void> {
    if (!fresh) {
      await this.writeHeldRows();
      await (await this.st()).run('DELETE FROM `record_refs` WHERE `from_rid` = ?', [rid]);
    }
    await this.writeOrHold('record_refs', refs.map((r) => ({ from_rid: rid, property: r.property, to_uri: r.uri })));
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
      await (await this.st()).insertMany(table, rows);
      return;
    }
    const list = held.get(table) ?? [];
    list.push(...rows);
    if (list.length < HELD_ROWS) {
      held.set(table, list);
      return;
    }
    held.delete(table);
    await (await this.st()).insertMany(table, list);
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
      await st.insertMany(table, rows);
    }
  }

  /** The one way into the change log the indexer follows: written in the same transaction as the records. */
  async appendChange(type: string, uri: string, op: 'upsert' | 'delete', atMs: number): Promise<void> {
    await this.appendChanges([{ type, uri }], op, atMs);
  }

  async appendChanges(records: Array<{ type: string; uri: string }>, op: 'upsert' | 'delete', atMs: number): Promise<void> {
    const rows = records.map((r) => ({ type: r.type, uri: r.uri, op, at_ms: atMs }));
    const held = heldChanges(this.db);
    if (held) held.push(...rows);
    else await (await this.st()).insertMany('change_log', rows);
  }

  async uriOf(rid: number): Promise<string | undefined> {
    const row = await this.db('records').where({ rid }).first('uri');
    return row?.uri;
  }

  private listBase(q: ListQuery) {
    const query = this.db('records').where({ type: q.type });
    if (q.repoId !== undefined) query.andWhere({ repo_id: q.repoId });
    if (!q.includeHidden) query.andWhere({ hidden: false });
    if (!q.includeSuppressed) query.andWhere({ suppressed: false });
    if (q.modifiedSinceMs) query.andWhere('system_mtime_ms', '>=', q.modifiedSinceMs);
    if (q.ids) query.whereIn('id', q.ids);
    return query;
  }

  async count(q: ListQuery): Promise<number> {
    const row = await this.listBase(q).count({ n: '*' }).first();
    return Number((row as any)?.n ?? 0);
  }

  /**
   * A listing's rows, each record's JSON as stored text. Strings live in the JavaScript heap and
   * go with the next young collection; a Buffer per record (the stored bytes, once read to save
   * decoding them) is memory outside the heap, which V8 frees only once tens of megabytes have
   * piled up: pages of 250 under load raised a server's peak RSS by about 50 MB.
   */
  async list(q: ListQuery): Promise<ListedRow[]> {
    const columns = ['rid', 'type', 'id', 'uri', 'json'];
    if (q.limit === undefined) return (await this.listBase(q).select(columns).orderBy(q.sortColumn, q.sortDirection)) as ListedRow[];
    // A page far down a listing: the rows before it are skipped in the index (rid alone), and
    // only the page's rows are read whole; one query would read every skipped row too.
    const rids = (await this.ridsInOrder(q)).map((r: { rid: number }) => Number(r.rid));
    return inOrder(rids, (await this.db('records').whereIn('rid', rids).select(columns)) as ListedRow[]);
  }

  /**
   * The listing's rids in its order, only the page's where it has a limit. Ids are unique per
   * type; other sort columns tie, and a tie needs an order for pages to hold still.
   */
  private ridsInOrder(q: ListQuery) {
    const rids = this.listBase(q).select('rid').orderBy(q.sortColumn, q.sortDirection);
    if (q.sortColumn !== 'id') rids.orderBy('rid');
    if (q.limit !== undefined) rids.limit(q.limit).offset(q.offset ?? 0);
    return rids;
  }

  private idsInOrder(q: ListQuery) {
    return this.listBase(q).select('id').orderBy(q.sortColumn, q.sortDirection);
  }

  /**
   * The listing's ids. On MySQL/MariaDB the server joins them into one string (with their count,
   * so a join cut short by group_concat_max_len or max_allowed_packet is noticed and read row by
   * row instead): 100,000 row objects, kept until the last one arrived, outlived the young
   * generation (8 concurrent all_ids on MariaDB raised a server's peak RSS by 89 MB).
   */
  async listIds(q: ListQuery): Promise<number[]> {
    if (!onMysql(this.db)) return (await this.idsInOrder(q)).map((r: { id: number }) => Number(r.id));
    // sortColumn and sortDirection come from fixed lists (SORT_COLUMNS, asc / desc), never from the caller's text.
    const joined = this.db.raw(`GROUP_CONCAT(id ORDER BY ${q.sortColumn} ${q.sortDirection} SEPARATOR ',') AS ids`);
    const row = (await this.listBase(q).select(this.db.raw('COUNT(*) AS n'), joined).first()) as { n: number; ids: string | Buffer | null };
    const ids = row.ids === null ? [] : row.ids.toString().split(',').map(Number);
    if (ids.length === Number(row.n)) return ids;
    const streamed: number[] = [];
    for await (const r of this.idsInOrder(q).stream()) streamed.push(Number((r as { id: number }).id));
    return streamed;
  }

  /** list() as one JSON array of the records' stored text, joined by SQLite on a read connection: one string per page. */
  listTextOn(conn: BetterSqlite3.Database, q: ListQuery): string {
    const tie = q.sortColumn === 'id' ? '' : ', rid';
    const { sql, bindings } = this.ridsInOrder(q).toSQL().toNative();
    // sortColumn and sortDirection come from fixed lists (SORT_COLUMNS, asc / desc), never from the caller's text.
    const joined = conn
      .prepare(`SELECT group_concat(json, ',' ORDER BY ${q.sortColumn} ${q.sortDirection}${tie}) FROM records WHERE rid IN (${sql})`)
      .pluck()
      .get(...sqliteBindings(bindings)) as string | null;
    return `[${joined ?? ''}]`;
  }

  /** listIds() on a SQLite read connection: the ids alone, no row objects. */
  listIdsOn(conn: BetterSqlite3.Database, q: ListQuery): number[] {
    const { sql, bindings } = this.idsInOrder(q).toSQL().toNative();
    return conn.prepare(sql).pluck().all(...sqliteBindings(bindings)) as number[];
  }

  async findByLookup(type: string, repoId: number, param: string, hashes: string[], includeSuppressed = true): Promise<string[]> {
    if (!hashes.length) return [];
    await this.writeHeldRows();
    const query = this.db('lookup_keys as k')
      .join('records as r', 'r.rid', 'k.rid')
      .where({ 'k.type': type, 'k.param': param, 'k.repo_id': repoId })
      .whereIn('k.value_hash', hashes);
    if (!includeSuppressed) query.andWhere('r.suppressed', false);
    const rows = await query.distinct('r.uri', 'r.id').orderBy('r.id');
    return rows.map((r: { uri: string }) => r.uri);
  }
}

/**
 * The clause that makes a read in a MySQL transaction a locking one: it reads what is committed
 * (a plain read answers from the transaction's snapshot) and holds the rows (and, on an index
 * range, the gaps between them) until the transaction ends. Empty elsewhere: SQLite has one
 * writer at a time, and outside a transaction nothing would be held.
 */
function lockedRead(db: Knex | Knex.Transaction): string {
  return onMysql(db) && (db as Knex.Transaction).isTransaction === true ? ' FOR UPDATE' : '';
}

/** Knex's bindings as better-sqlite3 takes them (Knex's own runner turns booleans into 0 and 1 too). */
function sqliteBindings(bindings: readonly unknown[]): unknown[] {
  return bindings.map((b) => (typeof b === 'boolean' ? Number(b) : b));
}

/** RecordRow's columns (a record's tree place and keys are not read with it). */
const ROW_COLUMNS = 'rid, type, id, repo_id, uri, json, lock_version, create_time_ms, system_mtime_ms, user_mtime_ms, suppressed, hidden';

/** A row better-sqlite3 read (its integers are numbers already): only the flags made booleans, in place. */
function flagsOf(row: RecordRow | undefined): RecordRow | undefined {
  if (row) {
    row.suppressed = !!row.suppressed;
    row.hidden = !!row.hidden;
  }
  return row;
}

function normalise(row: any): RecordRow | undefined {
  if (!row) return undefined;
  return {
    ...row,
    rid: Number(row.rid),
    id: Number(row.id),
    repo_id: Number(row.repo_id),
    lock_version: Number(row.lock_version),
    create_time_ms: Number(row.create_time_ms),
    system_mtime_ms: Number(row.system_mtime_ms),
    user_mtime_ms: Number(row.user_mtime_ms),
    suppressed: !!row.suppressed,
    hidden: !!row.hidden,
  };
}

/** Rows fetched by rid, in the order of `rids` (rows gone meanwhile are left out). */
export function inOrder<T extends { rid?: number }>(rids: number[], rows: T[]): T[] {
  const byRid = new Map(rows.map((r) => [Number(r.rid), r]));
  return rids.map((rid) => byRid.get(rid)).filter((r): r is T => r !== undefined);
}

/** What the unique index of unique_keys compares. */
function keyOf(row: HeldKey['row']): string {
  return `${row.type}\u0000${row.rule}\u0000${row.scope}\u0000${row.key_hash}`;
}
