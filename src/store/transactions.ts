import { type Knex, KnexTimeoutError } from 'knex';
import { Statements } from './statements';
import { RecordQueries } from './records';
import { isBusy, isRetryable } from './store-errors';
import { collectTouches, holdChanges, holdDerivedRows, releaseHeldChanges, startOwnMemo, type TouchRules } from './transaction-memo';
import { applyTouches } from './touches';
import type { WriteToken } from './write-token';
import { armed } from './pipeline';
import { markPending } from './pending';
import type { TransactionOptions } from './database';
import { setWriteSource, type WriteSource } from './write-source';

/**
 * How Database.transaction runs a caller's function: in a transaction of its own on MySQL, and on
 * SQLite in a group of callers' functions that commit together. Both retry what lost a race.
 */

const ATTEMPTS = 8;

type Work<T> = (trx: Knex.Transaction) => Promise<T>;

const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));

/**
 * Runs `fn`, then gives back the ids it took and did not use (RecordQueries.nextId), writes the
 * derived rows (holdDerivedRows), touches what its changes touch (touches.ts), and writes the
 * change-log entries it held back: one statement per 100 rather than one per record written (an
 * import writes thousands).
 */
async function runHoldingChanges<T>(trx: Knex.Transaction, fn: Work<T>, touches: TouchRules): Promise<T> {
  holdChanges(trx);
  collectTouches(trx, touches);
  const answer = await fn(trx);
  const q = new RecordQueries(trx);
  await q.releaseIdBlocks();
  await touchWhatChanged(q, trx);
  const held = releaseHeldChanges(trx);
  const st = await Statements.of(trx);
  if (held.length) await st.deferInsertMany('change_log', held);
  return answer;
}

/** Touches what the transaction's changes touch (touches.ts), with their change-log entries. */
async function touchWhatChanged(q: RecordQueries, trx: Knex.Transaction): Promise<void> {
  // The links the paths follow may still be held back.
  await q.writeHeldRows();
  const { touched, atMs } = await applyTouches(trx);
  if (touched.length) await q.appendChanges(touched, 'upsert', atMs);
}

/** One transaction per call, again from the start when it lost a race (MySQL: InnoDB groups commits itself). */
export function transactionPerCall(knex: Knex, onCommit: Array<() => void>, touches: TouchRules) {
  return async <T>(fn: Work<T>, options: TransactionOptions = {}): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const run = (config?: Knex.TransactionConfig) => knex.transaction(async (trx) => {
          setWriteSource(trx, options.source);
          const answer = await runHoldingChanges(trx, fn, touches);
          await (await Statements.of(trx)).commitKept();
          return answer;
        }, config);
        // Batched: BEGIN, the statements whose answers are not needed and COMMIT sent with others (pipeline.ts).
        const result = await (options.batched ? armed(knex, run) : run());
        for (const listener of onCommit) listener();
        return result;
      } catch (err) {
        if (attempt >= ATTEMPTS || !isRetryable(err)) throw err;
        await pause(attempt);
      }
    }
  };
}

/**
 * Runs a group member's function on the group's transaction inside a savepoint of one fixed name
 * (members run one after another, so one name serves all), with a memo of its own (started here,
 * so what a member that rolled back learned is not seen by the next). A nested Knex transaction
 * per member cost a transactor object and a SAVEPOINT text of its own, prepared anew each time:
 * about 4 % of a create's CPU (CPU profile of bench/write-profile.ts).
 */
async function inSavepoint<T>(trx: Knex.Transaction, fn: () => Promise<T>): Promise<T> {
  // On the group's connection, prepared once: through trx.raw each was a query of Knex's own
  // (builder, runner, promises), two per member, allocated on every create and update.
  const st = await Statements.of(trx);
  await st.run('SAVEPOINT group_member', []);
  startOwnMemo(trx);
  try {
    const value = await fn();
    await st.run('RELEASE group_member', []);
    return value;
  } catch (err) {
    await st.run('ROLLBACK TO group_member', []);
    await st.run('RELEASE group_member', []);
    throw err;
  }
}

