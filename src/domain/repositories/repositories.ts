import type { Tx } from '../../store/database';
import { deleteRepositoryContents } from '../../store/repositories';
import type { Services, TypeHooks } from '../../records/context';

/** Repository rules: contained records deleted with it (its default groups: users/groups.ts). */
export const repositoryHooks: TypeHooks = {
  /** Deleting a repository deletes the records it holds (endpoints.md section 4): not refused. */
  async beforeDelete(trx, s, row) {
    await deleteContainedRecords(trx, s, row.id);
  },
};

async function deleteContainedRecords(trx: Tx, s: Services, repoId: number): Promise<void> {
  const scoped = Object.values(s.registry.types).filter((t) => t.scope === 'repository').map((t) => t.name);
  await deleteRepositoryContents(trx, repoId, scoped);
}
