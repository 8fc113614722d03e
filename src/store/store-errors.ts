/** What the stores' errors mean for a transaction: lost a race (run it again) or a key taken. */

/**
 * Concurrent writers on MySQL/MariaDB can deadlock or collide on a unique index they both
 * computed a value for (a tree position, a first id), and SQLite answers BUSY (BUSY_SNAPSHOT
 * included) to a process whose snapshot another process's write made stale; the whole transaction is then retried
 * with a fresh snapshot. Errors that answer the client (ApiError) are never retried.
 */
export function isRetryable(err: unknown): boolean {
  const e = err as { errno?: number; code?: string };
  return e?.errno === 1213 || e?.errno === 1205 || isBusy(err) || isUniqueViolation(err) || err instanceof LostRace;
}

/** A statement of its own (outside any transaction) run again while it lost a race, as Database.transaction runs a transaction again. */
export async function retryingStatement<T>(fn: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || !isRetryable(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    }
  }
}

/** A row the transaction holds changed under it all the same: the transaction runs again. */
export class LostRace extends Error {}

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** True when err is a unique / primary key violation on either store. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return (
    e?.code === 'ER_DUP_ENTRY' ||
    e?.errno === 1062 ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
