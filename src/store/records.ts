import type { Database } from './database';
import { onMysql } from './dialect';
import { isUniqueViolation, retryingStatement } from './store-errors';
import { parentKey, type PlaceColumns } from './positions';
import { DerivedRows } from './derived-rows';
import { insertStatements, type RunResult, updateStatement } from './statements';
import { lockedRead, type Linking, normalise, ROW_KEYS, rowKeys, type RowKeys, type RecordGetter, type RecordRow, rowsOfUris, type ListQuery, type ListedRow } from './record-rows';
import { countRecords, listRecordIds, listRecordIdsOn, listRecords, listRecordTextOn } from './record-listing';
import { noteDeletion, pendingInserts, renameGroup, transactionMemo } from './transaction-memo';
import { noteLockedRows, noteTouchesOfDeletion, rootOfRowReadForTouch } from './touches';
import type { LockedRow } from './transaction-memo';
import type BetterSqlite3 from 'better-sqlite3';
import { deletedVersionRows, type ReplacedHow, type ReplacedRow, versionRow } from './history';
import { onlyVisible, pendingRow, visibleSql } from './pending';
import { idsTakenInTransaction, processIds } from './id-blocks';

export * from './record-rows';
export { changeLogHead, committedChangeLogHead, recordReads } from './record-reads';

/**
 * An id for a create about to open its own transaction, taken before it where that matters:
 * MySQL keeps the sequence's row locked until the transaction that bumped it ends, so taken
 * inside, every create of a type waited for the one before it to commit; taken first, the row is
 * locked for one statement (the id of a create that then fails is not reused, as with
 * AUTO_INCREMENT). On MySQL the process takes them PROCESS_ID_BLOCK at a time (id-blocks.ts): no
 * round trip for most creates. SQLite's writers queue for the store anyway, and an id taken
 * outside would cost a second commit: undefined, the create takes it inside.
 */
export async function idBeforeTransaction(db: Database, type: string): Promise<number | undefined> {
  if (db.dialect !== 'mysql') return undefined;
  return processIds(db.knex).next(type, (size) =>
    // On Galera the sequence's row is one every node updates: a statement that loses certification
    // to another node's (after the server's own wsrep_retry_autocommit tries) took nothing, and
    // is run again, as a transaction that lost a race is.
    retryingStatement(() => new RecordQueries(db.knex).takeIds(type, size)));
}

