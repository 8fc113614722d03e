import type { Database } from './database';
import { onMysql } from './dialect';
import { isUniqueViolation, retryingStatement } from './store-errors';
import type { PlaceColumns } from './positions';
import { DerivedRows } from './derived-rows';
import { lockedRead, type Linking, normalise, ROW_KEYS, rowKeys, type RowKeys, type RecordGetter, type RecordRow, rowsOfUris, type ListQuery, type ListedRow } from './record-rows';
import { countRecords, listRecordIds, listRecordIdsOn, listRecords, listRecordTextOn } from './record-listing';
import { noteDeletion, transactionMemo } from './transaction-memo';
import { noteTouchesOfDeletion } from './touches';
import type BetterSqlite3 from 'better-sqlite3';
import { deletedVersionRows, type ReplacedHow, type ReplacedRow, versionRow } from './history';

export * from './record-rows';
export { changeLogHead, committedChangeLogHead, recordReads } from './record-reads';

/**
 * An id for a create about to open its own transaction, taken before it where that matters:
 * MySQL keeps the sequence's row locked until the transaction that bumped it ends, so taken
 * inside, every create of a type waited for the one before it to commit; taken first, in a
 * statement of its own, the row is locked for that statement (the id of a create that then fails
 * is not reused, as with AUTO_INCREMENT). SQLite's writers queue for the store anyway, and an id
 * taken outside would cost a second commit: undefined, the create takes it inside.
 */
export async function idBeforeTransaction(db: Database, type: string): Promise<number | undefined> {
  if (db.dialect !== 'mysql') return undefined;
  // On Galera the sequence's row is one every node updates: a statement that loses certification
  // to another node's (after the server's own wsrep_retry_autocommit tries) took nothing, and
  // is run again, as a transaction that lost a race is.
  return retryingStatement(() => new RecordQueries(db.knex).nextId(type));
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

  /**
   * Optimistic update: false when the stored lock_version is not `expectedLock`. `replaced`: the
   * row as read before (its lock_version `expectedLock`), kept as a version of the record (history.ts).
   */
  async update(rid: number, expectedLock: number, fields: Partial<RecordRow>, replaced: ReplacedRow, how: ReplacedHow = 'update'): Promise<boolean> {
    if ((await (await this.st()).update('records', fields, { rid, lock_version: expectedLock })).changes !== 1) return false;
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
    const [row] = await (await this.st()).all(`SELECT * FROM \`records\` WHERE \`type\` = ? AND \`id\` = ? LIMIT 1${lock}`, [type, id]);
    return normalise(row);
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
    return rowKeys(await this.db('records').where(where).first(ROW_KEYS));
  }

  /** The row (no JSON) of the record at `uri`. */
  async keysAt(uri: string): Promise<RowKeys | undefined> {
    return rowKeys(await this.db('records').where({ uri }).first(ROW_KEYS));
  }

  /** The stored JSON of the record at `uri`. */
  async jsonAt(uri: string): Promise<string | undefined> {
    return (await this.db('records').where({ uri }).first('json'))?.json;
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
    return this.db('records').where({ type, hidden: false }).orderBy('id').pluck('uri');
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
    if (!includeSuppressed) query.andWhere('r.suppressed', false);
    const rows = await query.distinct('r.uri', 'r.id').orderBy('r.id');
    return rows.map((r: { uri: string }) => r.uri);
  }
}
