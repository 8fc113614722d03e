import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import knexFactory, { Knex } from 'knex';
import { SAFETY_NET_PAGES, startCheckpointer } from './checkpointer';
import { groupedTransactions, transactionPerCall } from './transactions';
import { clusterWriteToken } from './write-token';
import { pipelineConnection } from './pipeline';
import type { TouchRules } from './transaction-memo';

import type { Database } from './database';

export type { Database, Dialect } from './database';
export { onMysql } from './dialect';
export { isRetryable, isUniqueViolation } from './store-errors';

/** The database product and its version, for /, `doctor` and logs. */
export async function databaseVersion(db: Database): Promise<{ product: string; version: string }> {
  if (db.dialect === 'sqlite') {
    return { product: 'SQLite', version: String((await db.reads.raw('select sqlite_version() as v'))[0].v) };
  }
  return { product: 'MySQL', version: String((await db.reads.raw('select version() as v'))[0][0].v) };
}

/** SQL true when a record is published and not suppressed, in each store's JSON dialect (records table). */
export function publishedClause(db: Database): string {
  return db.dialect === 'sqlite'
    ? "json_extract(json, '$.publish') = 1 AND suppressed = 0"
    : "JSON_EXTRACT(json, '$.publish') = true AND suppressed = 0";
}

/**
 * The records table under `alias`, for a join that only asks whether each record shows
 * (showingClause, type, repo_id): MySQL is told to read the narrow index of those columns
 * (migration 017), which it would otherwise pass over for the primary key and read whole rows.
 */
export function showingRecordsAs(db: Database, alias: string): string | Knex.Raw {
  return db.dialect === 'sqlite' ? `records as ${alias}` : db.knex.raw(`?? FORCE INDEX (records_shown)`, [`records as ${alias}`]);
}

/**
 * publishedClause for records joined through showingRecordsAs: on MySQL over the index's
 * `published` (the JSON's flag as a virtual column), read from the index. Elsewhere MySQL would
 * compute that column from the JSON, parsing it twice (JSON_VALID, then JSON_EXTRACT).
 */
export function showingClause(db: Database, alias: string): string {
  return db.dialect === 'sqlite' ? publishedClause(db) : `${alias}.published = 1 AND ${alias}.suppressed = 0`;
}

/** SQL for the text at a fixed JSON path (`$.level`) of a record's JSON, in each store's dialect; `path` is never user input. */
export function jsonTextSql(db: Database, path: string): string {
  return db.dialect === 'sqlite' ? `json_extract(json, '${path}')` : `JSON_UNQUOTE(JSON_EXTRACT(json, '${path}'))`;
}

/** Statements kept per SQLite connection; Knex emits the same few hundred SQL texts over and over. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Knex prepares every query anew on better-sqlite3, and preparing costs about as much as running
 * a small query (a profile of GET one record: 8% of the server's time). Statements are reusable:
 * Knex only calls all() or run() on them, which finish before returning, and SQLite re-prepares
 * one itself when the schema changes under it. The oldest entry goes when the cache is full.
 */
function cachePreparedStatements(conn: { prepare(sql: string): unknown }): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(sql, statement);
    }
    return statement;
  };
}

/**
 * The reads of one turn of the event loop share one read transaction on the read connection.
 * In WAL mode starting and ending a read transaction costs more than a small query itself
 * (about 5 µs against 2–4), and an authenticated GET makes two or three such reads, concurrent
 * requests of the same turn more. The snapshot ends before the loop turns (setImmediate) and at
 * once when this process writes (commits, and Knex's statements outside a transaction): a read
 * never misses a write of this process that finished before it. A commit of another process
 * during the turn is seen from the next turn; the requests of this turn were received before it
 * was answered, so they may see either state, as they would with any read order.
 */
class ReadSnapshot {
  private open: BetterSqlite3.Database | undefined;

  begin(conn: BetterSqlite3.Database): void {
    if (this.open) return;
    conn.prepare('BEGIN').run();
    this.open = conn;
    setImmediate(() => this.end());
  }

  end(): void {
    const conn = this.open;
    if (!conn) return;
    this.open = undefined;
    if (conn.open && conn.inTransaction) conn.prepare('COMMIT').run();
  }
}

/**
 * A read connection of a SQLite file store: it refuses to write (a write sent there by mistake
 * fails at once instead of taking the file's write lock beside the writer).
 */
function openReader(conn: BetterSqlite3.Database, cacheSize: number): BetterSqlite3.Database {
  conn.pragma('busy_timeout = 5000');
  conn.pragma('query_only = ON');
  conn.pragma(`cache_size = ${cacheSize}`);
  cachePreparedStatements(conn as unknown as { prepare(sql: string): unknown });
  return conn;
}

/** How long a request waits for a pooled connection (DB_WAIT_SECONDS, default 60) before it is answered 503. */
function storeWaitMs(): number {
  const seconds = Number(process.env.DB_WAIT_SECONDS || 60);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000;
}

