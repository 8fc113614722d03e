/**
 * What the job types that read or change records share: checking the record a job names before it
 * is queued, walking a scope of records a page at a time, and saving an edited record through the
 * records engine (validated, keys, links and the change log re-derived, lock_version checked).
 */
import { errors } from '../errors';
import type { Obj } from '../json';
import type { Actor, Services } from '../records/context';
import { updateRecord, updateRecords } from '../records/write';
import { prepareRecord } from '../validation';
import { letEventLoopTurn } from '../event-loop';
import type { Tx } from '../store/database';
import { type JobScope, recordRowsPage } from '../store/job-reads';
import { recordQueries } from '../store/domain-reads';
import type { RecordRow } from '../store/records';

export type { JobScope };

/** Rows read per page while walking a scope. */
const PAGE = 200;

/**
 * A string property of the submitted job that ArchivesSpace's schema marks `ifmissing: error`:
 * missing or not a string is refused with its validation error.
 */
export function requiredString(job: Obj, name: string): string {
  const value = job[name];
  if (value === undefined || value === null || value === '') throw errors.propertyMissing(name);
  if (typeof value !== 'string') throw errors.wrongType(name, 'string', JSON.stringify(value));
  return value;
}

/** An optional boolean property of the submitted job (absent: false). */
export function optionalBoolean(job: Obj, name: string): boolean {
  const value = job[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw errors.wrongType(name, 'boolean', JSON.stringify(value));
  return value;
}

/** The record of `typeName` at `uri` in the job's repository (400 naming `param` when there is none). */
export async function recordInRepository(s: Services, repoId: number, param: string, uri: string, typeName: string): Promise<RecordRow> {
  const [row] = await recordQueries(s.db).getByUris([uri]);
  if (!row || row.type !== typeName || row.suppressed || row.hidden) throw errors.nothingAt(param, typeName, uri);
  if (row.repo_id !== repoId) throw errors.notIn(param, uri, `/repositories/${repoId}`);
  return row;
}

/** Each page of records in `scope`, in rid order, read on `h` (the job's transaction, or the store). */
export async function* pagesOf(h: Tx | Services['db'], scope: JobScope): AsyncGenerator<RecordRow[]> {
  let after = 0;
  for (;;) {
    const rows = await recordRowsPage(h, scope, after, PAGE);
    if (!rows.length) return;
    after = rows[rows.length - 1].rid!;
    yield rows;
  }
}

/**
 * Saves `record` (the stored JSON of `row`, edited) as an update by `actor` in `trx`: validated as
 * a client's save is, expecting the lock_version the row was read at (a save by someone else
 * meanwhile makes this one fail rather than undo theirs).
 */
export async function saveEdited(s: Services, actor: Actor, trx: Tx, row: RecordRow, record: Obj): Promise<void> {
  const prepared = prepareRecord(s.registry, s.enums, row.type, { ...record, lock_version: row.lock_version });
  const where = { type: s.registry.type(row.type), repoId: row.repo_id || undefined };
  await updateRecord(s, actor, where, row.id, { ...prepared.record, lock_version: row.lock_version }, prepared.warnings, { trx, current: row });
}

/**
 * saveEdited for a page of records read in `trx`, their rows written together (updateRecords):
 * each validated as a client's save is, each expecting the lock_version it was read at.
 */
export async function saveAllEdited(s: Services, actor: Actor, trx: Tx, edits: Array<{ row: RecordRow; record: Obj }>): Promise<void> {
  const prepared = [];
  for (const { row, record } of edits) {
    // Validating a page of records is work of its own: the event loop turns between them.
    await letEventLoopTurn();
    prepared.push({
      where: { type: s.registry.type(row.type), repoId: row.repo_id || undefined },
      row,
      body: prepareRecord(s.registry, s.enums, row.type, { ...record, lock_version: row.lock_version }).record,
    });
  }
  await updateRecords(s, actor, trx, prepared);
}

/** Thrown to stop a job's transaction when the job is canceled (it rolls back). */
export class JobCanceled extends Error {
  constructor() {
    super('canceled');
  }
}

export function stopIfCanceled(signal: AbortSignal): void {
  if (signal.aborted) throw new JobCanceled();
}
