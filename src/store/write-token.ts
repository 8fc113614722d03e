import cluster, { type Worker } from 'node:cluster';
import { log } from '../log';

/**
 * SQLite with WORKERS above 1: the right to open a write transaction, held by one server process
 * at a time and handed out by the cluster's primary over IPC, in the order asked.
 *
 * SQLite has one write lock per file. Without the token every process's group (transactions.ts)
 * took it as it came: a process that found it taken slept in SQLite's busy handler (its whole
 * event loop with it, better-sqlite3 being synchronous), or found its snapshot stale at its first
 * write (BUSY_SNAPSHOT) and ran its group again; creates fell as processes were added. With the
 * token a process waits for its turn without blocking, its writes queue meanwhile and run as one
 * bigger group (one COMMIT for many), and the lock is free whenever the token is granted.
 *
 * Writes outside the groups (a session's last use, a job's lease, the command line's verbs, which
 * run as processes of their own) take no token and meet the busy handler as before. A process that
 * dies holding the token (a crash mid-group) gives it back by dying: the primary hears 'exit' and
 * grants the next; SQLite has already rolled the dead process's transaction back.
 */
export interface WriteToken {
  /** Resolves once this process holds the token, with the function that hands it back. */
  acquire(): Promise<() => void>;
}

const KIND = 'write-token';

interface Message { kind?: unknown; op?: unknown; id?: unknown }

let workerToken: WriteToken | undefined;

/** The token as a server process of a cluster asks for it; undefined in a process of its own (WORKERS=1, the command line). */
export function clusterWriteToken(): WriteToken | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  if (workerToken) return workerToken;
  let next = 0;
  const waiting = new Map<number, () => void>();
  process.on('message', (m: Message) => {
    if (m?.kind !== KIND || m.op !== 'grant') return;
    const granted = waiting.get(m.id as number);
    waiting.delete(m.id as number);
    granted?.();
  });
  // The primary gone (the cluster stopping): what waits goes on without the token.
  process.on('disconnect', () => {
    for (const granted of waiting.values()) granted();
    waiting.clear();
  });
  const noToken = () => undefined;
  workerToken = {
    acquire() {
      if (!process.connected) return Promise.resolve(noToken);
      const id = ++next;
      return new Promise((resolve) => {
        waiting.set(id, () => resolve(() => {
          if (process.connected) process.send!({ kind: KIND, op: 'release', id });
        }));
        process.send!({ kind: KIND, op: 'ask', id });
      });
    },
  };
  return workerToken;
}

/**
 * The cluster's primary hands the token out (server.ts, runPrimary): first asked, first granted;
 * taken back from a process that exits or loses its channel. A process that never asks (a MySQL
 * store, which has no file lock) costs nothing.
 */
export function serveWriteToken(): void {
  const queue: Array<{ worker: Worker; id: number }> = [];
  let holder: { worker: Worker; id: number } | undefined;
  const grant = () => {
    while (!holder && queue.length) {
      const next = queue.shift()!;
      if (!next.worker.isConnected()) continue;
      holder = next;
      next.worker.send({ kind: KIND, op: 'grant', id: next.id });
    }
  };
  cluster.on('message', (worker: Worker, m: Message) => {
    if (m?.kind !== KIND || typeof m.id !== 'number') return;
    if (m.op === 'ask') {
      queue.push({ worker, id: m.id });
      grant();
    } else if (m.op === 'release' && holder?.worker === worker && holder.id === m.id) {
      holder = undefined;
      grant();
    }
  });
  const gone = (worker: Worker) => {
    for (let i = queue.length - 1; i >= 0; i--) if (queue[i].worker === worker) queue.splice(i, 1);
    if (holder?.worker !== worker) return;
    holder = undefined;
    log.warn('a server process went away holding the write token; it goes to the next', { worker: worker.id });
    grant();
  };
  cluster.on('disconnect', gone);
  cluster.on('exit', gone);
}
