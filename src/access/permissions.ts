import type { Actor, Services } from '../operations/context';
import { Grants, holds, loadGrants } from './grants';

export function actorGrants(s: Services, actor: Actor): Promise<Grants> {
  actor.grants ??= loadGrants(s.db.knex, actor.username);
  return actor.grants;
}

/** The one place a permission is decided. The anonymous caller holds nothing. */
export async function can(s: Services, actor: Actor | null, code: string, repoId?: number): Promise<boolean> {
  if (!actor) return false;
  return holds(await actorGrants(s, actor), code, repoId);
}
