/**
 * A SQLite file of derived data kept beside the store (the embedded search index), opened as the
 * store opens its own: WAL, so readers in other processes never wait for the writer, and WAL
 * checkpoints in a thread of their own (checkpointer.ts). What the file holds is its owner's.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type Checkpointer, SAFETY_NET_PAGES, startCheckpointer } from './checkpointer';

export type SqliteFile = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;

/** Opens (creating it and its folder if need be) a SQLite file; `:memory:` gives one in memory, with no checkpoint thread. */
export function openSqliteFile(file: string): { db: SqliteFile; checkpointer?: Checkpointer } {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  if (file === ':memory:') return { db };
  // Checkpoints (copying the WAL into the file, and their fsyncs) in a thread of their own, not
  // inside the writer's commits; the writer's automatic checkpoint stays as a bound on the WAL.
  const checkpointer = startCheckpointer(file);
  db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  return { db, checkpointer };
}
