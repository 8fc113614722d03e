import { bumpAccessVersion } from '../../access/access-version';
import { can } from '../../access/permissions';
import { errors } from '../../errors';
import type { Preference } from '../../../generated/types';
import type { Obj } from '../../json';
import { GLOBAL_REPO_ID } from '../../registry';
import type { Services, TypeHooks } from '../../records/context';
import { jsonOfType } from '../../store/domain-reads';
import { userIdOf } from '../../store/users';

/**
 * Who may write preferences (preferences.rb check_prefs_permissions): a user their own; a
 * repository's defaults need manage_repository there; the installation's (global repository)
 * administer_system.
 */
export const preferenceHooks: TypeHooks = {
  async afterSave(trx, s, saved) {
    const repoId = saved.where.repoId!;
    const userId = (saved.record as Preference).user_id;
    const own = userId !== undefined && userId === (await userIdOf(trx, saved.actor.username));
    const code = repoId === GLOBAL_REPO_ID ? 'administer_system' : 'manage_repository';
    // Read inside the write's transaction (SQLite has one connection).
    if (!own && !(await can({ db: trx }, saved.actor, code, repoId))) throw errors.accessDenied();
    // Processes keep each caller's preferred defaults under the access version (access/cache.ts).
    await bumpAccessVersion(trx);
  },
  async beforeDelete(trx) {
    await bumpAccessVersion(trx);
  },
};

async function prefsOf(s: Services, repoId: number): Promise<Preference[]> {
  return (await jsonOfType(s.db, 'preference', { repoId })).map((json) => JSON.parse(json) as Preference);
}

/**
 * The preferences that apply in a repository for a user, most general first: the installation's,
 * the user's own everywhere, the repository's, the user's own in the repository.
 */
export async function currentPreferences(s: Services, repoId: number, username: string | undefined): Promise<Record<string, Preference>> {
  const userId = username ? await userIdOf(s.db, username) : undefined;
  const global = await prefsOf(s, GLOBAL_REPO_ID);
  const local = repoId === GLOBAL_REPO_ID ? [] : await prefsOf(s, repoId);
  const pick = (list: Preference[], user: boolean) => list.find((p) => (user ? userId !== undefined && p.user_id === userId : p.user_id === undefined));
  const layers: Record<string, Preference | undefined> = {
    global: pick(global, false), user_global: pick(global, true), repo: pick(local, false), user_repo: pick(local, true),
  };
  return Object.fromEntries(Object.entries(layers).filter((e): e is [string, Preference] => !!e[1]));
}

/** The defaults in effect: each layer's defaults over the more general ones. */
export async function effectiveDefaults(s: Services, repoId: number, username: string | undefined): Promise<Obj> {
  const layers = await currentPreferences(s, repoId, username);
  const out: Obj = {};
  for (const key of ['global', 'user_global', 'repo', 'user_repo']) Object.assign(out, layers[key]?.defaults ?? {});
  return out;
}
