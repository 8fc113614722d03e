import type { Queryable } from './dialect';
import type { Database } from './database';
import { committedRows } from './statements';
import { type KeptReader, untilNextWrite } from './until-next-write';
import { flagsOf, normalise, type RecordGetter, type RecordRow, ROW_COLUMNS, rowsOfUris } from './record-rows';

/** The last change-log entry (0 when empty): any record written since moves it. */
export async function changeLogHead(knex: Queryable): Promise<number> {
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
 * until the next write (until-next-write.ts), at the freshness of the asking request (its `readScope`).
 */
export function recordReads(reader: KeptReader): RecordGetter {
  const { db } = reader;
  const conn = db.readConnection?.();
  if (!conn) {
    const reads = turnBatchedReads(db);
    return reader.readScope ? { get: (type, id) => reads.get(type, id, reader), getByUris: reads.getByUris } : reads;
  }
  return {
    get: async (type, id) => flagsOf(conn.prepare(`SELECT ${ROW_COLUMNS} FROM records WHERE type = ? AND id = ? AND +pending_job IS NULL LIMIT 1`).get(type, id) as RecordRow | undefined),
    getByUris: async (uris) => {
      const rows: unknown[] = [];
      // One statement per list length up to 50 (the connection keeps them prepared), then chunks.
      for (let i = 0; i < uris.length; i += 50) {
        const chunk = uris.slice(i, i + 50);
        // `+pending_job`: not records_pending_job's index (see pending.ts visibleSql).
        rows.push(...conn.prepare(`SELECT * FROM records WHERE uri IN (${chunk.map(() => '?').join(',')}) AND +pending_job IS NULL`).all(...chunk));
      }
      return rows.map(normalise) as RecordRow[];
    },
  };
}

/** Records by id read in one statement at most (the rest in further statements). */
const GETS_BATCHED = 16;

interface ScopedGetter extends RecordGetter {
  get(type: string, id: number, reader?: KeptReader): ReturnType<RecordGetter['get']>;
}

const batchedReads = new WeakMap<Database, ScopedGetter>();

/**
 * The pool's record getter, where the records asked for by id in one turn of the event loop are
 * read in one statement per type: a statement costs the app process a socket write and the
 * database a thread's wake-up (a CPU profile of GET one on MariaDB at 8 connections: 15 % of the
 * server in that write), and concurrent GETs that arrive together share one. Answers what a
 * statement of its own would (the statement is issued after every request of the turn arrived).
 */
function turnBatchedReads(db: Database): ScopedGetter {
  let reads = batchedReads.get(db);
  if (reads) return reads;
  type Waiting = { id: number; resolve: (row: RecordRow | undefined) => void; reject: (err: unknown) => void };
  let waiting = new Map<string, Waiting[]>();
  const readType = async (type: string, asked: Waiting[]) => {
    const ids = [...new Set(asked.map((w) => w.id))];
    const rows = new Map<number, RecordRow>();
    for (let i = 0; i < ids.length; i += GETS_BATCHED) {
      const chunk = ids.slice(i, i + GETS_BATCHED);
      const found = await committedRows(db, `SELECT * FROM \`records\` WHERE \`type\` = ? AND \`id\` IN (${chunk.map(() => '?').join(', ')}) AND +\`pending_job\` IS NULL`, [type, ...chunk]);
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
    get: async (type, id, reader = { db }) => {
      const kept = await untilNextWrite(reader);
      const key = `row:${type}:${id}`;
      const known = kept.get<RecordRow | null>(key);
      if (known !== undefined) return known ?? undefined;
      const row = await readInTurn(type, id);
      kept.set(key, row ?? null, row ? 1 + (row.json.length >> 10) : 1);
      return row;
    },
    getByUris: (uris) => rowsOfUris(db.reads, uris),
  };
  batchedReads.set(db, reads);
  return reads;
}
