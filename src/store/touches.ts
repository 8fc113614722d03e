import type { Knex } from 'knex';
import type { TypeInfo } from '../registry/types';
import type { Database } from './database';
import type { Queryable } from './dialect';
import { lockedRead } from './record-rows';
import { Statements } from './statements';
import { type LockedRow, takeTouchCollector, type TouchCollector, touchCollector, type TouchRules, type TouchStep, transactionMemo } from './transaction-memo';
import { visibleArgs } from './pending';

/**
 * ArchivesSpace's touch of related records (its TouchRecords mixin): a change to a record of a
 * touching type (x-archive.touches) gives the records its paths lead to a new system_mtime, not a
 * new lock_version, so that modified_since, OAI-PMH `from` and the change log see a collection
 * whenever anything in it changed. Done here, where every write enters the change log
 * (DerivedRows.appendChanges), so no write path can forget it: the targets are collected through
 * the transaction (once each: an import of thousands of components touches its resource once) and
 * touched when it ends.
 */

/** URIs per statement when following a path (see LINKS_ASKED in records.ts: larger lists made MariaDB read the whole table). */
const ASKED = 100;

/** Changed records whose targets are looked for together when the transaction ends. */
const CHANGED_AT_ONCE = 1000;

function parseStep(step: string): TouchStep {
  if (step === 'root') return { root: true };
  return { linkedFrom: step.slice('linkedFrom:'.length) };
}

/** The store follows the registry's touch paths from now on (the map is the one its transactions read). */
export function declareTouches(db: Database, types: Record<string, TypeInfo>): void {
  db.touches.clear();
  for (const type of Object.values(types)) {
    if (type.touches?.length) db.touches.set(type.name, type.touches.map((path) => path.map(parseStep)));
  }
}

/** The locked read of the records a touch rewrites, `inner` the list of URIs (placeholders or a subquery). */
function lockedReadSql(inner: string, locked: string): string {
  return `SELECT \`rid\`, \`type\`, \`uri\`, \`json\` FROM \`records\` WHERE \`uri\` IN (${inner}) ORDER BY \`uri\`${locked}`;
}

/** Some path of `rules` ends at a tree's root: a write of a tree node likely touches its root. */
function rootsTouched(rules: TouchRules): boolean {
  for (const paths of rules.values()) for (const path of paths) if ('root' in (path[path.length - 1] ?? {})) return true;
  return false;
}

/**
 * MySQL, a batched transaction (a single write, pipeline.ts) placing a node in the tree under
 * `rootUri`: the root's locked read its touch will need, to send with the batch that locks the
 * node's sibling group (positions.ts), so that the touch costs no round trip of its own (issue
 * 51 item 2); undefined where no touch of a root is collected or it is read already. The root is
 * then locked from the group's lock on instead of from the touch on: one round trip earlier.
 */
export function rootReadForTouch(db: Queryable, st: Statements, rootUri: string): { sql: string; params: string[]; read: true } | undefined {
  const collector = touchCollector(db as Knex);
  if (!st.pipelined || !collector || collector.lockedRows.has(rootUri) || !rootsTouched(collector.rules)) return undefined;
  return { sql: lockedReadSql('?', ' FOR UPDATE'), params: [rootUri], read: true };
}

/**
 * MySQL, a single write updating record `type` `id` whose change touches its tree's root: the
 * root's locked read, to send with the read of the record's row (RecordQueries.getToUpdate), so
 * that the touch costs no round trip of its own. Undefined elsewhere.
 */
export function rootOfRowReadForTouch(db: Queryable, st: Statements, type: string, id: number): { sql: string; params: Array<string | number>; read: true } | undefined {
  const collector = touchCollector(db as Knex);
  const paths = collector?.rules.get(type) ?? [];
  if (!st.pipelined || !paths.some((path) => path.length === 1 && 'root' in path[0])) return undefined;
  const root = 'SELECT `root_uri` FROM `records` WHERE `type` = ? AND `id` = ? AND `root_uri` IS NOT NULL';
  return { sql: lockedReadSql(root, ' FOR UPDATE'), params: [type, id], read: true };
}

/** Rows read locked with an earlier batch (rootReadForTouch): the touch uses them instead of reading them again. */
export function noteLockedRows(db: Queryable, rows: LockedRow[]): void {
  const collector = touchCollector(db as Knex);
  for (const r of rows) collector?.lockedRows.set(r.uri, { rid: Number(r.rid), type: r.type, uri: r.uri, json: r.json });
}

