import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { Database } from './database';
import { onMysql } from './dialect';
import { type Kept, pipelineOf } from './pipeline';

/** What a statement that writes tells: rows changed, and the id a one-row insert gave its row. */
export interface RunResult {
  changes: number;
  lastInsertId: number;
}

type Value = string | number | bigint | boolean | null | Buffer;
type Row = Record<string, Value | undefined>;

/**
 * The fixed statements of a record write (the record, its keys, lookups, links and change-log
 * entry) without Knex's query builder: Knex built and compiled each of them anew, about a tenth of
 * a create's CPU and a third of a bulk load's (profiles of bench/write-profile.ts). The SQL is
 * written once in text both stores read (backquoted names, `?` parameters) and kept per shape of
 * row; inside a transaction it runs straight on the transaction's connection, where statements
 * stay prepared (connect.ts on SQLite, mysql2's own cache on MySQL). Outside a transaction, on
 * MySQL each statement runs the same way on a connection borrowed from the pool for it (mysql2
 * keeps it prepared per connection); on SQLite through knex.raw, in the pool's turn (its one
 * connection may be inside someone else's transaction).
 */
export class Statements {
  private constructor(
    private readonly knex: Knex | Knex.Transaction,
    private readonly conn: BetterSqlite3.Database | undefined,
    /** On MySQL: runs a statement as a prepared one, on the transaction's connection or a pooled one. */
    private readonly mysql: (<T>(sql: string, params: Value[]) => Promise<T>) | undefined,
    /** On MySQL in a transaction: its connection (pipeline.ts). */
    private readonly mysqlConn?: object,
  ) {}

  /**
   * SQLite: one writer at a time, so the ids a transaction takes (change_log's sequence) are never
   * passed by another transaction's commit, however early it takes them. On MySQL an id taken
   * early is a hole until the commit, which a follower of the change log reads past after a while.
   */
  get oneWriter(): boolean {
    return this.mysql === undefined;
  }

  /** MySQL in a batched transaction of Database.transaction (pipeline.ts): statements may be kept and batched. */
  get pipelined(): boolean {
    return this.pipe() !== undefined;
  }

  /** The transaction's pipeline where statements may be kept for later (MySQL, Database.transaction). */
  private pipe() {
    return this.mysqlConn ? pipelineOf(this.mysqlConn) : undefined;
  }

  /**
   * A statement whose answer the write does not need: on MySQL in a transaction of
   * Database.transaction sent with the connection's next statement or its COMMIT (pipeline.ts),
   * else now. `onError`: what an error means if it is this statement's (else undefined).
   */
  async defer(sql: string, params: Value[], onError?: Kept['onError']): Promise<void> {
    const pipe = this.pipe();
    if (pipe) return pipe.keep(sql, params, onError);
    try {
      await this.run(sql, params);
    } catch (err) {
      throw (await onError?.(err)) ?? err;
    }
  }

  /** defer() of insertMany's statements (`o` as insertMany's). */
  async deferInsertMany(table: string, objects: object[], onError?: Kept['onError'], o: { skipDuplicates?: boolean } = {}): Promise<void> {
    if (!this.pipe()) {
      try {
        await this.insertMany(table, objects, o);
      } catch (err) {
        throw (await onError?.(err)) ?? err;
      }
      return;
    }
    for (const { sql, params } of insertStatements(table, objects, this.skipOn(o.skipDuplicates))) await this.defer(sql, params, onError);
  }

  /** The dialect of insertMany's skipDuplicates for this store. */
  private skipOn(skipDuplicates: boolean | undefined): 'mysql' | 'sqlite' | undefined {
    return skipDuplicates ? (this.mysql ? 'mysql' : 'sqlite') : undefined;
  }

  /** defer() of a statement that must change `rows` rows, else the write fails with `failure()`. */
  async deferChecked(sql: string, params: Value[], rows: number, failure: () => Error): Promise<void> {
    const pipe = this.pipe();
    if (!pipe) {
      if ((await this.run(sql, params)).changes !== rows) throw failure();
      return;
    }
    pipe.keep(sql, params);
    pipe.keepCheck(rows, failure);
  }

  /** Sends what is kept with the COMMIT, where statements are kept (pipeline.ts); the transaction's own COMMIT then costs nothing. */
  async commitKept(): Promise<void> {
    await this.pipe()?.commit();
  }

