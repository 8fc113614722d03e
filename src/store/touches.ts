import type { Knex } from 'knex';
import type { TypeInfo } from '../registry/types';
import type { Database } from './database';
import type { Queryable } from './dialect';
import { lockedRead } from './record-rows';
import { Statements } from './statements';
import { takeTouchCollector, type TouchCollector, touchCollector, type TouchStep } from './transaction-memo';

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

/** The records one step leads to from the records at `uris`. */
async function stepFrom(db: Queryable, uris: string[], step: TouchStep): Promise<string[]> {
  const found = new Set<string>();
  for (let i = 0; i < uris.length; i += ASKED) {
    const chunk = uris.slice(i, i + ASKED);
    const rows: Array<{ uri: string | null }> = 'root' in step
      ? await db('records').whereIn('uri', chunk).whereNotNull('root_uri').distinct('root_uri as uri')
      : await db('record_refs as x').join('records as r', 'r.rid', 'x.from_rid')
        .whereIn('x.to_uri', chunk).andWhere('r.type', step.linkedFrom).distinct('r.uri as uri');
    for (const row of rows) if (row.uri) found.add(row.uri);
  }
  return [...found];
}

/** Where each path of `type` leads from the records at `uris`, added to the collector's targets. */
async function collectTargets(db: Queryable, collector: TouchCollector, type: string, uris: string[]): Promise<void> {
  for (const path of collector.rules.get(type) ?? []) {
    let frontier = uris;
    for (const step of path) {
      if (!frontier.length) break;
      frontier = await stepFrom(db, frontier, step);
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
  for (const [type, uris] of byType(collector.changed)) await collectTargets(trx, collector, type, uris);
  // In one order: two transactions touching the same records lock them in turn, not crosswise.
  const uris = [...collector.targets].filter((uri) => !collector.written.has(uri)).sort();
  const touched: Array<{ type: string; uri: string }> = [];
  if (!uris.length) return { touched, atMs };
  const st = await Statements.of(trx);
  const mtime = isoSecondsOf(atMs);
  for (let i = 0; i < uris.length; i += ASKED) {
    const chunk = uris.slice(i, i + ASKED);
    const rows = await st.all<{ rid: number; type: string; uri: string; json: string }>(
      `SELECT \`rid\`, \`type\`, \`uri\`, \`json\` FROM \`records\` WHERE \`uri\` IN (${chunk.map(() => '?').join(', ')}) ORDER BY \`uri\`${lockedRead(trx)}`, chunk);
    for (const row of rows) {
      const record = JSON.parse(row.json);
      record.system_mtime = mtime;
      await st.update('records', { json: JSON.stringify(record), system_mtime_ms: atMs }, { rid: Number(row.rid) });
      touched.push({ type: row.type, uri: row.uri });
    }
  }
  return { touched, atMs };
}
