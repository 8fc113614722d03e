import type { Handle } from '../store/database';
import type { Registry } from '../registry';
import { Actor, Grants, holds, loadGrants } from './grants';

/** The part of the services a permission check reads. */
type WithStore = { db: Handle };

export function actorGrants(s: WithStore, actor: Actor): Promise<Grants> {
  actor.grants ??= actor.access ? actor.access.grants(actor.username) : loadGrants(s.db, actor.username);
  return actor.grants;
}

/**
 * Whether the caller sees suppressed records (auth-and-permissions.md section 10): decided once
 * per request with the permission check, read by every operation that lists or reads records.
 */
export function maySeeSuppressed(s: WithStore, actor: Actor | null, repoId?: number): Promise<boolean> {
  return can(s, actor, 'index_system', repoId);
}

/** The one place a permission is decided. The anonymous caller holds nothing. */
export async function can(s: WithStore, actor: Actor | null, code: string, repoId?: number): Promise<boolean> {
  if (!actor) return false;
  return holds(await actorGrants(s, actor), code, repoId);
}

/** No guarding permission withheld (a call before its permission check). */
export const NOTHING_WITHHELD: ReadonlySet<string> = new Set();

/**
 * The permissions guarding properties (x-archive.guardedProperties: an agent's contacts) that the
 * caller does not hold: what its reads withhold and its writes cannot set.
 */
export async function withheldFrom(s: WithStore & { registry: Registry }, actor: Actor | null): Promise<ReadonlySet<string>> {
  const codes = s.registry.guardingPermissions();
  if (!codes.length) return NOTHING_WITHHELD;
  const withheld = new Set<string>();
  for (const code of codes) if (!(await can(s, actor, code))) withheld.add(code);
  return withheld;
}
