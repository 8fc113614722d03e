/** Who edits which record since when (POST /update_monitor), shared by every process. */
import { type Handle, readsOf, type Tx } from './database';

/** Notes each edit (one row per record and user, the latest report) and forgets those reported before `expireBeforeMs`. */
export async function noteActiveEdits(trx: Tx, edits: Array<{ uri: string; username: string; atMs: number }>, expireBeforeMs: number): Promise<void> {
  for (const e of edits) {
    await trx('active_edits').where({ uri: e.uri, username: e.username }).delete();
    await trx('active_edits').insert({ uri: e.uri.slice(0, 255), username: e.username.slice(0, 255), at_ms: e.atMs });
  }
  await trx('active_edits').where('at_ms', '<', expireBeforeMs).delete();
}

/** Every edit noted, oldest report first. */
export async function activeEdits(h: Handle): Promise<Array<{ uri: string; username: string; at_ms: number }>> {
  return readsOf(h)('active_edits').orderBy('at_ms');
}
