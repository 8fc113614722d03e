import { errors } from '../errors';
import { type Obj, stringifySharing } from '../json';
import { type ListedRow, type ListQuery, RecordQueries, recordReads, SORT_COLUMNS } from '../store/records';
import { keptUntilNextWrite } from '../store/until-next-write';
import type { Services, Where } from './context';
import { decorateRecords, decoratesType, fetchRow, uriLoader } from './load';
import { withhold, withholdsFrom } from './guarded';
import { resolveLinks } from './resolve';

/** The read operations: one record, and the listings (page, id_set, all_ids, unlimited) as served JSON text. */

/** One record as JSON text; the stored text is served as is unless links are resolved. */
export async function getRecordJson(s: Services, where: Where, id: number, o: ListOptions = {}): Promise<string> {
  const row = await fetchRow(recordReads(s), where, id);
  if (!o.resolve?.length && !o.decorate && !decoratesType(s, row.type) && !withholdsFrom(s.registry, row.type, o.withheld)) return row.json;
  return servedJson(s, [row], o, (records) => records[0]);
}

export interface ListOptions {
  modifiedSince?: number;
  sortField?: string;
  sortDirection?: 'asc' | 'desc';
  resolve?: string[];
  /** Adds computed fields to each record before it is served. */
  decorate?: (records: Obj[]) => Promise<void>;
  /** The guarding permissions the caller lacks (Call.withheld): guarded properties of the records, and of those resolved, are emptied. */
  withheld?: ReadonlySet<string>;
}

function listQuery(s: Services, where: Where, o: ListOptions) {
  const sortColumn = SORT_COLUMNS[o.sortField ?? 'id'];
  if (!sortColumn) {
    throw errors.mustBeOneOf('sort_field', Object.keys(SORT_COLUMNS), o.sortField);
  }
  return {
    type: where.type.name,
    repoId: where.type.scope === 'repository' ? where.repoId : undefined,
    includeSuppressed: where.type.scope !== 'repository' || !!where.showSuppressed,
    modifiedSinceMs: o.modifiedSince ? o.modifiedSince * 1000 : undefined,
    sortColumn,
    sortDirection: o.sortDirection ?? 'asc',
  } as const;
}

/**
 * The records as JSON text (`pick` chooses what of them is served), with what is computed at read
 * time: type hooks, the caller's decorate, resolve[]. Served as text straight away, so nothing
 * writes into the resolved records: each linked record is the one kept until the next write, its
 * text made once (stringifySharing).
 */
async function servedJson(
  s: Services, rows: Array<{ type: string; json: string }>, o: ListOptions, pick: (records: Obj[]) => unknown = (records) => records,
): Promise<string> {
  const records = rows.map((r) => JSON.parse(r.json));
  if (rows.some((r) => decoratesType(s, r.type))) await decorateRecords(s, records);
  await o.decorate?.(records);
  withhold(s.registry, records, o.withheld);
  const holders: Obj[] = [];
  if (o.resolve?.length) await resolveLinks(records, o.resolve, uriLoader(s, { withheld: o.withheld }), { readOnly: true, shared: holders });
  return stringifySharing(pick(records), holders, '_resolved');
}

/** A JSON array of the listed records: their stored text joined where nothing is computed at read time. */
async function rowsToJson(s: Services, rows: ListedRow[], o: ListOptions): Promise<string> {
  if (o.resolve?.length || o.decorate || rows.some((r) => decoratesType(s, r.type) || withholdsFrom(s.registry, r.type, o.withheld))) return servedJson(s, rows, o);
  return `[${rows.map((r) => r.json).join(',')}]`;
}

/** The listed records as a JSON array: joined by the store where nothing is computed at read time and it can, else row by row. */
async function listed(s: Services, where: Where, q: ListQuery, o: ListOptions): Promise<string> {
  const records = new RecordQueries(s.db.reads);
  const computed = o.resolve?.length || o.decorate || decoratesType(s, where.type.name) || withholdsFrom(s.registry, where.type.name, o.withheld);
  const reader = computed ? undefined : s.db.readConnection?.();
  if (reader) return records.listTextOn(reader, q);
  return rowsToJson(s, await records.list(q), o);
}

export async function listPage(s: Services, where: Where, page: number, pageSize: number, o: ListOptions): Promise<string> {
  const base = listQuery(s, where, o);
  // The total is kept until the next write: paging through 100,000 records counts them once.
  const [total, results] = await Promise.all([
    keptUntilNextWrite(s, `count:${JSON.stringify(base)}`, () => new RecordQueries(s.db.reads).count(base)),
    listed(s, where, { ...base, limit: pageSize, offset: (page - 1) * pageSize }, o),
  ]);
  const lastPage = Math.max(1, Math.ceil(total / pageSize));
  const head = `{"first_page":1,"last_page":${lastPage},"this_page":${page},"total":${total},"results":`;
  return `${head}${results}}`;
}

export async function listIdSet(s: Services, where: Where, ids: number[], o: ListOptions): Promise<string> {
  return listed(s, where, { ...listQuery(s, where, o), ids }, o);
}

export async function listAllIds(s: Services, where: Where, o: ListOptions): Promise<number[]> {
  const records = new RecordQueries(s.db.reads);
  const reader = s.db.readConnection?.();
  return reader ? records.listIdsOn(reader, listQuery(s, where, o)) : records.listIds(listQuery(s, where, o));
}

/** Unlimited listings: every visible record, as a plain array. */
export async function listAll(s: Services, where: Where, o: ListOptions): Promise<string> {
  return listed(s, where, listQuery(s, where, o), o);
}

