/**
 * Long work that lets the rest of the process run. A job's loop over thousands of records is a
 * long run of promise steps that never waits on the event loop by itself: better-sqlite3 answers
 * a statement before it returns, and parsing, validating and rendering are plain computation. Run
 * straight through, it keeps every other request of the process waiting until it is done, reads
 * that no longer wait for the job's transaction included. So every such loop calls
 * `letEventLoopTurn()` once per record (or row, or block): once SLICE_MS has passed since the
 * process last let the loop turn here, the call waits for the next turn (setImmediate: after the
 * I/O that came meanwhile, new requests included); otherwise it costs a clock read.
 */

/** How long long work runs before it lets the event loop turn. */
export const SLICE_MS = 10;

let since = performance.now();

/** Waits for the next turn of the event loop when the work has run SLICE_MS since the last one. */
export async function letEventLoopTurn(): Promise<void> {
  if (performance.now() - since < SLICE_MS) return;
  await new Promise((resolve) => setImmediate(resolve));
  since = performance.now();
}
