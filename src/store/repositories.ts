/** What a repository holds beyond its records: settings per record type, and the deletion of its contents. */
import { bumpAccessVersion } from './access';
import { type Handle, readsOf, type Tx } from './database';
import { RecordQueries } from './records';
import { deletedVersionRows } from './history';
import { noteDeletion } from './transaction-memo';

interface SettingKey {
  repoId: number;
  kind: string;
  recordType: string;
}

const whereOf = (key: SettingKey) => ({ repo_id: key.repoId, kind: key.kind, record_type: key.recordType });

/** One setting's JSON and lock_version. */
export async function settingOf(h: Handle, key: SettingKey): Promise<{ json: string; lock_version: number } | undefined> {
  const row = await readsOf(h)('repository_settings').where(whereOf(key)).first('json', 'lock_version');
  return row ? { json: row.json, lock_version: Number(row.lock_version) } : undefined;
}

/** Writes a setting: its lock_version moves on by one, or a new one starts at 0. Answers the previous lock_version, if there was one. */
export async function saveSetting(trx: Tx, key: SettingKey, json: string): Promise<number | undefined> {
  const current = await trx('repository_settings').where(whereOf(key)).first('lock_version');
  if (current) await trx('repository_settings').where(whereOf(key)).update({ json, lock_version: Number(current.lock_version) + 1 });
  else await trx('repository_settings').insert({ ...whereOf(key), json });
  return current ? Number(current.lock_version) : undefined;
}

/** Replaces a setting whole (a new row, lock_version 0). */
export async function replaceSetting(trx: Tx, key: SettingKey, json: string): Promise<void> {
  await trx('repository_settings').where(whereOf(key)).delete();
  await trx('repository_settings').insert({ ...whereOf(key), json });
}

/**
 * Deletes the records of `types` in a repository with their derived rows and group memberships
 * (so the access version moves), and logs each deletion in the change log.
 */
export async function deleteRepositoryContents(trx: Tx, repoId: number, types: string[]): Promise<void> {
  const contained = () => trx('records').select('rid').where({ repo_id: repoId }).whereIn('type', types);
  const uris = await trx('records').select('type', 'uri').where({ repo_id: repoId }).whereIn('type', types);
  const rids = (await contained()).map((r: { rid: number }) => Number(r.rid));
  for (let i = 0; i < rids.length; i += 500) {
    const kept = await deletedVersionRows(trx, rids.slice(i, i + 500));
    for (let j = 0; j < kept.length; j += 100) await trx('record_history').insert(kept.slice(j, j + 100));
  }
  for (const table of ['unique_keys', 'lookup_keys']) await trx(table).whereIn('rid', contained()).delete();
  await trx('record_refs').whereIn('from_rid', contained()).delete();
  for (const table of ['group_members', 'group_grants']) await trx(table).whereIn('group_rid', contained()).delete();
  await bumpAccessVersion(trx);
  await trx('records').where({ repo_id: repoId }).whereIn('type', types).delete();
  noteDeletion();
  await new RecordQueries(trx).appendChanges(uris, 'delete', Date.now());
}
