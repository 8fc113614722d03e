import type { Knex } from 'knex';
import type { Obj } from '../json';
import { isoSeconds } from './context';

/**
 * What the installation itself did that its administrators may want to know later (GET
 * /system/events, as ArchivesSpace's system_event table): migrations applied at a start, keys
 * derived again after a schema's rules changed. Kept in the store, so every process's are seen.
 */
export async function recordSystemEvent(knex: Knex, title: string, message: string): Promise<void> {
  await knex('system_events').insert({ title, message, time_ms: Date.now() });
}

/** GET /system/events: every recorded event, oldest first, as `{id, title, time, message}`. */
export async function systemEvents(knex: Knex): Promise<Obj[]> {
  const rows: Array<{ id: number; title: string; time_ms: number; message: string }> = await knex('system_events').orderBy('id').select('id', 'title', 'time_ms', 'message');
  return rows.map((r) => ({ id: Number(r.id), title: r.title, time: isoSeconds(Number(r.time_ms)), message: r.message }));
}
