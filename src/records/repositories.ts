import { errors } from '../errors';
import { REPOSITORY_TYPE } from '../registry';
import type { Services } from './context';

/** The repository a path names, which must exist (400 otherwise, as the reference answers). */
export async function requireRepository(s: Services, id: number): Promise<number> {
  const row = await s.db.knex('records').where({ type: REPOSITORY_TYPE, id }).first('rid');
  if (!row) throw errors.repositoryMissing();
  return id;
}

/** The URIs of the repositories users see (the hidden global one left out), in id order. */
export function visibleRepositoryUris(s: Services): Promise<string[]> {
  return s.db.knex('records').where({ type: REPOSITORY_TYPE, hidden: false }).orderBy('id').pluck('uri');
}