/**
 * The page cache of each SQLite store connection, the writer's and the reader's (SQLITE_CACHE_MB,
 * default 4), as SQLite's cache_size. better-sqlite3 gives every connection 16 MB, which a bulk
 * load or an import fills and the process keeps: 4 MB took 22 MB off the server's peak RSS over
 * the bench's workloads, with the same create, GET and bulk rates (the OS keeps the file's pages too).
 */
function sqliteCacheSize(): number {
  const raw = process.env.SQLITE_CACHE_MB;
  const mb = raw === undefined || raw === '' ? 4 : Number(raw);
  if (!Number.isInteger(mb) || mb < 1 || mb > 65536) throw new Error(`SQLITE_CACHE_MB must be a whole number of megabytes from 1 to 65536, got ${raw}`);
  return -mb * 1024;
}

/**
 * How many read connections a SQLite file store opens for the reads outside transactions
 * (SQLITE_READ_CONNECTIONS, default the cores, from 2 to 8). better-sqlite3 answers each statement
 * before it returns, so a connection is busy only while a statement runs or a read holds it
 * across awaits (a streamed listing); more than one lets such reads overlap.
 */
function sqliteReadConnections(): number {
  const raw = process.env.SQLITE_READ_CONNECTIONS;
  if (raw === undefined || raw === '') return Math.min(8, Math.max(2, os.availableParallelism()));
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`SQLITE_READ_CONNECTIONS must be a whole number from 1 to 64, got ${raw}`);
  return n;
}

/** A request gave up waiting for a pooled connection (knex's KnexTimeoutError). */
export function isStoreBusy(err: unknown): boolean {
  return (err as Error)?.name === 'KnexTimeoutError';
}

/**
 * The MySQL server is gone or not serving: refused or lost connections, and a Galera node out of
 * the cluster's primary component (1047, "WSREP has not yet prepared node for application use").
 * The request is answered 503 with Retry-After: a load balancer tries another process, a client
 * tries again; the pool opens new connections once the server is back. mysql2 marks every error
 * that leaves its connection unusable `fatal`, among them the one a transaction's ROLLBACK gets on
 * a connection that died under it ("Can't add new command when connection is in closed state",
 * no code), which is what reaches the request when the server goes away mid-transaction.
 */
export function isStoreUnreachable(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; fatal?: boolean };
  return e?.errno === 1047 || e?.fatal === true
    || ['ECONNREFUSED', 'ECONNRESET', 'PROTOCOL_CONNECTION_LOST', 'ETIMEDOUT', 'EPIPE'].includes(e?.code ?? '');
}

/**
 * DB_URL forms: sqlite://./relative.db, sqlite:///absolute/path.db, sqlite://:memory:,
 * mysql://user:password@host:port/database (also mariadb://). A missing MySQL database is created.
 */
