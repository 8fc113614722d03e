import { lookupHash, lookupValue } from '../../records/keys';
import type { Services } from '../../records/context';
import { firstByLookup } from '../../store/domain-reads';

/**
 * GET /slug?slug=&controller=&action= (the public interface's human-readable URLs): the record of
 * the controller's types whose `slug` is the one given, in any repository, as
 * `{"id", "table", "repo_id"}`; `{"id": -1, ...}` when there is none, as the original answers.
 * Which types a controller serves is declared per type (x-archive.slugRoute); an action that
 * some type names (classifications' `term`) picks those types, any other the rest.
 */
export async function findBySlug(s: Services, slug: string, controller: string, action?: string): Promise<{ id: number; table: string | null; repo_id: number | null }> {
  const served = Object.values(s.registry.types).filter((t) => t.slugRoute?.controller === controller);
  const named = served.filter((t) => action !== undefined && t.slugRoute?.action === action);
  const types = (named.length ? named : served.filter((t) => t.slugRoute?.action === undefined)).map((t) => t.name);
  const table = types.length === 1 ? types[0] : null;
  if (!types.length) return { id: -1, table, repo_id: -1 };
  const row = await firstByLookup(s.db, types, 'slug', lookupHash(lookupValue(undefined, [slug])));
  if (!row) return { id: -1, table, repo_id: -1 };
  const repoId = Number(row.repo_id);
  return { id: Number(row.id), table: String(row.type), repo_id: repoId === 0 ? null : repoId };
}
