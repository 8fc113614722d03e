import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is writing and through what (a route, a job, a command): kept for the call's whole async
 * path, so that the versions the store keeps (history.ts) name it whichever engine function wrote
 * (an update, a link dropped by a delete, a subtree carried along) without each one passing it on.
 */
export interface WriteSource {
  /** The username, where a user is behind the write. */
  by?: string;
  /** `POST /repositories/2/accessions/1`, `job 12 (import_ead)`, `cli import`. */
  via: string;
}

const current = new AsyncLocalStorage<WriteSource>();

/** Runs `fn` with `source` as the source of the writes it makes. */
export function withWriteSource<T>(source: WriteSource, fn: () => T): T {
  return current.run(source, fn);
}

/** The source of the write running now; undefined outside any (a test's direct call). */
export function writeSource(): WriteSource | undefined {
  return current.getStore();
}