/** The records one step leads to from the records at `uris` (`last`: the step's records are targets of the touch). */
async function stepFrom(db: Queryable, collector: TouchCollector, uris: string[], step: TouchStep, last: boolean): Promise<string[]> {
  const found = new Set<string>();
  if ('root' in step) {
    // A tree node this transaction created and placed: its root is known (RecordQueries.insert, putInPlace).
    const inserted = transactionMemo(db as Knex)?.inserted;
    const known = uris.map((uri) => inserted?.get(uri)?.root_uri);
    for (const root of known) if (root) found.add(root);
    uris = uris.filter((_, i) => !known[i]);
  }
  const st = await Statements.of(db);
  for (let i = 0; i < uris.length; i += ASKED) {
    const chunk = uris.slice(i, i + ASKED);
    if ('root' in step && last && st.pipelined) {
      // A single write on MySQL: the roots' rows read locked at once, in the round trip that finds
      // them (the touch then reads nothing); a root that is no record is found by neither read.
      const where = `SELECT \`root_uri\` FROM \`records\` WHERE \`uri\` IN (${chunk.map(() => '?').join(', ')}) AND \`root_uri\` IS NOT NULL`;
      const rows = await st.all<LockedRow>(lockedReadSql(where, ' FOR UPDATE'), chunk);
      for (const row of rows) {
        collector.lockedRows.set(row.uri, { rid: Number(row.rid), type: row.type, uri: row.uri, json: row.json });
        found.add(row.uri);
      }
      continue;
    }
    // The root step as a fixed statement: on MySQL it carries what the transaction kept (Statements.defer) in its round trip.
    const rows: Array<{ uri: string | null }> = 'root' in step
      ? await st.all(`SELECT DISTINCT \`root_uri\` AS \`uri\` FROM \`records\` WHERE \`uri\` IN (${chunk.map(() => '?').join(', ')}) AND \`root_uri\` IS NOT NULL`, chunk)
      // Another client's change touches no record an import has not published yet (pending.ts).
      : await db('record_refs as x').join('records as r', 'r.rid', 'x.from_rid').whereRaw(...visibleArgs(db, 'r'))
        .whereIn('x.to_uri', chunk).andWhere('r.type', step.linkedFrom).distinct('r.uri as uri');
    for (const row of rows) if (row.uri) found.add(row.uri);
  }
  return [...found];
}

/** Where each path of `type` leads from the records at `uris`, added to the collector's targets. */
async function collectTargets(db: Queryable, collector: TouchCollector, type: string, uris: string[]): Promise<void> {
  for (const path of collector.rules.get(type) ?? []) {
    let frontier = uris;
    for (const [i, step] of path.entries()) {
      if (!frontier.length) break;
      frontier = await stepFrom(db, collector, frontier, step, i === path.length - 1);
    }
    for (const uri of frontier) collector.targets.add(uri);
  }
}

/** Groups records by type. */
function byType(records: Iterable<[string, string]>): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const [uri, type] of records) {
    const list = groups.get(type);
    if (list) list.push(uri);
    else groups.set(type, [uri]);
  }
  return groups;
}

/**
 * Records about to be deleted: what they touch is found now, while their rows and links exist.
 * The caller has written the rows its transaction held back (links among them).
 */
export async function noteTouchesOfDeletions(db: Queryable, rows: Array<{ rid: number; type: string; uri: string }>): Promise<void> {
  const collector = touchCollector(db as Knex);
  if (!collector) return;
  const fresh = rows.filter((r) => !collector.deletionsNoted.has(r.rid));
  for (const r of fresh) collector.deletionsNoted.add(r.rid);
  const touching = fresh.filter((r) => collector.rules.has(r.type)).map((r): [string, string] => [r.uri, r.type]);
  for (const [type, uris] of byType(touching)) await collectTargets(db, collector, type, uris);
}

/** A record about to be deleted by row id (see noteTouchesOfDeletions): its type and URI read only where touches are collected. */
export async function noteTouchesOfDeletion(db: Queryable, rid: number): Promise<void> {
  const collector = touchCollector(db as Knex);
  if (!collector || collector.deletionsNoted.has(rid)) return;
  const row = await db('records').where({ rid }).first('type', 'uri');
  if (row) await noteTouchesOfDeletions(db, [{ rid, type: row.type, uri: row.uri }]);
}

/** The reference's seconds-precision UTC text of a time (records/context isoSeconds writes the same). */
function isoSecondsOf(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Touches what the transaction's changes lead to, other than records it wrote itself: a new
 * system_mtime in the row and in its JSON (GET shows it), lock_version left alone. Read as
 * committed and held (MySQL: FOR UPDATE), so a save of the target committed meanwhile is not
 * overwritten with the JSON it replaced. Answers the records touched and when, for their
 * change-log entries (the caller appends them: the indexer rebuilds their documents). The caller
 * has written the rows its transaction held back.
 */
export async function applyTouches(trx: Knex.Transaction): Promise<{ touched: Array<{ type: string; uri: string }>; atMs: number }> {
  const atMs = Date.now();
  const collector = takeTouchCollector(trx);
  if (!collector) return { touched: [], atMs };
  // A thousand changed records at a time: the URIs of an import's tens of thousands are not all made at once.
  for (const [type, list] of collector.changed) for (const uris of list.slices(CHANGED_AT_ONCE)) await collectTargets(trx, collector, type, uris);
  // In one order: two transactions touching the same records lock them in turn, not crosswise.
  const uris = [...collector.targets].filter((uri) => !collector.written.has(uri)).sort();
  const touched: Array<{ type: string; uri: string }> = [];
  if (!uris.length) return { touched, atMs };
  const st = await Statements.of(trx);
  const mtime = isoSecondsOf(atMs);
  // Rows read locked with an earlier batch are not read again (rootReadForTouch, stepFrom).
  const held = uris.filter((uri) => collector.lockedRows.has(uri));
  const unread = uris.filter((uri) => !collector.lockedRows.has(uri));
  const batches: LockedRow[][] = [held.map((uri) => collector.lockedRows.get(uri)!)];
  for (let i = 0; i < unread.length; i += ASKED) {
    const chunk = unread.slice(i, i + ASKED);
    batches.push(await st.all<LockedRow>(lockedReadSql(chunk.map(() => '?').join(', '), lockedRead(trx)), chunk));
  }
  for (const row of batches.flat()) {
    const record = JSON.parse(row.json);
    record.system_mtime = mtime;
    await st.deferUpdate('records', { json: JSON.stringify(record), system_mtime_ms: atMs }, { rid: Number(row.rid) });
    touched.push({ type: row.type, uri: row.uri });
  }
  return { touched, atMs };
}