/** The ids this process holds of `type` are dropped: a create given one found it taken (id-blocks.ts). */
export function dropIdBlock(db: Database, type: string): void {
  processIds(db.knex).drop(type);
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

/** Ids a transaction takes at a time once it has taken two of a type (RecordQueries.nextId). */
const ID_BLOCK = 64;

/** The existence check of `n` URIs (RecordQueries.existing). */
/** Which of n URIs name records this transaction may see (`visible`: pending.ts). */
function existingSql(n: number, visible: { sql: string }): string {
  return `SELECT \`uri\`, \`type\`, \`repo_id\` FROM \`records\` WHERE \`uri\` IN (${Array(n).fill('?').join(', ')}) AND ${visible.sql}`;
}

export class RecordQueries extends DerivedRows implements RecordGetter {

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
    idsTakenInTransaction(this.db, type);
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

  /** `n` ids of `type` at once, in a statement of their own: answers the last (they are the n up to it). */
  async takeIds(type: string, n: number): Promise<number> {
    const last = await this.bumpId(type, n);
    if (last !== undefined) return last;
    try {
      await this.db('id_sequences').insert({ type, last_id: n });
      return n;
    } catch (err) {
      // Another process made the sequence first: take them from it.
      if (!isUniqueViolation(err)) throw err;
      return (await this.bumpId(type, n))!;
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
    idsTakenInTransaction(this.db, type);
    const updated = await this.db('id_sequences').where({ type }).andWhere('last_id', '<', id).update({ last_id: id });
    if (!updated) {
      const exists = await this.db('id_sequences').where({ type }).first('type');
      if (!exists) await this.db('id_sequences').insert({ type, last_id: id });
    }
  }

  /** `place`: the row's place in a tree, for a tree node created where it belongs (positions.ts placeNew). */
  /**
   * `alsoFind`: the records it links to, asked in the same round trip (MySQL: Statements.batch) and
   * kept in the transaction's memo, where the link check (existing) finds them.
   */
  async insert(row: RecordRow, place?: PlaceColumns, alsoFind: string[] = []): Promise<number> {
    const memo = transactionMemo(this.db);
    const asked = memo ? [...new Set(alsoFind)].filter((uri) => !memo.existing.has(uri)).slice(0, 50) : [];
    const [insert] = insertStatements('records', [pendingRow(this.db, place ? { ...row, ...place } : row)]);
    const visible = visibleSql(this.db);
    const find = { sql: existingSql(asked.length, visible), params: [...asked, ...visible.bindings], read: true };
    const [result, found] = await (await this.st()).batch(asked.length ? [insert, find] : [insert]);
    for (const r of (found ?? []) as Array<{ uri: string; type: string; repo_id: number }>) memo!.existing.set(r.uri, { uri: r.uri, type: r.type, repo_id: Number(r.repo_id) });
    const rid = (result as RunResult).lastInsertId;
    this.noteInserted(row, rid, place);
    return rid;
  }

  /**
   * Inserts records a hundred a statement, then reads their row ids by URI (the insert answers
   * with one id only, and on MySQL the ids of one statement need not be consecutive): on MySQL
   * two round trips for a hundred records instead of a hundred. A record placed under a parent
   * prepared with it (a stand-in row id, notePending) is inserted without its place and put in it
   * once its parent's row id is known: one UPDATE per hundred such records. Parents come before
   * their children, in this call or an earlier one.
   */
  async insertAll(records: Array<{ row: RecordRow; place?: PlaceColumns }>): Promise<number[]> {
    const st = await this.st();
    const pending = pendingInserts(this.db);
    const waits = (place?: PlaceColumns) => place?.parent_rid !== null && place?.parent_rid !== undefined && place.parent_rid < 0;
    // One shape for every row (insertMany takes the first row's columns): no place is no place columns set.
    await st.insertMany('records', records.map(({ row, place }) => pendingRow(this.db, {
      ...row, parent_key: null, parent_rid: null, position: null, root_uri: null, ...(waits(place) ? {} : place),
    })));
    const rids = new Map<string, number>();
    for (let i = 0; i < records.length; i += 100) {
      const uris = records.slice(i, i + 100).map((r) => r.row.uri);
      const rows = await st.all<{ rid: number; uri: string }>(`SELECT \`rid\`, \`uri\` FROM \`records\` WHERE \`uri\` IN (${uris.map(() => '?').join(', ')})`, uris);
      for (const r of rows) rids.set(r.uri, Number(r.rid));
    }
    // Stand-in row ids of this call's records → their rows.
    const standIns = new Map<number, number>();
    for (const { row } of records) {
      const standIn = pending?.get(row.uri);
      if (standIn) standIns.set(standIn.rid, rids.get(row.uri)!);
      pending?.delete(row.uri);
    }
    const placed: Array<{ rid: number; place: PlaceColumns }> = [];
    const answer = records.map(({ row, place }) => {
      const rid = rids.get(row.uri)!;
      let final = place;
      if (place && waits(place)) {
        const parentRid = standIns.get(place.parent_rid!);
        if (parentRid === undefined) throw new Error(`${row.uri} is placed under a record not inserted before it`);
        final = { ...place, parent_rid: parentRid, parent_key: parentKey(place.root_uri, parentRid) };
        placed.push({ rid, place: final });
        renameGroup(this.db, place.parent_key, final.parent_key);
      }
      this.noteInserted(row, rid, final);
      return rid;
    });
    for (let i = 0; i < placed.length; i += 100) {
      const chunk = placed.slice(i, i + 100);
      const cases = (column: keyof PlaceColumns) => ({
        sql: `\`${column}\` = CASE \`rid\`${chunk.map(() => ' WHEN ? THEN ?').join('')} END`,
        params: chunk.flatMap((p) => [p.rid, p.place[column]]),
      });
      const sets = (['parent_key', 'parent_rid', 'position', 'root_uri'] as const).map(cases);
      await st.run(`UPDATE \`records\` SET ${sets.map((c) => c.sql).join(', ')} WHERE \`rid\` IN (${chunk.map(() => '?').join(', ')})`,
        [...sets.flatMap((c) => c.params), ...chunk.map((p) => p.rid)]);
    }
    return answer;
  }

  /**
   * A record prepared to be inserted later with others (insertAll), at `place`: a stand-in row id
   * (negative) for the places of its children prepared before that insert (positions.ts placeIn,
   * trees.ts treeRowOfUri find it in the memo). Undefined where the transaction keeps no memo.
   */
  notePending(row: RecordRow, place?: PlaceColumns): number | undefined {
    const memo = transactionMemo(this.db);
    if (!memo) return undefined;
    const rid = --memo.standIns;
    memo.pending.set(row.uri, { rid, type: row.type, root_uri: place?.root_uri ?? null });
    return rid;
  }

  /** Puts a record inserted without its place into it (a create that takes its place last: records/write.ts). */
  async putInPlace(row: RecordRow, rid: number, place: PlaceColumns): Promise<void> {
    await (await this.st()).deferUpdate('records', place, { rid });
    this.noteInserted(row, rid, place);
  }

  private noteInserted(row: RecordRow, rid: number, place?: PlaceColumns): void {
    const memo = transactionMemo(this.db);
    if (!memo) return;
    const inserted = memo.inserted;
    // The latest ones only (a component's parent was written shortly before it): bounded memory.
    if (inserted.size >= INSERTED_KEPT) inserted.delete(inserted.keys().next().value!);
    // With its repository, it exists for the link checks of the records that link to it (existing:
    // an import's agents and containers, linked by the rows after the one that made them).
    inserted.set(row.uri, { rid, type: row.type, root_uri: place?.root_uri ?? null, repo_id: row.repo_id });
  }

  /**
   * Optimistic update: false when the stored lock_version is not `expectedLock`. `replaced`: the
   * row as read before (its lock_version `expectedLock`), kept as a version of the record (history.ts).
   */
  async update(
    rid: number, expectedLock: number, fields: Partial<RecordRow>, replaced: ReplacedRow, how: ReplacedHow = 'update',
    /** Where given, the update is sent with what follows it (Statements.deferChecked) and fails the write with `conflict()` when the row moved on. */
    conflict?: () => Error,
  ): Promise<boolean> {
    const st = await this.st();
    const where = { rid, lock_version: expectedLock };
    if (conflict) {
      const { sql, params } = updateStatement('records', fields, where);
      await st.deferChecked(sql, params, 1, conflict);
    }
    if (!conflict && (await st.update('records', fields, where)).changes !== 1) return false;
    const kept = versionRow(this.db, replaced, how);
    if (kept) await this.keepVersions([kept]);
    return true;
  }

  /**
   * Updates of many records (each row's new JSON, at `nowMs`), a hundred to a statement, each
   * expecting the lock_version it was read at: false when any of them had moved on (the caller
   * then rolls its transaction back).
   */
  async updateAll(updates: Array<{ rid: number; expectedLock: number; json: string; replaced: ReplacedRow }>, nowMs: number): Promise<boolean> {
    const st = await this.st();
    for (let i = 0; i < updates.length; i += 100) {
      const chunk = updates.slice(i, i + 100);
      const whens = chunk.map(() => 'WHEN ? THEN ?').join(' ');
      const sql = `UPDATE \`records\` SET \`json\` = CASE \`rid\` ${whens} END, \`lock_version\` = \`lock_version\` + 1, \`system_mtime_ms\` = ?, \`user_mtime_ms\` = ?`
        + ` WHERE \`rid\` IN (${chunk.map(() => '?').join(', ')}) AND \`lock_version\` = CASE \`rid\` ${whens} END`;
      const params = [
        ...chunk.flatMap((u) => [u.rid, u.json]), nowMs, nowMs, ...chunk.map((u) => u.rid), ...chunk.flatMap((u) => [u.rid, u.expectedLock]),
      ];
      if ((await st.run(sql, params)).changes !== chunk.length) return false;
      const kept = chunk.map((u) => versionRow(this.db, u.replaced, 'update')).filter((row) => row !== undefined);
      if (kept.length) await this.keepVersions(kept);
    }
    return true;
  }

  /**
   * The record's row. `forRewrite`: the row as committed, held until the transaction ends (MySQL
   * FOR UPDATE; SQLite has one writer), for a rewrite of a record someone else may be saving: a
   * plain read there answers from the transaction's snapshot, and the update after it then found
   * another lock_version and changed nothing.
   */
  async get(type: string, id: number, forRewrite = false): Promise<RecordRow | undefined> {
    const lock = forRewrite ? lockedRead(this.db) : '';
    const visible = visibleSql(this.db);
    const [row] = await (await this.st()).all(`SELECT * FROM \`records\` WHERE \`type\` = ? AND \`id\` = ? AND ${visible.sql} LIMIT 1${lock}`, [type, id, ...visible.bindings]);
    return normalise(row);
  }

  /**
   * The row a single write's update replaces (MySQL, pipeline.ts), read locked and, where its
   * change touches its tree's root, with the root's row, locked after it, in the same round trip:
   * the touch then reads nothing (touches.ts). The row's root is kept in the transaction's memo
   * (a move forgets it). Elsewhere get().
   */
  async getToUpdate(type: string, id: number): Promise<RecordRow | undefined> {
    const st = await this.st();
    const root = rootOfRowReadForTouch(this.db, st, type, id);
    if (!root) return this.get(type, id);
    const visible = visibleSql(this.db);
    const [rows, rootRows] = await st.batch([
      { sql: `SELECT * FROM \`records\` WHERE \`type\` = ? AND \`id\` = ? AND ${visible.sql} LIMIT 1 FOR UPDATE`, params: [type, id, ...visible.bindings], read: true },
      root,
    ]);
    const raw = (rows as Array<Record<string, unknown>>)[0];
    const row = normalise(raw);
    noteLockedRows(this.db, rootRows as LockedRow[]);
    const rootUri = raw?.root_uri as string | null | undefined;
    if (row && rootUri) transactionMemo(this.db)?.inserted.set(row.uri, { rid: row.rid!, type: row.type, root_uri: rootUri });
    return row;
  }

  getByUris(uris: string[]): Promise<RecordRow[]> {
    return rowsOfUris(this.db, uris);
  }

  /**
   * Type and repository of the records that exist among `uris` (no JSON: a cheap existence check).
   * Not a locking read: a tree node's create finds its parent here and locks it for its place
   * afterwards, and concurrent creates that each held it shared then waited for each other's
   * share (deadlocks, past every retry, in test/records/concurrency.test.ts).
   */
  async existing(uris: string[]): Promise<Array<{ uri: string; type: string; repo_id: number }>> {
    // Records this transaction already found or inserted (the same resource, parent and containers are linked from thousands of components).
    const memo = transactionMemo(this.db);
    const known: Array<{ uri: string; type: string; repo_id: number }> = [];
    const asked: string[] = [];
    for (const uri of uris) {
      const inserted = memo?.inserted.get(uri);
      const hit = memo?.existing.get(uri) ?? (inserted?.repo_id === undefined ? undefined : { uri, type: inserted.type, repo_id: inserted.repo_id });
      if (hit) known.push(hit);
      else asked.push(uri);
    }
    if (!asked.length) return known;
    const st = await this.st();
    const rows: Array<{ uri: string; type: string; repo_id: number }> = [];
    const visible = visibleSql(this.db);
    // Chunks of 50: one statement per list length up to 50, kept prepared.
    for (let i = 0; i < asked.length; i += 50) {
      const chunk = asked.slice(i, i + 50);
      rows.push(...await st.all<{ uri: string; type: string; repo_id: number }>(
        existingSql(chunk.length, visible), [...chunk, ...visible.bindings]));
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
    await this.keepVersions(await deletedVersionRows(this.db, [rid]));
    await this.writeHeldRows();
    // ArchivesSpace finds what a deletion touches before the record and its links go.
    await noteTouchesOfDeletion(this.db, rid);
    // Child rows go first: MySQL and SQLite both cascade, but only with foreign keys enforced.
    await this.db('unique_keys').where({ rid }).delete();
    await this.db('lookup_keys').where({ rid }).delete();
    await this.db('record_refs').where({ from_rid: rid }).delete();
    await this.db('records').where({ rid }).delete();
    noteDeletion();
  }

  /** The row (no JSON) of a record by type and id, in `repoId` where given. */
  async keysOf(type: string, id: number, repoId?: number): Promise<RowKeys | undefined> {
    const where: Record<string, unknown> = { type, id };
    if (repoId !== undefined) where.repo_id = repoId;
    return rowKeys(await onlyVisible(this.db, this.db('records').where(where)).first(ROW_KEYS));
  }

  /** The row (no JSON) of the record at `uri`. */
  async keysAt(uri: string): Promise<RowKeys | undefined> {
    return rowKeys(await onlyVisible(this.db, this.db('records').where({ uri })).first(ROW_KEYS));
  }

  /** The stored JSON of the record at `uri`. */
  async jsonAt(uri: string): Promise<string | undefined> {
    return (await onlyVisible(this.db, this.db('records').where({ uri })).first('json'))?.json;
  }

  /** Type, URI and stored JSON of the record with row id `rid`. */
  async jsonOf(rid: number): Promise<{ type: string; uri: string; json: string } | undefined> {
    return this.db('records').where({ rid }).first('type', 'uri', 'json');
  }

  /**
   * Sets columns of a record's row whatever its lock_version: for what the server changes without
   * a new lock_version (bulk flags, moves in a tree, a value list's migration).
   */
  async overwrite(rid: number, fields: Partial<RecordRow>): Promise<void> {
    await this.db('records').where({ rid }).update(fields);
  }

  /**
   * A record replaced by a copy that comes with its identity (an import): its columns, and no
   * place in a tree until it is given one (setTreePlace).
   */
  async replaceRow(rid: number, fields: Partial<RecordRow>): Promise<void> {
    const replaced = await this.db('records').where({ rid }).first('type', 'id', 'uri', 'lock_version', 'json');
    const kept = replaced && versionRow(this.db, { ...replaced, id: Number(replaced.id), lock_version: Number(replaced.lock_version) }, 'replace');
    if (kept) await this.keepVersions([kept]);
    await this.db('records').where({ rid }).update({ ...fields, parent_key: null, parent_rid: null, position: null, root_uri: null });
  }

  /** The URIs of the records of `type` users see (hidden ones left out), in id order. */
  visibleUrisOf(type: string): Promise<string[]> {
    return onlyVisible(this.db, this.db('records').where({ type, hidden: false })).orderBy('id').pluck('uri');
  }

  async uriOf(rid: number): Promise<string | undefined> {
    const row = await this.db('records').where({ rid }).first('uri');
    return row?.uri;
  }


  count(q: ListQuery): Promise<number> {
    return countRecords(this.db, q);
  }

  list(q: ListQuery): Promise<ListedRow[]> {
    return listRecords(this.db, q);
  }

  listIds(q: ListQuery): Promise<number[]> {
    return listRecordIds(this.db, q);
  }

  listTextOn(conn: BetterSqlite3.Database, q: ListQuery): string {
    return listRecordTextOn(this.db, conn, q);
  }

  listIdsOn(conn: BetterSqlite3.Database, q: ListQuery): number[] {
    return listRecordIdsOn(this.db, conn, q);
  }

  async findByLookup(type: string, repoId: number, param: string, hashes: string[], includeSuppressed = true): Promise<string[]> {
    if (!hashes.length) return [];
    await this.writeHeldRows();
    const query = this.db('lookup_keys as k')
      .join('records as r', 'r.rid', 'k.rid')
      .where({ 'k.type': type, 'k.param': param, 'k.repo_id': repoId })
      .whereIn('k.value_hash', hashes);
    onlyVisible(this.db, query, 'r');
    if (!includeSuppressed) query.andWhere('r.suppressed', false);
    const rows = await query.distinct('r.uri', 'r.id').orderBy('r.id');
    return rows.map((r: { uri: string }) => r.uri);
  }
}
