import zlib from 'node:zlib';
import { type Database, type Handle, readsOf, sqlOf } from './database';
import type { Queryable } from './dialect';
import { logicalPosition, parentKey } from './positions';
import { writeSourceOf } from './write-source';

/**
 * The versions of records the store keeps (migration 020): a write that replaces a record's row
 * (a new lock_version) or deletes it keeps the row it replaces, with who replaced it, when and
 * through what (write-source.ts). The JSON is written as it is, one plain INSERT on the write's
 * path, and deflated in the background (compactHistory): compressing it in the write cost an
 * update more than the INSERT did. A created record keeps nothing: its first
 * version is the record itself. Read by records/history.ts; pruned by pruneHistory.
 */

export interface HistoryPolicy {
  /** Whether writes keep versions at all (HISTORY=off: none). */
  keep: boolean;
  /** Versions kept per record besides the current one; 0: all. */
  keepVersions: number;
  /** Versions replaced longer ago than this many days are pruned; 0: never. */
  keepDays: number;
}

const KEEP_ALL: HistoryPolicy = { keep: true, keepVersions: 0, keepDays: 0 };

/** Per store (its Knex client's configuration, which the clients of its transactions share): the services set it from the configuration. */
const policies = new WeakMap<object, HistoryPolicy>();

export function setHistoryPolicy(h: Handle, policy: HistoryPolicy): void {
  policies.set(sqlOf(h).client.config, policy);
}

export function historyPolicy(db: Queryable): HistoryPolicy {
  return policies.get(db.client.config) ?? KEEP_ALL;
}

/** How a version ended: replaced by an update, rewritten by the server (a link dropped, a subtree carried), replaced by an import's copy, deleted. */
export type ReplacedHow = 'update' | 'rewrite' | 'replace' | 'delete';

/** The row a write replaces, as far as its kept version needs it. */
export interface ReplacedRow {
  type: string;
  id: number;
  uri: string;
  lock_version: number;
  json: string;
}

/** A kept version as the table holds it. */
export interface VersionRow {
  hid: number;
  type: string;
  id: number;
  lock_version: number;
  uri: string;
  json: string;
  replaced_ms: number;
  replaced_by: string | null;
  replaced_via: string | null;
  replaced_how: ReplacedHow;
  parent_uri: string | null;
  position: number | null;
}

/** The row that keeps `replaced` (undefined when the store keeps no history); `place`: a deleted tree node's. */
export function versionRow(db: Queryable, replaced: ReplacedRow, how: ReplacedHow, place?: { parent_uri: string | null; position: number | null }): object | undefined {
  if (!historyPolicy(db).keep) return undefined;
  const source = writeSourceOf(db);
  // One shape for every row (rows are held and inserted together: statements.ts insertMany).
  return {
    type: replaced.type,
    id: replaced.id,
    lock_version: replaced.lock_version,
    uri: replaced.uri,
    json: Buffer.from(replaced.json),
    deflated: false,
    replaced_ms: Date.now(),
    replaced_by: source?.by ?? null,
    replaced_via: source?.via.slice(0, 255) ?? null,
    replaced_how: how,
    parent_uri: place?.parent_uri ?? null,
    position: place?.position ?? null,
  };
}

/** The kept versions of the records with row ids `rids`, about to be deleted (their tree places with them). */
export async function deletedVersionRows(db: Queryable, rids: number[]): Promise<object[]> {
  if (!historyPolicy(db).keep) return [];
  const rows: object[] = [];
  for (let i = 0; i < rids.length; i += 500) {
    const found = await db('records as r').leftJoin('records as p', 'p.rid', 'r.parent_rid').whereIn('r.rid', rids.slice(i, i + 500))
      .select('r.type', 'r.id', 'r.uri', 'r.lock_version', 'r.json', 'r.position', 'r.parent_key', 'p.uri as parent_uri');
    for (const r of found) {
      const place = r.parent_key === null ? undefined : { parent_uri: r.parent_uri ?? null, position: Number(r.position) };
      rows.push(versionRow(db, { type: r.type, id: Number(r.id), uri: r.uri, lock_version: Number(r.lock_version), json: r.json }, 'delete', place)!);
    }
  }
  return rows;
}

function versionOf(row: Record<string, unknown>): VersionRow {
  return {
    hid: Number(row.hid),
    type: String(row.type),
    id: Number(row.id),
    lock_version: Number(row.lock_version),
    uri: String(row.uri),
    json: (row.deflated ? zlib.inflateRawSync(row.json as Buffer) : (row.json as Buffer)).toString(),
    replaced_ms: Number(row.replaced_ms),
    replaced_by: (row.replaced_by as string | null) ?? null,
    replaced_via: (row.replaced_via as string | null) ?? null,
    replaced_how: row.replaced_how as ReplacedHow,
    parent_uri: (row.parent_uri as string | null) ?? null,
    position: row.position === null || row.position === undefined ? null : Number(row.position),
  };
}

/** The kept versions of a record, newest first (a lock_version kept twice, by an import's copy: the later first). */
function versionsOf(h: Handle, type: string, id: number) {
  return readsOf(h)('record_history').where({ type, id }).orderBy([
    { column: 'lock_version', order: 'desc' }, { column: 'replaced_ms', order: 'desc' }, { column: 'hid', order: 'desc' },
  ]);
}