export async function connect(dbUrl: string): Promise<Database> {
  if (dbUrl.startsWith('sqlite://')) {
    const file = dbUrl.slice('sqlite://'.length);
    if (!file) throw new Error(`DB_URL ${dbUrl} names no file`);
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const cacheSize = sqliteCacheSize();
    const checkpointer = file === ':memory:' ? undefined : startCheckpointer(file);
    const knex = sqlitePool(file, 1, (conn) => {
      conn.pragma('journal_mode = WAL');
      conn.pragma('synchronous = NORMAL');
      conn.pragma('busy_timeout = 5000');
      conn.pragma('foreign_keys = ON');
      // Statement journals (a write that fires triggers or cascades keeps one so it can be
      // undone alone) in memory, not a temporary file per statement.
      conn.pragma('temp_store = MEMORY');
      conn.pragma(`cache_size = ${cacheSize}`);
      // Checkpoints run in their own thread (checkpointer.ts); this only bounds the WAL should it lag.
      if (checkpointer) conn.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
      cachePreparedStatements(conn);
    });
    // The reads outside transactions (listings, search, trees, exports, jobs, OAI, reports) on
    // connections of their own: in WAL mode they read the last commit while the writer holds a
    // transaction (an import), instead of queueing for the writer's one connection. A :memory:
    // store is one connection's alone, so there they share the writer's.
    const reads = file === ':memory:' ? knex : sqlitePool(file, sqliteReadConnections(), (conn) => openReader(conn, cacheSize));
    const onCommit: Array<() => void> = [];
    const touches: TouchRules = new Map();
    const onWrite = ownWrites(knex, onCommit);
    let reader: BetterSqlite3.Database | undefined;
    const snapshot = new ReadSnapshot();
    // A write of this process ends the snapshot as soon as it is committed: the reads after it see it.
    onWrite.push(() => snapshot.end());
    const readConnection = file === ':memory:' ? undefined : () => {
      if (!reader) {
        reader = openReader(new BetterSqlite3(file), cacheSize);
      }
      snapshot.begin(reader);
      return reader;
    };
    const close = async () => {
      snapshot.end();
      reader?.close();
      reader = undefined;
      if (reads !== knex) await reads.destroy();
      await knex.destroy();
      await checkpointer?.stop();
    };
    return { knex, reads, dialect: 'sqlite', describe: `sqlite ${file}`, transaction: groupedTransactions(knex, onCommit, storeWaitMs(), touches, file === ':memory:' ? undefined : clusterWriteToken()), touches, onCommit, onWrite, readConnection, close };
  }
  const match = /^(?:mysql|mariadb):\/\/(.*)$/.exec(dbUrl);
  if (match) {
    const url = new URL(`mysql://${match[1]}`);
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'archive';
    if (!/^[A-Za-z0-9_]+$/.test(database)) throw new Error(`DB_URL database name '${database}' must be letters, digits and _`);
    // ?socket=/run/mysqld/mysqld.sock: a server on the same machine through its Unix socket
    // (a statement's round trip over TCP loopback cost the server process about half its CPU in an import).
    const socketPath = url.searchParams.get('socket') || undefined;
    const connection = {
      ...(socketPath ? { socketPath } : { host: url.hostname || '127.0.0.1', port: Number(url.port || 3306) }),
      user: decodeURIComponent(url.username || 'root'),
      password: decodeURIComponent(url.password || ''),
      charset: 'utf8mb4',
      supportBigNumbers: true,
      timezone: 'Z',
    };
    const admin = knexFactory({ client: 'mysql2', connection, pool: { min: 0, max: 1 } });
    try {
      await admin.raw(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    } finally {
      await admin.destroy();
    }
    const knex = knexFactory({
      client: 'mysql2',
      // Several statements to a query: a write's batch (pipeline.ts). Values reach SQL only as
      // bindings, escaped by mysql2, never spliced into its text.
      connection: { ...connection, database, multipleStatements: true },
      pool: {
        min: 0,
        max: Number(process.env.DB_POOL_MAX || 10),
        // Listings' ids are joined by the server (RecordQueries.listIds): 1 KB by default, 16 MB here.
        afterCreate: (conn: { query(sql: string, cb: (err: Error | null, results?: unknown) => void): void; execute(...args: unknown[]): unknown }, done: (err: Error | null, conn: unknown) => void) => {
          // One round trip: the session's setting, and whether the server is a Galera node (SHOW
          // answers no row where there is no such variable, as on MySQL). No pipeline on a Galera node: a
          // transaction that another node's write aborts in the middle of a batch of several
          // statements had the rest of the batch run without it, and its COMMIT answered OK (two
          // conflicting updates, or two creates of one identifier, through two nodes both answered
          // 200: test/galera, 3 runs of 12 with batches, none of 20 without). There each statement
          // goes on its own, and the abort reaches the write as a deadlock.
          conn.query("SET SESSION group_concat_max_len = 16777216; SHOW GLOBAL VARIABLES LIKE 'wsrep_on'", (err, results) => {
            if (err) return done(err, conn);
            const wsrep = (results as [unknown, Array<{ Value?: string }>])[1];
            if (String(wsrep?.[0]?.Value ?? 'OFF').toUpperCase() !== 'ON') pipelineConnection(conn);
            done(null, conn);
          });
        },
      },
      acquireConnectionTimeout: storeWaitMs(),
    });
    const onCommit: Array<() => void> = [];
    const touches: TouchRules = new Map();
    const onWrite = ownWrites(knex, onCommit);
    return { knex, reads: knex, dialect: 'mysql', describe: socketPath ? `mysql ${database} through ${socketPath}` : `mysql ${url.hostname || '127.0.0.1'}:${url.port || 3306}/${database}`, transaction: transactionPerCall(knex, onCommit, touches), touches, onCommit, onWrite, close: () => knex.destroy() };
  }
  throw new Error(`DB_URL must start with sqlite:// or mysql:// (got ${dbUrl})`);
}

/** Database.onWrite: told of every commit of `onCommit` and of every statement other than a SELECT that Knex answers. */
function ownWrites(knex: Knex, onCommit: Array<() => void>): Array<() => void> {
  const onWrite: Array<() => void> = [];
  const tell = () => { for (const listener of onWrite) listener(); };
  onCommit.push(tell);
  knex.on('query-response', (_response: unknown, query: { sql?: string }) => {
    if (!/^\s*select/i.test(query.sql ?? '')) tell();
  });
  return onWrite;
}

/** A Knex pool of up to `max` connections to a SQLite file, each set up by `prepare` when opened. */
function sqlitePool(file: string, max: number, prepare: (conn: BetterSqlite3.Database) => void): Knex {
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    acquireConnectionTimeout: storeWaitMs(),
    pool: {
      min: 1,
      max,
      afterCreate: (conn: BetterSqlite3.Database, done: (err: Error | null, conn: BetterSqlite3.Database) => void) => {
        prepare(conn);
        done(null, conn);
      },
    },
  });
}
