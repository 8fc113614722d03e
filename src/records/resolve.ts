import { RESOLVE_DEPTH_CEILING } from '../config';
import { isPlainObject, Obj } from '../json';

/** Loads records by URI in one batch; missing ones are left out of the map. */
export type UriLoader = (uris: string[]) => Promise<Map<string, Obj>>;

/** Every link object found under a property named `name`, at any depth. */
function findLinks(root: unknown, name: string, found: Obj[]): void {
  if (Array.isArray(root)) {
    for (const item of root) if (item !== null && typeof item === 'object') findLinks(item, name, found);
    return;
  }
  if (!isPlainObject(root)) return;
  // for…in over own enumerable keys of parsed JSON: no entries array per object (the indexer walks every record).
  for (const key in root) {
    const value = root[key];
    if (value === null || typeof value !== 'object') continue;
    if (key === name) {
      for (const candidate of Array.isArray(value) ? value : [value]) {
        if (isPlainObject(candidate) && typeof candidate.ref === 'string') found.push(candidate);
      }
    }
    findLinks(value, name, found);
  }
}

export interface ResolveOptions {
  /** Levels of a path followed at most (the HTTP layer refuses deeper paths itself). */
  maxDepth?: number;
  /**
   * The caller only reads the resolved records (serialises them, builds search documents from
   * them): loaded records are attached without a copy each where no path goes deeper. The
   * loader's records may be shared with other callers (kept ones): they must never be written.
   */
  readOnly?: boolean;
  /** Filled with the links given a shared record (readOnly, no deeper level), for a caller that serialises them (servedJson). */
  shared?: Obj[];
}

/**
 * resolve[] (pagination-and-resolve.md section 5): for "a::b::c" every link under a property
 * named "a" gets `_resolved`, then "b" is sought inside those, and so on. One batch for every
 * path's first level, then one per deeper level.
 * The HTTP layer refuses paths deeper than MAX_RESOLVE_DEPTH; maxDepth only guards other callers.
 */
export async function resolveLinks(records: Obj[], paths: string[], load: UriLoader, o: ResolveOptions = {}): Promise<void> {
  const maxDepth = o.maxDepth ?? RESOLVE_DEPTH_CEILING;
  // A loaded record may be attached as it is (one object under every link to it) only where
  // nothing writes into it: no deeper level of any path, and a caller that only reads the result.
  const shared = o.readOnly === true && !paths.some((p) => p.includes('::'));
  const steps = paths.map((path) => path.split('::').slice(0, maxDepth));
  // Every path's first level is found in the records as they are, before any is resolved: a
  // resolved record comes as its own GET returns it, without links of its own resolved (only
  // `a::b` goes into what `a` resolved). One batch for all of them.
  const first = steps.map((names) => {
    const links: Obj[] = [];
    findLinks(records, names[0], links);
    return links;
  });
  await attach(first.flat(), load, shared, o.shared);
  for (let i = 0; i < steps.length; i++) {
    let scope: Obj[] = first[i];
    for (const name of steps[i].slice(1)) {
      if (!scope.length) break;
      const links: Obj[] = [];
      findLinks(scope, name, links);
      await attach(links, load, shared);
      scope = links;
    }
  }
}

/** Gives each link its target's record (`shared`: the loaded object itself, listed in `given`, else a copy per link). */
async function attach(links: Obj[], load: UriLoader, shared: boolean, given?: Obj[]): Promise<void> {
  if (!links.length) return;
  const targets = await load([...new Set(links.map((l) => l.ref as string))]);
  for (const link of links) {
    const target = targets.get(link.ref as string);
    if (!target || link._resolved) continue;
    // Otherwise each link gets its own copy so deeper levels resolve per position.
    link._resolved = shared ? target : structuredClone(target);
    if (shared) given?.push(link);
  }
}
