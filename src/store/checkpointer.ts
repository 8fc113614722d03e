/**
 * WAL checkpoints of a SQLite file (the store, the embedded search index) in a thread of their
 * own. By default SQLite checkpoints inside the COMMIT that pushes the WAL past 1,000 pages: that
 * commit copies the pages back into the database file and waits for two fsyncs, on the thread that
 * serves requests (a create's COMMIT took 160 µs at the median and 9 ms at p99, bench/README.md
 * "statement timings"). Here a worker thread runs a PASSIVE checkpoint (it never waits for, or
 * blocks, readers and the writer) every CHECKPOINT_INTERVAL_MS; the writer keeps an automatic
 * checkpoint only as a bound on the WAL (SAFETY_NET_PAGES) should the thread lag.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const CHECKPOINT_INTERVAL_MS = 250;

/** The writer's own automatic checkpoint while the thread runs: 40 MB of WAL. */
export const SAFETY_NET_PAGES = 10_000;

// Plain JavaScript, evaluated: the thread needs no TypeScript loader under tsx.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const db = new (require(workerData.driver))(workerData.file);
db.pragma('busy_timeout = 0');
let checkpoint;
const timer = setInterval(() => {
  // Busy or locked for a moment (another process checkpointing, a schema change): next round.
  // Prepared here too: preparing reads the schema, which a connection still setting the file up
  // may hold locked, and a thread that failed to prepare at its start never checkpointed.
  try { (checkpoint ??= db.prepare('PRAGMA wal_checkpoint(PASSIVE)')).get(); } catch {}
}, workerData.intervalMs);
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts the checkpoint thread of a SQLite database file. */
export function startCheckpointer(file: string): Checkpointer {
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: { driver: require.resolve('better-sqlite3'), file: path.resolve(file), intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  // Never what keeps a process alive.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => undefined);
  return {
    stop: async () => {
      worker.ref();
      worker.postMessage('stop');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await worker.terminate();
    },
  };
}
