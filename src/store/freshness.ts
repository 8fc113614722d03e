import type { Database } from './database';
import { committedRows } from './statements';

/**
 * What tells this process whether what it keeps still holds: the access version (bumped in the
 * transaction of any change to who may do what: access/access-version.ts) and the change log's
 * head (moved by any record written, in its transaction). Exact across processes.
 */
export interface Freshness {
  access: number;
  head: number;
}

const FRESHNESS_SQL = 'SELECT (SELECT `version` FROM `access_version` WHERE `id` = 1) AS `access`, (SELECT MAX(`seq`) FROM `change_log`) AS `head`';
const freshnessOf = ([row]: Array<{ access?: number | string | null; head?: number | string | null }>): Freshness =>
  ({ access: Number(row?.access ?? 0), head: Number(row?.head ?? 0) });

/** The reads of one store connection (that is, of one app process). */
export class FreshnessReads {
  private thisTurn: Promise<Freshness> | Freshness | undefined;

  constructor(private readonly db: Database) {
    db.onCommit.push(() => { this.thisTurn = undefined; });
  }

  /** The statement itself. */
  read(): Promise<Freshness> | Freshness {
    const rows = committedRows<{ access?: number; head?: number }>(this.db, FRESHNESS_SQL);
    return Array.isArray(rows) ? freshnessOf(rows) : rows.then(freshnessOf);
  }

  /**
   * Read once per turn of the event loop: the requests that arrived together share the read
   * (issued after all of them arrived, so it sees every change committed before any of them was
   * sent). A commit of this process starts a new read, so its own changes are seen by the very
   * next caller. On the store's read connection where it has one (never queued behind a long
   * write). A caller that must see what was committed since an earlier moment of its own reads
   * the head itself (committedChangeLogHead).
   */
  current(): Promise<Freshness> | Freshness {
    if (this.thisTurn !== undefined) return this.thisTurn;
    const read = (this.thisTurn = this.read());
    const forget = () => { if (this.thisTurn === read) this.thisTurn = undefined; };
    setImmediate(forget);
    if (read instanceof Promise) read.catch(forget);
    return read;
  }
}

const reads = new WeakMap<Database, FreshnessReads>();

export function freshnessReadsOf(db: Database): FreshnessReads {
  let r = reads.get(db);
  if (!r) reads.set(db, (r = new FreshnessReads(db)));
  return r;
}

/**
 * A request's reads: the first freshness read of a request serves every kept value the request
 * uses (its access check, then a GET's record, its resolved links, a listing's count), as one
 * snapshot, however many turns of the event loop the request spans. A commit of this process
 * starts a new read, so a request sees its own writes. Made per request (http/app.ts) and handed
 * along with the services (Services.readScope), not kept in async context: Node 20 hooks every
 * promise of the process once an AsyncLocalStorage is used, about a seventh of a GET's CPU.
 */
export class ReadScope {
  read?: Promise<Freshness> | Freshness;
  commits = -1;
}

const commitsOf = new WeakMap<Database, { n: number }>();

function commitCount(db: Database): { n: number } {
  let c = commitsOf.get(db);
  if (!c) {
    const counter = (c = { n: 0 });
    commitsOf.set(db, counter);
    db.onCommit.push(() => { counter.n++; });
  }
  return c;
}

/** Both, as of the caller's request (`scope`) or else this turn of the event loop (FreshnessReads.current). */
export function committedFreshness(db: Database, scope?: ReadScope): Promise<Freshness> | Freshness {
  if (!scope) return freshnessReadsOf(db).current();
  const commits = commitCount(db).n;
  if (scope.read === undefined || scope.commits !== commits) {
    const read = (scope.read = freshnessReadsOf(db).current());
    scope.commits = commits;
    if (read instanceof Promise) read.catch(() => { if (scope.read === read) scope.read = undefined; });
  }
  return scope.read;
}
