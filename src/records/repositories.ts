import { errors } from '../errors';
import { REPOSITORY_TYPE } from '../registry';
import { RecordQueries } from '../store/records';
import type { Services } from './context';

/** The repository a path names, which must exist (400 otherwise, as the reference answers). */
export async function requireRepository(s: Services, id: number): Promise<number> {
  if (!(await new RecordQueries(s.db.reads).keysOf(REPOSITORY_TYPE, id))) throw errors.repositoryMissing();
  return id;
}

/** The URIs of the repositories users see (the hidden global one left out), in id order. */
export function visibleRepositoryUris(s: Services): Promise<string[]> {
  return new RecordQueries(s.db.reads).visibleUrisOf(REPOSITORY_TYPE);
}