/** A group stops taking callers after this many, or once it has run this long: a bound on how long an answer waits for its commit. */
const GROUP_MAX_CALLS = 32;
const GROUP_MAX_MS = 10;

interface Call {
  fn: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  attempt: number;
  source?: WriteSource;
  /** Refuses the call as the pool would (store busy) when it waited too long to start. */
  timer?: NodeJS.Timeout;
}

/**
 * SQLite: group commit. The store has one writer, so callers queue for it anyway; a COMMIT writes
 * every page the transaction changed to the WAL, and a create's changes (the record, its keys,
 * links and change-log entry: some fifteen B-tree pages) made its COMMIT cost more than all its
 * statements together (bench/statement-timer.cjs: 440 µs at the median against about 100 µs).
 * So the callers that queued while one ran run next in the same transaction, each in a savepoint
 * of its own (a caller that fails is rolled back alone and gets its error), and all of them get
 * their answers after the one COMMIT, which writes the pages they share (the tables' last leaves)
 * once. A caller alone runs as before: no savepoint, its own commit.
 *
 * A group that fails as a whole (BUSY: another process wrote first; an I/O error at COMMIT)
 * is rolled back and its callers run again from the start (retryable errors) or get the error.
 * A caller that lost a race of its own (a unique index) runs again on its own.
 *
 * With `token` (SQLite, WORKERS above 1: write-token.ts) each group first waits for the
 * cluster's write token and hands it back after its COMMIT or ROLLBACK: the processes take turns
 * at the file's one write lock instead of fighting for it, and the calls that queue during the wait
 * join the next group.
 */
export function groupedTransactions(knex: Knex, onCommit: Array<() => void>, waitMs: number, touches: TouchRules, token?: WriteToken) {
  const queue: Call[] = [];
  let draining = false;

  /** The next call, no longer waiting to start. */
  const take = (): Call => {
    const call = queue.shift()!;
    clearTimeout(call.timer);
    return call;
  };

  /** Runs a group; after a rollback that left callers to run again, the attempt to pause for before they do. */
  async function runGroup(): Promise<number | undefined> {
    const first = take();
    const ran: Array<{ call: Call; ok: boolean; value: unknown }> = [{ call: first, ok: false, value: undefined }];
    const started = Date.now();
    try {
      await knex.transaction(async (outer) => {
        setWriteSource(outer, first.source);
        ran[0].value = await runHoldingChanges(outer, first.fn, touches);
        ran[0].ok = true;
        for (;;) {
          if (ran.length >= GROUP_MAX_CALLS || Date.now() - started >= GROUP_MAX_MS) break;
          // A caller's statements resolve without leaving the turn of the event loop (better-sqlite3
          // is synchronous), so the requests read in the same turn queue only after it: the group
          // waits for the end of the turn before it commits.
          if (!queue.length) await new Promise((resolve) => setImmediate(resolve));
          if (!queue.length) break;
          const call = take();
          setWriteSource(outer, call.source);
          try {
            const value = await inSavepoint(outer, () => runHoldingChanges(outer, call.fn, touches));
            ran.push({ call, ok: true, value });
          } catch (err) {
            // Another process's write made the group's snapshot stale: the group again.
            if (isBusy(err)) {
              ran.push({ call, ok: false, value: err });
              throw err;
            }
            if (isRetryable(err) && call.attempt < ATTEMPTS) {
              call.attempt++;
              queue.unshift(call);
            } else {
              ran.push({ call, ok: false, value: err });
            }
          }
        }
      });
    } catch (err) {
      // Rolled back: nothing of the group was written.
      const again = ran.filter((r) => isRetryable(err) && r.call.attempt < ATTEMPTS);
      for (const r of ran) {
        if (again.includes(r)) continue;
        r.call.reject(r.ok || r.value === undefined ? err : r.value);
      }
      if (!again.length) return undefined;
      for (const r of again) r.call.attempt++;
      queue.unshift(...again.map((r) => r.call));
      return again[0].call.attempt;
    }
    try {
      for (const listener of onCommit) listener();
    } finally {
      for (const r of ran) (r.ok ? r.call.resolve : r.call.reject)(r.value);
    }
    return undefined;
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length) {
        const release = token ? await token.acquire() : undefined;
        let again: number | undefined;
        try {
          // Calls that waited too long for the token were refused meanwhile (their timers).
          if (queue.length) again = await runGroup();
        } finally {
          release?.();
        }
        // A group that lost a race pauses without the token, so the other processes write meanwhile.
        if (again) await pause(again);
      }
    } finally {
      draining = false;
    }
  }

  return <T>(fn: Work<T>, options: TransactionOptions = {}): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const call: Call = { fn, resolve: resolve as (value: unknown) => void, reject, attempt: 1, source: options.source };
      // Behind a long transaction (an import), a write waits as long as it would for a pooled
      // connection (DB_WAIT_SECONDS), then is answered that the store is busy.
      call.timer = setTimeout(() => {
        const at = queue.indexOf(call);
        if (at < 0) return;
        queue.splice(at, 1);
        reject(new KnexTimeoutError(`the store's writer was busy for ${waitMs} ms`));
      }, waitMs);
      queue.push(call);
      if (!draining) void drain();
    });
}

