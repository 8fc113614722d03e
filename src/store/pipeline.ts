import type { Knex } from 'knex';
import { format, type SqlValue } from 'mysql2';

/**
 * MySQL: a write transaction in fewer round trips (issue 51). A transaction of Database.transaction
 * (transactionPerCall) opens without a round trip of its own: Knex's BEGIN is kept and sent in
 * front of the transaction's first statement. The statements whose answers the write does not
 * need before it commits (derived rows, versions, change-log entries, touches: Statements.defer)
 * are kept too, and sent with whatever the connection sends next, as one multi-statement text
 * query (values escaped by mysql2's `format`); what is still kept at the end goes with the COMMIT
 * (commitBatch). A check on what a kept statement changed (a lock_version) is a compound statement
 * after it that SIGNALs. When a batch fails, the statements before the failed one were run and
 * those after it were not (the transaction is still open: the caller's error path rolls it back),
 * and the kept statements' own error handlers say what the error means (a unique key taken: the
 * same 400 as before); a deadlock or lost certification is retried as before, the whole
 * transaction sent again.
 */

type Callback = (err: Error | null, result?: unknown, fields?: unknown) => void;

export interface Kept {
  sql: string;
  /** What an error of the batch that carried this statement means, if it is this statement's: else undefined. */
  onError?: (err: unknown) => Promise<Error | undefined> | Error | undefined;
}

interface Statement {
  sql: string;
  params: unknown[];
}

interface RawConnection {
  query(...args: unknown[]): unknown;
  execute(...args: unknown[]): unknown;
}

/** The pipeline state of one pooled connection. */
export class Pipeline {
  /** The connection was handed to a transaction of armed(): its BEGIN makes the pipeline active. */
  armed = false;
  /** In a transaction that keeps statements (armed when its BEGIN was asked for). */
  active = false;
  beginPending = false;
  /** The COMMIT went with the last batch: Knex's own COMMIT is answered without a round trip. */
  committed = false;
  kept: Kept[] = [];
  private checks = 0;

  constructor(private readonly query: (sql: string, cb: Callback) => void) {}

  keep(sql: string, params: unknown[], onError?: Kept['onError']): void {
    this.kept.push({ sql: format(sql, params.map(plain), false, 'Z'), onError });
  }

  /** A check after the statement kept last: the batch fails with `failure` unless it changed `rows` rows. */
  keepCheck(rows: number, failure: () => Error): void {
    const tag = `deferred check ${++this.checks}`;
    this.kept.push({
      sql: `BEGIN NOT ATOMIC IF ROW_COUNT() <> ${Number(rows)} THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${tag}'; END IF; END`,
      onError: (err) => ((err as { sqlState?: string; message?: string })?.sqlState === '45000' && (err as Error).message === tag ? failure() : undefined),
    });
  }

  /** Sends asked for in this turn, not yet sent (send). */
  private asked: Array<{ statements: Statement[]; resolve: (results: unknown[]) => void; reject: (err: unknown) => void }> = [];

  /**
   * Sends what is kept (the BEGIN first where it is still to send) and then `statements`, in one
   * round trip; answers the results of `statements`. The sends a transaction asks for together
   * (before its next wait for the server: a create's insert and its place in a tree, started side
   * by side) go in that one round trip too, in the order asked; when it fails, each of them fails.
   */
  send(statements: Statement[]): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      this.asked.push({ statements, resolve, reject });
      // After the promises already resolved have run: the other sends they lead to are asked by then.
      if (this.asked.length === 1) process.nextTick(() => void this.sendAsked());
    });
  }

  private async sendAsked(): Promise<void> {
    const asks = this.asked.splice(0);
    try {
      const results = await this.sendNow(asks.flatMap((a) => a.statements));
      let at = 0;
      for (const a of asks) {
        a.resolve(results.slice(at, at + a.statements.length));
        at += a.statements.length;
      }
    } catch (err) {
      for (const a of asks) a.reject(err);
    }
  }

  private async sendNow(statements: Statement[]): Promise<unknown[]> {
    const texts: string[] = [];
    if (this.beginPending) texts.push('BEGIN');
    const kept = this.kept.splice(0);
    for (const k of kept) texts.push(k.sql);
    const lead = texts.length;
    for (const s of statements) texts.push(format(s.sql, s.params.map(plain), false, 'Z'));
    if (!texts.length) return [];
    this.beginPending = false;
    let results: unknown;
    try {
      results = await new Promise((resolve, reject) => this.query(texts.join(';\n'), (err, r) => (err ? reject(err) : resolve(r))));
    } catch (err) {
      for (const k of kept) {
        const meant = await k.onError?.(err);
        if (meant) throw meant;
      }
      throw err;
    }
    const all = texts.length === 1 ? [results] : (results as unknown[]);
    return all.slice(lead);
  }

  /** Sends what is kept with the COMMIT (Knex's COMMIT then costs nothing). */
  async commit(): Promise<void> {
    if (!this.active) return;
    if (this.beginPending && !this.kept.length) {
      this.beginPending = false;
      this.committed = true;
      return;
    }
    await this.send([{ sql: 'COMMIT', params: [] }]);
    this.committed = true;
  }

  reset(): void {
    this.active = false;
    this.beginPending = false;
    this.committed = false;
    this.kept = [];
  }
}

