import type { Knex } from 'knex';
import type { TypeInfo } from '../registry';
import { ApiError, ErrorMap, errors } from '../errors';
import { RecordQueries, RecordRow, SORT_COLUMNS, UniqueKeyTaken } from '../store/records';
import type { Obj } from '../validation/walk';
import { Actor, isoSeconds, Services } from './context';
import { lookupKeys, ruleName, uniqueKeys } from './keys';
import { checkRefs, collectRefs, unlink } from './refs';
import { resolveLinks } from './resolve';
import { fullTree } from '../trees/views';

/** The id of the hidden global repository (auth-and-permissions.md section 7). */
export const GLOBAL_REPO_ID = 1;

export interface WriteResult {
  status: 'Created' | 'Updated';
  id: number;
  lock_version: number;
  stale: null;
  uri: string;
  warnings: ErrorMap | [];
}

export interface Where {
  type: TypeInfo;
  /** The path's repository for repository-scoped types. */
  repoId?: number;
  /** The caller may see suppressed records (auth-and-permissions.md section 10). */
  showSuppressed?: boolean;
}

export function recordUri(where: Where, id: number): string {
  return `${where.type.uri!.replace(':repo_id', String(where.repoId))}/${id}`;
}

function warningsOf(map: ErrorMap): ErrorMap | [] {
  return Object.keys(map).length ? map : [];
}

/** The record as served: cleaned body plus the system fields the server owns. */
function composeRecord(where: Where, id: number, body: Obj, system: {
  lockVersion: number; createdBy: string; modifiedBy: string; createMs: number; nowMs: number;
}): Obj {
  const { lock_version: _ignored, jsonmodel_type: _type, ...fields } = body;
  const record: Obj = {
    lock_version: system.lockVersion,
    jsonmodel_type: where.type.name,
    ...fields,
    uri: recordUri(where, id),
    created_by: system.createdBy,
    last_modified_by: system.modifiedBy,
    create_time: isoSeconds(system.createMs),
    system_mtime: isoSeconds(system.nowMs),
    user_mtime: isoSeconds(system.nowMs),
  };
  if (where.type.scope === 'repository') record.repository = { ref: `/repositories/${where.repoId}` };
  return record;
}

/** Keys, find_by_id values and links derived from the record; `fresh` when it was just inserted (nothing to replace). */
async function saveDerived(q: RecordQueries, s: Services, where: Where, rid: number, record: Obj, fresh: boolean): Promise<void> {
  const repoId = where.repoId ?? 0;
  try {
    await q.setUniqueKeys(rid, where.type.name, uniqueKeys(where.type, record, repoId), fresh);
  } catch (err) {
    if (!(err instanceof UniqueKeyTaken)) throw err;
    const rule = where.type.unique!.find((r) => ruleName(r) === err.rule)!;
    const body: ErrorMap = { [rule.errorPath]: [rule.message.replace(/\{(\w+)\}/g, (_, k) => String(record[k] ?? ''))] };
    if (rule.conflictingRecord && err.holderRid !== null) {
      const holder = await q.uriOf(err.holderRid);
      if (holder) body.conflicting_record = [holder];
    }
    throw errors.conflictOnSave(body);
  }
  await q.setLookupKeys(rid, where.type.name, repoId, lookupKeys(where.type, record), fresh);
  const refs = collectRefs(s.registry, where.type.name, record);
  await checkRefs(q, s.registry, refs, where.type.scope === 'repository' ? where.repoId : undefined, record.uri);
  await q.setRefs(rid, refs, fresh);
}

function checkRepositoryScope(where: Where): void {
  if (where.type.scope === 'repository' && where.repoId === GLOBAL_REPO_ID && !where.type.allowInGlobalRepository) {
    throw errors.globalRepositoryRecord();
  }
}

export async function createRecord(
  s: Services,
  actor: Actor,
  where: Where,
  body: Obj,
  warnings: ErrorMap,
  options: { id?: number; hidden?: boolean; trx?: Knex.Transaction } = {},
): Promise<WriteResult> {
  checkRepositoryScope(where);
  const run = async (trx: Knex.Transaction) => {
    const q = new RecordQueries(trx);
    let id = options.id;
    if (id === undefined) id = await q.nextId(where.type.name);
    else await q.reserveId(where.type.name, id);
    const nowMs = Date.now();
    const hooks = s.hooks[where.type.name];
    const state = await hooks?.beforeSave?.(trx, s, where, body);
    const record = composeRecord(where, id, body, {
      lockVersion: 0, createdBy: actor.username, modifiedBy: actor.username, createMs: nowMs, nowMs,
    });
    const rid = await q.insert({
      type: where.type.name,
      id,
      repo_id: where.repoId ?? 0,
      uri: record.uri,
      json: JSON.stringify(record),
      lock_version: 0,
      create_time_ms: nowMs,
      system_mtime_ms: nowMs,
      user_mtime_ms: nowMs,
      hidden: options.hidden ?? false,
    });
    await saveDerived(q, s, where, rid, record, true);
    await hooks?.afterSave?.(trx, s, { where, rid, id, record, created: true, actor, state });
    await q.appendChange(where.type.name, record.uri, 'upsert', nowMs);
    return { status: 'Created' as const, id, lock_version: 0, stale: null, uri: record.uri, warnings: warningsOf(warnings) };
  };
  return options.trx ? run(options.trx) : s.db.transaction(run);
}