/**
 * `fn` in one transaction as Knex runs it: never run again after a lost race, its change-log
 * entries written as they come (the imports, which report where in their input they failed, and
 * the export's read snapshot); what its changes touch is touched at its end, as in any transaction,
 * unless `touch` is false (a copy of another store, whose records come with the system_mtimes its
 * own touches gave them).
 */
export function transactionOnce<T>(
  db: { knex: Knex; touches: TouchRules }, fn: (trx: Knex.Transaction) => Promise<T>, options: { touch?: boolean } = {},
): Promise<T> {
  return db.knex.transaction(async (trx) => {
    if (options.touch !== false) collectTouches(trx, db.touches);
    const answer = await fn(trx);
    await touchWhatChanged(new RecordQueries(trx), trx);
    return answer;
  });
}

/** `fn` in a savepoint of `trx`: what it wrote is undone when it throws, and the transaction goes on. */
export function inNestedTransaction<T>(trx: Knex.Transaction, fn: (savepoint: Knex.Transaction) => Promise<T>): Promise<T> {
  return trx.transaction(fn);
}

/** One chunk of a job's pending records (pending.ts): its transaction, until the job commits or rolls it back. */
export interface PendingChunk {
  trx: Knex.Transaction;
  commit(): Promise<void>;
  rollback(err: unknown): Promise<void>;
}

/**
 * Opens a transaction of its own (not in a group: the job decides when it ends) whose records are
 * pending for `job`; ended as Database.transaction ends one (ids given back, derived rows, touches,
 * change-log entries but those of pending records). The writer is free between chunks: on SQLite
 * the writes queued meanwhile run before the next chunk opens.
 */
export async function openPendingChunk(
  db: { knex: Knex; touches: TouchRules; onCommit: Array<() => void> }, job: number, uris: Set<string>, source?: WriteSource,
): Promise<PendingChunk> {
  const gate: { end?: (err?: unknown) => void } = {};
  const end = new Promise<void>((resolve, reject) => {
    gate.end = (err) => (err === undefined ? resolve() : reject(err));
  });
  let opened!: (trx: Knex.Transaction) => void;
  const started = new Promise<Knex.Transaction>((resolve) => { opened = resolve; });
  const done = db.knex.transaction((trx) => runHoldingChanges(trx, async () => {
    setWriteSource(trx, source);
    markPending(trx, job, uris);
    holdDerivedRows(trx);
    opened(trx);
    await end;
  }, db.touches));
  const endedEarly = done.then(() => { throw new Error('the chunk\'s transaction ended before it began'); });
  endedEarly.catch(() => undefined);
  const trx = await Promise.race([started, endedEarly]);
  return {
    trx,
    async commit() {
      gate.end!();
      await done;
      for (const listener of db.onCommit) listener();
    },
    async rollback(err) {
      gate.end!(err ?? new Error('rolled back'));
      await done.catch(() => undefined);
    },
  };
}
