import type { Actor, Services } from '../operations/context';

/**
 * The one place a permission is decided. Until groups land, any logged-in user holds every
 * permission and the anonymous caller holds none (endpoints with a null permission are open).
 */
export async function can(_s: Services, actor: Actor | null, _code: string, _repoId?: number): Promise<boolean> {
  return actor !== null;
}