/** Read-only properties belong to the server: an update keeps them (clients cannot send them). */
function keepServerOwnedFields(type: TypeInfo, previous: Obj, body: Obj): void {
  for (const [name, info] of Object.entries(type.props)) {
    if (info.readOnly && previous[name] !== undefined && body[name] === undefined) body[name] = previous[name];
  }
}

function lockVersionOf(body: Obj): number {
  const raw = body.lock_version;
  if (raw === undefined || raw === null || raw === '') throw errors.missingLockVersion();
  const n = typeof raw === 'number' ? raw : Number(raw);
  // A lock_version that is not a whole number can never match the stored one.
  if (!Number.isInteger(n)) throw errors.staleLockVersion();
  return n;
}

async function fetchRow(q: RecordQueries, where: Where, id: number): Promise<RecordRow> {
  const row = await q.get(where.type.name, id);
  const scoped = where.type.scope === 'repository';
  if (!row || (scoped && row.repo_id !== where.repoId) || (scoped && row.suppressed && !where.showSuppressed)) {
    throw errors.notFound(where.type.model);
  }
  return row;
}

export async function updateRecord(
  s: Services,
  actor: Actor,
  where: Where,
  id: number,
  body: Obj,
  warnings: ErrorMap,
  options: { trx?: Knex.Transaction } = {},
): Promise<WriteResult> {
  const run = async (trx: Knex.Transaction) => {
    const q = new RecordQueries(trx);
    const row = await fetchRow(q, where, id);
    const expected = lockVersionOf(body);
    if (expected !== row.lock_version) throw errors.staleLockVersion();
    if (row.suppressed) throw errors.suppressedUpdate();
    const previous = JSON.parse(row.json);
    keepServerOwnedFields(where.type, previous, body);
    const nowMs = Date.now();
    const hooks = s.hooks[where.type.name];
    const state = await hooks?.beforeSave?.(trx, s, where, body, previous);
    const record = composeRecord(where, id, body, {
      lockVersion: expected + 1,
      createdBy: previous.created_by,
      modifiedBy: actor.username,
      createMs: row.create_time_ms,
      nowMs,
    });
    const updated = await q.update(row.rid!, expected, {
      json: JSON.stringify(record),
      lock_version: expected + 1,
      system_mtime_ms: nowMs,
      user_mtime_ms: nowMs,
    });
    if (!updated) throw errors.staleLockVersion();
    await saveDerived(q, s, where, row.rid!, record, false);
    await hooks?.afterSave?.(trx, s, { where, rid: row.rid!, id, record, created: false, actor, state, previous });
    await q.appendChange(where.type.name, record.uri, 'upsert', nowMs);
    return { status: 'Updated' as const, id, lock_version: expected + 1, stale: null, uri: record.uri, warnings: warningsOf(warnings) };
  };
  return options.trx ? run(options.trx) : s.db.transaction(run);
}

export async function deleteRecord(
  s: Services, where: Where, id: number, options: { trx?: Knex.Transaction } = {},
): Promise<{ status: 'Deleted'; id: number }> {
  const run = async (trx: Knex.Transaction) => {
    const q = new RecordQueries(trx);
    const row = await fetchRow(q, where, id);
    const referrers = await q.referrers(row.uri);
    if (where.type.refuseDeleteIfLinked && referrers.length) {
      throw new ApiError(409, { error: where.type.refuseDeleteIfLinked });
    }
    await s.hooks[where.type.name]?.beforeDelete?.(trx, s, row);
    await q.delete(row.rid!);
    await q.appendChange(where.type.name, row.uri, 'delete', Date.now());
    for (const referrer of referrers) await dropLinksTo(q, s, referrer, row.uri);
  };
  await (options.trx ? run(options.trx) : s.db.transaction(run));
  return { status: 'Deleted', id };
}

/**
 * Deleting a record removes the links other records hold to it (errors.md section 5: subjects,
 * agents, top containers, digital objects are not refused); each such record counts as updated.
 */
async function dropLinksTo(q: RecordQueries, s: Services, referrer: RecordRow, uri: string): Promise<void> {
  const type = s.registry.types[referrer.type];
  const stillThere = await q.get(referrer.type, referrer.id);
  if (!type || !stillThere) return;
  const record = JSON.parse(stillThere.json);
  if (!unlink(record, uri)) return;
  const nowMs = Date.now();
  record.lock_version = stillThere.lock_version + 1;
  record.system_mtime = isoSeconds(nowMs);
  await q.update(stillThere.rid!, stillThere.lock_version, {
    json: JSON.stringify(record), lock_version: record.lock_version, system_mtime_ms: nowMs,
  });
  await saveDerived(q, s, { type, repoId: referrer.repo_id || undefined }, stillThere.rid!, record, false);
  await q.appendChange(referrer.type, referrer.uri, 'upsert', nowMs);
}

