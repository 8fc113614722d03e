import type { Queryable } from '../store/dialect';
import { insertSystemEvent, systemEventRows } from '../store/system-events';
import type { Obj } from '../json';
import { isoSeconds } from './context';

/**
 * What the installation itself did that its administrators may want to know later (GET
 * /system/events, as ArchivesSpace's system_event table): migrations applied at a start, keys
 * derived again after a schema's rules changed. Kept in the store, so every process's are seen.
 */
export async function recordSystemEvent(db: Queryable, title: string, message: string): Promise<void> {
  await insertSystemEvent(db, title, message, Date.now());
}

/** GET /system/events: every recorded event, oldest first, as `{id, title, time, message}`. */
export async function systemEvents(db: Queryable): Promise<Obj[]> {
  const rows = await systemEventRows(db);
  return rows.map((r) => ({ id: Number(r.id), title: r.title, time: isoSeconds(Number(r.time_ms)), message: r.message }));
}