  /** defer() of update(). */
  deferUpdate(table: string, fields: object, where: Row): Promise<void> {
    const { sql, params } = updateStatement(table, fields, where);
    return this.defer(sql, params);
  }

  /**
   * Statements run in order, in one round trip on MySQL in a transaction (pipeline.ts): a read's
   * rows, a write's RunResult.
   */
  async batch(statements: Array<{ sql: string; params: Value[]; read?: boolean }>): Promise<unknown[]> {
    const pipe = this.pipe();
    if (!pipe) {
      const out: unknown[] = [];
      for (const s of statements) out.push(s.read ? await this.all(s.sql, s.params) : await this.run(s.sql, s.params));
      return out;
    }
    const results = await pipe.send(statements);
    return results.map((r, i) => {
      if (statements[i].read) return r;
      const header = r as { affectedRows?: number; insertId?: number };
      return { changes: Number(header.affectedRows ?? 0), lastInsertId: Number(header.insertId ?? 0) };
    });
  }

  static async of(db: Knex | Knex.Transaction): Promise<Statements> {
    const inTransaction = (db as Knex.Transaction).isTransaction === true;
    if (onMysql(db)) {
      if (!inTransaction) return new Statements(db, undefined, (sql, params) => pooledExecute(db, sql, params));
      const conn = (await db.client.acquireConnection()) as MysqlConnection;
      return new Statements(db, undefined, <T>(sql: string, params: Value[]) => {
        const pipe = pipelineOf(conn);
        return pipe ? pipe.send([{ sql, params }]).then((r) => r[0] as T) : execute<T>(conn, sql, params);
      }, conn);
    }
    if (!inTransaction) return new Statements(db, undefined, undefined);
    return new Statements(db, (await db.client.acquireConnection()) as BetterSqlite3.Database, undefined);
  }

  async run(sql: string, params: Value[]): Promise<RunResult> {
    if (this.conn) {
      const r = this.conn.prepare(sql).run(...params.map(sqliteValue));
      return { changes: r.changes, lastInsertId: Number(r.lastInsertRowid) };
    }
    if (this.mysql) {
      const header = await this.mysql<{ affectedRows: number; insertId: number }>(sql, params);
      return { changes: Number(header.affectedRows ?? 0), lastInsertId: Number(header.insertId ?? 0) };
    }
    // better-sqlite3 through Knex: the statement's run() result.
    const result = await this.knex.raw(sql, params as Knex.RawBinding[]);
    return { changes: Number(result.changes ?? 0), lastInsertId: Number(result.lastInsertRowid ?? 0) };
  }

  async all<T>(sql: string, params: Value[]): Promise<T[]> {
    if (this.conn) return this.conn.prepare(sql).all(...params.map(sqliteValue)) as T[];
    if (this.mysql) return this.mysql<T[]>(sql, params);
    return (await this.knex.raw(sql, params as Knex.RawBinding[])) as T[];
  }

  /** INSERT of one row; its columns are the row's keys (never user input), so a shape of row is one statement. */
  insert(table: string, row: object): Promise<RunResult> {
    return this.insertMany(table, [row]);
  }

  /**
   * One INSERT for rows of one shape (the first row's keys), at most 100 rows a statement.
   * `o.skipDuplicates`: a row its table's primary key already holds is left out, nothing else is
   * forgiven (SQLite's ON CONFLICT DO NOTHING; on MySQL a no-op ON DUPLICATE KEY UPDATE, where
   * INSERT IGNORE would also drop a row breaking a foreign key).
   */
  async insertMany(table: string, objects: object[], o: { skipDuplicates?: boolean } = {}): Promise<RunResult> {
    let changes = 0;
    let lastInsertId = 0;
    for (const { sql, params } of insertStatements(table, objects, this.skipOn(o.skipDuplicates))) {
      const r = await this.run(sql, params);
      changes += r.changes;
      lastInsertId = r.lastInsertId;
    }
    return { changes, lastInsertId };
  }

  /** UPDATE `table` SET the row's columns WHERE each of `where`'s columns equals its value. */
  update(table: string, fields: object, where: Row): Promise<RunResult> {
    const { sql, params } = updateStatement(table, fields, where);
    return this.run(sql, params);
  }
}

