/**
 * What every authenticated request needs before its own work (its session, the user's grants,
 * that the path's repository exists, the caller's preferred defaults), kept in this process between requests. Exact across
 * processes: every change that could make a kept answer wrong (a group's members or grants, a
 * session ended or handed to another user, a user or repository deleted, a preference saved) bumps one version row in
 * the same transaction (bumpAccessVersion, access-version.ts), and that row is read for each request (with the
 * change log's head, one read shared by the requests of a turn of the event loop: committedFreshness), emptying
 * what is kept when it moved. One small read instead of three per request; nothing is ever stale.
 */
import type { Config } from '../config';
import type { Database } from '../store/connect';
import { REPOSITORY_TYPE } from '../registry';
import { hasRecord } from '../store/domain-reads';
import { committedFreshness, type Freshness, type ReadScope } from '../store/freshness';
import { Grants, loadGrants } from './grants';
import { digest, findSession, Session, touchInBackground, TOUCH_INTERVAL_MS } from './sessions';

/** Bounds on what is kept, so that a flood of distinct tokens cannot grow the process. */
const MAX_KEPT = 10_000;

interface KeptSession extends Session {
  lastActiveMs: number;
}

export class AccessCache {
  private version = -1;
  private readonly sessions = new Map<string, KeptSession>();
  private readonly grants = new Map<string, Promise<Grants>>();
  private readonly repositories = new Set<number>();
  private readonly memos = new Map<string, Promise<unknown>>();
  /** Tokens' hashes (the store keeps only hashes; a request's token is hashed once per process, not per request). */
  private readonly hashes = new Map<string, string>();

  /** Reads the access version (committedFreshness: once per request, else per turn); whatever was kept under another version is dropped. */
  async sync(db: Database, readScope?: ReadScope): Promise<AccessView> {
    const freshness = await committedFreshness(db, readScope);
    const version = freshness.access;
    if (version !== this.version) {
      this.sessions.clear();
      this.grants.clear();
      this.repositories.clear();
      this.memos.clear();
      this.version = version;
    }
    return new AccessView(this, db, freshness);
  }

  /** @internal */ hashOf(token: string) {
    let hash = this.hashes.get(token);
    if (hash === undefined) bounded(this.hashes).set(token, (hash = digest(token)));
    return hash;
  }
  /** @internal */ keptSession(hash: string) { return this.sessions.get(hash); }
  /** @internal */ keepSession(hash: string, s: KeptSession) { bounded(this.sessions).set(hash, s); }
  /** @internal */ keptGrants(username: string, load: () => Promise<Grants>) {
    let g = this.grants.get(username);
    if (!g) {
      g = load();
      bounded(this.grants).set(username, g);
      g.catch(() => this.grants.delete(username));
    }
    return g;
  }
  /** @internal */ memo<T>(key: string, load: () => Promise<T>): Promise<T> {
    let kept = this.memos.get(key) as Promise<T> | undefined;
    if (!kept) {
      kept = load();
      bounded(this.memos).set(key, kept);
      kept.catch(() => this.memos.delete(key));
    }
    return kept;
  }
  /** @internal */ hasRepository(id: number) { return this.repositories.has(id); }
  /** @internal */ keepRepository(id: number) { if (this.repositories.size < MAX_KEPT) this.repositories.add(id); }
}

function bounded<K, V>(map: Map<K, V>): Map<K, V> {
  if (map.size >= MAX_KEPT) map.delete(map.keys().next().value as K);
  return map;
}

/** The answers of one request, under the version it read. */
export class AccessView {
  constructor(
    private readonly cache: AccessCache,
    private readonly db: Database,
    /** Read after the request arrived: what it must see at least (until-next-write.ts serves it without reading again). */
    readonly asOf: Freshness,
  ) {}

  /**
   * The session of a token. A kept one is checked for idleness by this process's clock; one that
   * looks timed out is read again (another process may have seen it active since), and the store
   * decides, as without the cache.
   */
  async session(config: Config, token: string): Promise<Session> {
    const hash = this.cache.hashOf(token);
    const kept = this.cache.keptSession(hash);
    const now = Date.now();
    if (kept) {
      const idleMs = now - kept.lastActiveMs;
      const limitMs = (kept.expiring ? config.sessionExpireAfterSeconds : config.sessionNonexpirableForceExpireAfterSeconds) * 1000;
      if (!(kept.expiring && config.sessionExpireAfterSeconds < 0) && idleMs > limitMs) return this.fromStore(config, token, hash);
      if (idleMs > TOUCH_INTERVAL_MS) {
        kept.lastActiveMs = now;
        touchInBackground(this.db, hash, now);
      }
      return { username: kept.username, expiring: kept.expiring };
    }
    return this.fromStore(config, token, hash);
  }

  private async fromStore(config: Config, token: string, hash: string): Promise<Session> {
    const session = await findSession(this.db, config, token);
    this.cache.keepSession(hash, { ...session, lastActiveMs: session.lastActiveMs ?? Date.now() });
    return { username: session.username, expiring: session.expiring };
  }

  grants(username: string): Promise<Grants> {
    return this.cache.keptGrants(username, () => loadGrants(this.db, username));
  }

  /**
   * Anything else that only changes with who may do what or with the version's other writers
   * (a caller's preferred defaults: preferences bump the version too), kept under `key`.
   */
  kept<T>(key: string, load: () => Promise<T>): Promise<T> {
    return this.cache.memo(key, load);
  }

  async repositoryExists(id: number): Promise<boolean> {
    if (this.cache.hasRepository(id)) return true;
    const found = await hasRecord(this.db, { type: REPOSITORY_TYPE, id });
    if (found) this.cache.keepRepository(id);
    return found;
  }
}

const caches = new WeakMap<Database, AccessCache>();

/** One cache per store connection, that is per app process (and per test app). */
export function accessCacheFor(db: Database): AccessCache {
  let cache = caches.get(db);
  if (!cache) {
    caches.set(db, (cache = new AccessCache()));
  }
  return cache;
}