const pipelines = new WeakMap<object, Pipeline>();

/**
 * Runs `run` (a Knex transaction) with its BEGIN and the statements it keeps sent as late as can
 * be: on a pooled connection taken here and marked, which `run` hands Knex (its `connection`).
 * Marked on the connection, not kept in async context (write-source.ts says why).
 */
export async function armed<T>(knex: Knex, run: (config: Knex.TransactionConfig) => Promise<T>): Promise<T> {
  const client = knex.client as { acquireConnection(): Promise<object>; releaseConnection(conn: object): unknown };
  const conn = await client.acquireConnection();
  const p = pipelines.get(conn);
  if (p) p.armed = true;
  try {
    return await run({ connection: conn });
  } finally {
    if (p) p.armed = false;
    client.releaseConnection(conn);
  }
}

/** The pipeline of a MySQL connection in an armed transaction; undefined elsewhere. */
export function pipelineOf(conn: object): Pipeline | undefined {
  const p = pipelines.get(conn);
  return p?.active ? p : undefined;
}

const OK = { affectedRows: 0, insertId: 0, warningStatus: 0 };

/**
 * Wraps a new pooled mysql2 connection (the pool's afterCreate): its BEGIN, COMMIT and ROLLBACK
 * in an armed transaction are answered as the pipeline says, and whatever else it is asked to
 * send goes after what the pipeline keeps.
 */
export function pipelineConnection(conn: RawConnection): void {
  const query = conn.query.bind(conn);
  const execute = conn.execute.bind(conn);
  const p = new Pipeline((sql, cb) => query(sql, cb));
  pipelines.set(conn, p);
  const wrap = (send: (...args: unknown[]) => unknown) => (...args: unknown[]): unknown => {
    const first = args[0] as string | { sql: string };
    const sql = (typeof first === 'string' ? first : first?.sql ?? '').trim();
    const cb = [...args].reverse().find((a) => typeof a === 'function') as Callback | undefined;
    if (/^BEGIN;?$/i.test(sql) && p.armed && cb) {
      p.reset();
      p.active = true;
      p.beginPending = true;
      cb(null, OK, undefined);
      return undefined;
    }
    if (p.active && /^COMMIT;?$/i.test(sql) && cb) {
      // Knex sends no ROLLBACK after a failed COMMIT: one is sent here, or the connection would
      // go back to the pool inside a transaction with what ran before the error.
      const done = p.committed ? Promise.resolve() : p.send([{ sql: 'COMMIT', params: [] }]).then(() => undefined);
      p.reset();
      done.then(() => cb(null, OK, undefined), (err) => query('ROLLBACK', () => cb(err as Error)));
      return undefined;
    }
    if (p.active && /^ROLLBACK;?$/i.test(sql)) {
      const nothingSent = p.beginPending;
      p.reset();
      if (nothingSent && cb) {
        cb(null, OK, undefined);
        return undefined;
      }
      return send(...args);
    }
    if (!p.active || (!p.beginPending && !p.kept.length)) return send(...args);
    if (!cb) throw new Error('a statement without a callback while statements are kept');
    // Not `() => send(...args)`: mysql2's Query has a `then` that throws when a promise adopts it.
    p.send([]).then(() => {
      send(...args);
    }, (err) => cb(err as Error));
    return undefined;
  };
  conn.query = wrap(query);
  conn.execute = wrap(execute);
}

function plain(v: unknown): SqlValue {
  return (typeof v === 'bigint' ? v.toString() : v ?? null) as SqlValue;
}
