import type { Queryable } from './dialect';

/** The installation's own events (records/system-events.ts): kept in the store, so every process's are seen. */

export async function insertSystemEvent(db: Queryable, title: string, message: string, timeMs: number): Promise<void> {
  await db('system_events').insert({ title, message, time_ms: timeMs });
}

/** Every recorded event, oldest first. */
export function systemEventRows(db: Queryable): Promise<Array<{ id: number; title: string; time_ms: number; message: string }>> {
  return db('system_events').orderBy('id').select('id', 'title', 'time_ms', 'message');
}
