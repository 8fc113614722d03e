import { RecordQueries } from '../../store/records';
import { noteDeletion } from '../../store/transaction-memo';
import type { Knex } from 'knex';
import { errors } from '../../errors';
import { REPOSITORY_TYPE } from '../../registry';
import type { Services, TypeHooks } from '../../records/context';
import { bumpAccessVersion } from '../../access/access-version';

/** Repository rules: contained records deleted with it (its default groups: users/groups.ts). */
export const repositoryHooks: TypeHooks = {
  /** Deleting a repository deletes the records it holds (endpoints.md section 4): not refused. */
  async beforeDelete(trx, s, row) {
    await deleteContainedRecords(trx, s, row.id);
  },
};

async function deleteContainedRecords(trx: Knex.Transaction, s: Services, repoId: number): Promise<void> {
  const scoped = Object.values(s.registry.types).filter((t) => t.scope === 'repository').map((t) => t.name);
  const contained = () => trx('records').select('rid').where({ repo_id: repoId }).whereIn('type', scoped);
  const uris = await trx('records').select('type', 'uri').where({ repo_id: repoId }).whereIn('type', scoped);
  for (const table of ['unique_keys', 'lookup_keys']) await trx(table).whereIn('rid', contained()).delete();
  await trx('record_refs').whereIn('from_rid', contained()).delete();
  for (const table of ['group_members', 'group_grants']) await trx(table).whereIn('group_rid', contained()).delete();
  await bumpAccessVersion(trx);
  await trx('records').where({ repo_id: repoId }).whereIn('type', scoped).delete();
  noteDeletion();
  await new RecordQueries(trx).appendChanges(uris, 'delete', Date.now());
}