export async function countVersions(h: Handle, type: string, id: number): Promise<number> {
  return Number((await readsOf(h)('record_history').where({ type, id }).count({ n: '*' }).first())?.n ?? 0);
}

/** `limit` kept versions of a record from the `offset`-th, newest first. */
export async function listVersions(h: Handle, type: string, id: number, offset: number, limit: number): Promise<VersionRow[]> {
  return (await versionsOf(h, type, id).offset(offset).limit(limit)).map(versionOf);
}

/** The kept version of a record with `lockVersion` (the one kept last, should there be two). */
export async function keptVersion(h: Handle, type: string, id: number, lockVersion: number): Promise<VersionRow | undefined> {
  const row = await versionsOf(h, type, id).where({ lock_version: lockVersion }).first();
  return row ? versionOf(row) : undefined;
}

/** The lowest lock_version above `lockVersion` among a record's kept versions. */
export async function nextKeptLockVersion(h: Handle, type: string, id: number, lockVersion: number): Promise<number | undefined> {
  const row = await readsOf(h)('record_history').where({ type, id }).andWhere('lock_version', '>', lockVersion).min('lock_version as n').first();
  return row?.n === null || row?.n === undefined ? undefined : Number(row.n);
}

/** The version of a record kept last: where a deleted record's history ends. */
export async function latestVersion(h: Handle, type: string, id: number): Promise<VersionRow | undefined> {
  const row = await readsOf(h)('record_history').where({ type, id })
    .orderBy([{ column: 'replaced_ms', order: 'desc' }, { column: 'lock_version', order: 'desc' }, { column: 'hid', order: 'desc' }]).first();
  return row ? versionOf(row) : undefined;
}

/** Versions compactHistory deflates per transaction. */
const DEFLATED_AT_ONCE = 200;

/** Rows below this id were all deflated by this process's last pass (ids only grow): the next pass starts there. */
const deflatedBelow = new WeakMap<object, number>();

/**
 * Deflates the JSON of the versions kept since the last pass, a transaction per DEFLATED_AT_ONCE.
 * Each row is written again as a new row (a new hid) rather than shrunk in place: SQLite appends
 * rows at the end of the table and never reuses the room a row shrunk in place leaves in its page,
 * so the store kept the plain size; pages whose rows all moved are reused whole. Order among a
 * record's versions therefore goes by replaced_ms, not hid. Answers how many were deflated.
 */
export async function compactHistory(db: Database): Promise<number> {
  let from = deflatedBelow.get(db) ?? 0;
  let done = 0;
  for (;;) {
    const rows: Array<Record<string, unknown> & { hid: number; json: Buffer }> = await db.knex('record_history')
      .where('hid', '>=', from).andWhere({ deflated: false }).orderBy('hid').limit(DEFLATED_AT_ONCE).select('*');
    if (!rows.length) break;
    await db.transaction(async (trx) => {
      await trx('record_history').whereIn('hid', rows.map((r) => r.hid)).delete();
      const deflated = rows.map(({ hid: _hid, ...row }) => ({ ...row, json: zlib.deflateRawSync(row.json), deflated: true }));
      for (let i = 0; i < deflated.length; i += 50) await trx('record_history').insert(deflated.slice(i, i + 50));
    });
    done += rows.length;
    from = Number(rows[rows.length - 1].hid) + 1;
    deflatedBelow.set(db, from);
  }
  return done;
}

/** Versions a round of pruning deletes at most per statement: a long prune never holds the store for long. */
const PRUNED_AT_ONCE = 1000;

/**
 * Deletes the versions the policy no longer keeps: replaced more than keepDays ago, and beyond the
 * keepVersions newest of each record. Answers how many went.
 */
export async function pruneHistory(h: Handle, policy: HistoryPolicy, nowMs = Date.now()): Promise<number> {
  const db = sqlOf(h);
  let pruned = 0;
  const deleteHids = async (hids: number[]) => {
    if (hids.length) pruned += await db('record_history').whereIn('hid', hids).delete();
    return hids.length;
  };
  if (policy.keepDays > 0) {
    const before = nowMs - policy.keepDays * 86_400_000;
    while (await deleteHids((await db('record_history').where('replaced_ms', '<', before).limit(PRUNED_AT_ONCE).pluck('hid')).map(Number)) === PRUNED_AT_ONCE);
  }
  if (policy.keepVersions > 0) {
    const ranked = db('record_history')
      .select('hid', db.raw('ROW_NUMBER() OVER (PARTITION BY `type`, `id` ORDER BY `lock_version` DESC, `replaced_ms` DESC, `hid` DESC) AS `n`'));
    const beyond = () => db.from(ranked.as('v')).where('n', '>', policy.keepVersions).limit(PRUNED_AT_ONCE).pluck('hid');
    while (await deleteHids((await beyond()).map(Number)) === PRUNED_AT_ONCE);
  }
  return pruned;
}

/**
 * Where a deleted tree node kept at `position` under `parentUri` (null, or a parent deleted since:
 * the top of the tree at `rootUri`) goes back now: its index among the siblings there.
 */
export async function indexAmongSiblingsNow(h: Handle, rootUri: string, parentUri: string | null, position: number): Promise<number> {
  const db = sqlOf(h);
  const parent = parentUri ? await db('records').where({ uri: parentUri }).first('rid') : undefined;
  return logicalPosition(db, { rid: 0, parent_rid: null, parent_key: parentKey(rootUri, parent ? Number(parent.rid) : null), position, root_uri: rootUri });
}