/** The INSERTs of insertMany: rows of one shape (the first row's keys), at most 100 rows a statement; `skipDuplicatesOn`: insertMany's skipDuplicates in a dialect. */
export function insertStatements(table: string, objects: object[], skipDuplicatesOn?: 'mysql' | 'sqlite'): Array<{ sql: string; params: Value[] }> {
  const out: Array<{ sql: string; params: Value[] }> = [];
  if (!objects.length) return out;
  const rows = objects as Row[];
  const columns = Object.keys(rows[0]);
  for (let i = 0; i < rows.length; i += 100) {
    const part = rows.slice(i, i + 100);
    const params: Value[] = [];
    for (const row of part) for (const c of columns) params.push(row[c] ?? null);
    out.push({ sql: insertSql(table, columns, part.length, skipDuplicatesOn), params });
  }
  return out;
}

export function updateStatement(table: string, fields: object, where: Row): { sql: string; params: Value[] } {
  const row = fields as Row;
  const set = Object.keys(row);
  const match = Object.keys(where);
  return { sql: updateSql(table, set, match), params: [...set.map((c) => row[c] ?? null), ...match.map((c) => where[c] ?? null)] };
}

/**
 * One fixed statement outside any transaction, over committed rows: on SQLite's read connection
 * where there is one (answered at once, never queued behind a write), else prepared on a pooled
 * connection (MySQL: no query built and parsed per call).
 */
export function committedRows<T>(db: Database, sql: string, params: Value[] = []): T[] | Promise<T[]> {
  const reader = db.readConnection?.();
  if (reader) return reader.prepare(sql).all(...params.map(sqliteValue)) as T[];
  return Statements.of(db.reads).then((st) => st.all<T>(sql, params));
}

// The SQL of each shape, made once: a write's statements come in a handful of shapes.
const texts = new Map<string, string>();

function kept(key: string, make: () => string): string {
  let sql = texts.get(key);
  if (sql === undefined) texts.set(key, (sql = make()));
  return sql;
}

function insertSql(table: string, columns: string[], rows: number, skipDuplicatesOn?: 'mysql' | 'sqlite'): string {
  return kept(`i ${table} ${columns.join(',')} ${rows} ${skipDuplicatesOn ?? ''}`, () => {
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const skip = skipDuplicatesOn === 'mysql' ? ` ON DUPLICATE KEY UPDATE \`${columns[0]}\` = \`${columns[0]}\``
      : skipDuplicatesOn === 'sqlite' ? ' ON CONFLICT DO NOTHING' : '';
    return `INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ${Array(rows).fill(tuple).join(', ')}${skip}`;
  });
}

function updateSql(table: string, set: string[], where: string[]): string {
  return kept(`u ${table} ${set.join(',')} ${where.join(',')}`, () =>
    `UPDATE \`${table}\` SET ${set.map((c) => `\`${c}\` = ?`).join(', ')} WHERE ${where.map((c) => `\`${c}\` = ?`).join(' AND ')}`);
}

/** The mysql2 connection a Knex transaction holds (callback API). */
interface MysqlConnection {
  execute(sql: string, params: unknown[], callback: (err: Error | null, result: unknown) => void): void;
}

/**
 * On MySQL inside a transaction: a server-side prepared statement on the transaction's own
 * connection (mysql2 keeps it per connection), without Knex's runner or client-side escaping.
 * An import of 5,000 components spent a third of the server's CPU in Knex and mysql2's query path
 * (bench/import-profile.ts); errors come as mysql2 raises them (code, errno), as through Knex.
 */
function execute<T>(conn: MysqlConnection, sql: string, params: Value[]): Promise<T> {
  return new Promise((resolve, reject) => {
    conn.execute(sql, params.map((v) => (typeof v === 'boolean' ? Number(v) : v ?? null)), (err, result) => (err ? reject(err) : resolve(result as T)));
  });
}

/** A MySQL statement outside a transaction: prepared on a pooled connection borrowed for it. */
async function pooledExecute<T>(db: Knex, sql: string, params: Value[]): Promise<T> {
  const conn = (await db.client.acquireConnection()) as MysqlConnection;
  try {
    return await execute<T>(conn, sql, params);
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** better-sqlite3 binds no booleans (Knex turned them into 0 and 1). */
function sqliteValue(v: Value): Exclude<Value, boolean> {
  return typeof v === 'boolean' ? Number(v) : v;
}