/** The stored record (for domain code that reads before it writes). */
export async function readRecord(s: Services, where: Where, id: number, db: Knex | Knex.Transaction = s.db.knex): Promise<Obj> {
  return JSON.parse((await fetchRow(new RecordQueries(db), where, id)).json);
}

/** Loader for resolve[]: a batch of URIs → records (scope is not checked, as in the reference). */
export function uriLoader(s: Services) {
  return async (uris: string[]) => {
    const rows = await new RecordQueries(s.db.knex).getByUris(uris);
    const records = rows.map((r) => JSON.parse(r.json) as Obj);
    await decorateRecords(s, records);
    const found = new Map(records.map((r) => [r.uri as string, r]));
    for (const uri of uris.filter((u) => u.endsWith('/tree'))) {
      const tree = await loadTree(s, uri);
      if (tree) found.set(uri, tree);
    }
    return found;
  };
}

/** resolve[]=tree: a root's `tree` link resolves to its whole tree (pagination-and-resolve.md section 5). */
async function loadTree(s: Services, treeUri: string): Promise<Obj | undefined> {
  const rootUri = treeUri.slice(0, -'/tree'.length);
  const root = s.registry.typeOfUri(rootUri);
  const node = Object.values(s.registry.types).find((t) => t.tree?.root === root?.name);
  if (!root || !node) return undefined;
  const row = await s.db.knex('records').where({ uri: rootUri }).first('id', 'repo_id');
  return row ? fullTree(s, { root, node }, Number(row.repo_id), Number(row.id)) : undefined;
}

/** Lets each type's hook add what it computes from storage, one batch per type. */
export async function decorateRecords(s: Services, records: Obj[], db: Knex | Knex.Transaction = s.db.knex): Promise<void> {
  const byType = new Map<string, Obj[]>();
  for (const r of records) byType.set(r.jsonmodel_type, [...(byType.get(r.jsonmodel_type) ?? []), r]);
  for (const [type, group] of byType) await s.hooks[type]?.decorate?.(db, s, group);
}

/** One record as JSON text; the stored text is served as is unless links are resolved. */
export async function getRecordJson(s: Services, where: Where, id: number, o: ListOptions = {}): Promise<string> {
  const row = await fetchRow(new RecordQueries(s.db.knex), where, id);
  return (await rowsToJson(s, [row], o)).slice(1, -1);
}

export interface ListOptions {
  modifiedSince?: number;
  sortField?: string;
  sortDirection?: 'asc' | 'desc';
  resolve?: string[];
  /** Adds computed fields to each record before it is served. */
  decorate?: (records: Obj[]) => Promise<void>;
}

function listQuery(s: Services, where: Where, o: ListOptions) {
  const sortColumn = SORT_COLUMNS[o.sortField ?? 'id'];
  if (!sortColumn) {
    throw errors.params({
      sort_field: [`Failed validation -- must be one of ${Object.keys(SORT_COLUMNS).join(', ')} but given: ${o.sortField}`],
    });
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

async function rowsToJson(s: Services, rows: RecordRow[], o: ListOptions): Promise<string> {
  const typeDecorates = rows.some((r) => s.hooks[r.type]?.decorate);
  if (!o.resolve?.length && !o.decorate && !typeDecorates) return `[${rows.map((r) => r.json).join(',')}]`;
  const records = rows.map((r) => JSON.parse(r.json));
  if (typeDecorates) await decorateRecords(s, records);
  await o.decorate?.(records);
  if (o.resolve?.length) await resolveLinks(records, o.resolve, uriLoader(s));
  return JSON.stringify(records);
}

export async function listPage(s: Services, where: Where, page: number, pageSize: number, o: ListOptions): Promise<string> {
  const q = new RecordQueries(s.db.knex);
  const base = listQuery(s, where, o);
  const [total, rows] = await Promise.all([
    q.count(base),
    q.list({ ...base, limit: pageSize, offset: (page - 1) * pageSize }),
  ]);
  const lastPage = Math.max(1, Math.ceil(total / pageSize));
  const results = await rowsToJson(s, rows, o);
  return `{"first_page":1,"last_page":${lastPage},"this_page":${page},"total":${total},"results":${results}}`;
}

export async function listIdSet(s: Services, where: Where, ids: number[], o: ListOptions): Promise<string> {
  const rows = await new RecordQueries(s.db.knex).list({ ...listQuery(s, where, o), ids });
  return rowsToJson(s, rows, o);
}

export async function listAllIds(s: Services, where: Where, o: ListOptions): Promise<number[]> {
  return new RecordQueries(s.db.knex).listIds(listQuery(s, where, o));
}

/** Unlimited listings: every visible record, as a plain array. */
export async function listAll(s: Services, where: Where, o: ListOptions): Promise<string> {
  const rows = await new RecordQueries(s.db.knex).list(listQuery(s, where, o));
  return rowsToJson(s, rows, o);
}

export { ApiError };
