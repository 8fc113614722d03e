import type { Handle } from '../store/database';
import { grantRowsOf } from '../store/access';
import { derivedFrom, PERMISSION_BY_CODE } from './permission-table';
import { GLOBAL_REPO_ID } from '../registry';

/** Who calls: a logged-in user (the anonymous caller is null wherever an Actor may be). */
export interface Actor {
  username: string;
  /** Loaded once per request, on the first permission check. */
  grants?: Promise<Grants>;
  /** Where the request found its session: grants come from there too (access/cache.ts). */
  access?: { grants(username: string): Promise<Grants> };
}

/** What a user holds through group membership, by repository id. */
export interface Grants {
  byRepo: Map<number, Set<string>>;
  derived: Set<string>;
}

export async function loadGrants(db: Handle, username: string): Promise<Grants> {
  const rows = await grantRowsOf(db, username);
  const byRepo = new Map<number, Set<string>>();
  for (const row of rows) {
    const repo = Number(row.repo_id);
    if (!byRepo.has(repo)) byRepo.set(repo, new Set());
    byRepo.get(repo)!.add(row.permission);
  }
  const all = [...byRepo.values()].flatMap((codes) => [...codes]);
  return { byRepo, derived: derivedFrom(all) };
}

/**
 * User#can? (auth-and-permissions.md section 8): derived codes count everywhere; a stored code
 * counts when granted in the active repository or in the global repository.
 */
export function holds(grants: Grants, code: string, repoId?: number): boolean {
  if (grants.derived.has(code)) return true;
  const def = PERMISSION_BY_CODE.get(code);
  if (!def || def.impliedBy) return false;
  if (repoId !== undefined && grants.byRepo.get(repoId)?.has(code)) return true;
  return grants.byRepo.get(GLOBAL_REPO_ID)?.has(code) ?? false;
}

/** The `permissions` object shown on users (section 9). */
export function permissionsObject(grants: Grants): Record<string, string[]> {
  const derived = [...grants.derived];
  const out: Record<string, string[]> = {};
  for (const [repo, codes] of [...grants.byRepo.entries()].sort(([a], [b]) => a - b)) {
    out[`/repositories/${repo}`] = [...new Set([...derived, ...codes])];
  }
  out._archivesspace = [...new Set([...(grants.byRepo.get(GLOBAL_REPO_ID) ?? []), 'edit_user_self', ...derived])];
  return out;
}
