import type { Knex } from 'knex';
import type { RecordRow } from '../store/records';
import type { Services } from './context';

/** Domain rules that only some types have; everything else is generic. */
export interface TypeHooks {
  beforeDelete?(trx: Knex.Transaction, s: Services, row: RecordRow): Promise<void>;
}

export const typeHooks: Record<string, TypeHooks> = {
  repository: {
    /** Deleting a repository deletes the records it holds (endpoints.md section 4), not refused. */
    async beforeDelete(trx, s, row) {
      const scoped = s.registry.routedTypes().filter((t) => t.scope === 'repository').map((t) => t.name);
      const rids = trx('records').select('rid').where({ repo_id: row.id }).whereIn('type', scoped);
      const uris = await trx('records').select('type', 'uri').where({ repo_id: row.id }).whereIn('type', scoped);
      for (const table of ['unique_keys', 'lookup_keys']) await trx(table).whereIn('rid', rids.clone()).delete();
      await trx('record_refs').whereIn('from_rid', rids.clone()).delete();
      await trx('records').where({ repo_id: row.id }).whereIn('type', scoped).delete();
      const now = Date.now();
      for (const chunk of chunks(uris, 500)) {
        await trx('change_log').insert(chunk.map((u: { type: string; uri: string }) => ({ type: u.type, uri: u.uri, op: 'delete', at_ms: now })));
      }
    },
  },
};

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
