import type { Tx } from '../store/database';
import type { TypeInfo } from '../registry';
import { GLOBAL_REPO_ID } from '../registry';
import { ErrorMap, errors } from '../errors';
import type { Obj } from '../json';
import { dropIdBlock, idBeforeTransaction, type Linking, RecordQueries, RecordRow } from '../store/records';
import type { PlaceColumns } from '../store/positions';
import type { ExplainClash } from '../store/transaction-memo';
import { isUniqueViolation, LostRace } from '../store/store-errors';
import { Actor, isoSeconds, Services, Where, writeTransaction } from './context';
import { lookupKeys, ruleName, uniqueKeys } from './keys';
import { checkRefs, collectRefs, linkTargets, repoint, unlink } from './refs';
import { fetchRow, recordUri } from './load';
import { applyGenerated } from './generated';
import { addressSubrecords } from './subrecord-addresses';
import { planOf } from '../validation/walk';
import { letEventLoopTurn } from '../event-loop';

/**
 * The write operations every type shares: create, update, delete, each in one transaction that
 * also derives keys, lookups and links and appends the change-log entry the indexer follows.
 */

export interface WriteResult {
  status: 'Created' | 'Updated';
  id: number;
  lock_version: number;
  stale: null;
  uri: string;
  warnings: ErrorMap | [];
}

function warningsOf(map: ErrorMap): ErrorMap | [] {
  return Object.keys(map).length ? map : [];
}

/** The record as served: cleaned body plus the system fields the server owns. */
function composeRecord(where: Where, id: number, body: Obj, system: {
  lockVersion: number; createdBy: string; modifiedBy: string; createMs: number; nowMs: number;
}): Obj {
  // The body's fields copied once, in its order, between the two the server puts first and those
  // it sets last (a field the body also has keeps its place and takes the server's value).
  const record: Obj = { lock_version: system.lockVersion, jsonmodel_type: where.type.name };
  for (const key in body) if (key !== 'lock_version' && key !== 'jsonmodel_type') record[key] = body[key];
  const now = isoSeconds(system.nowMs);
  record.uri = recordUri(where, id);
  record.created_by = system.createdBy;
  record.last_modified_by = system.modifiedBy;
  record.create_time = system.createMs === system.nowMs ? now : isoSeconds(system.createMs);
  record.system_mtime = now;
  record.user_mtime = now;
  if (where.type.scope === 'repository') record.repository = { ref: `/repositories/${where.repoId}` };
  // Suppression is the server's (the suppressed route): a new record of a suppressible type is not.
  if (where.type.props.suppressed && record.suppressed === undefined) record.suppressed = false;
  return record;
}

/** Derived rows compare equal when they hold the same values in the same order. */
function sameRows<T extends object>(a: T[], b: T[]): boolean {
  return a.length === b.length && a.every((row, i) => JSON.stringify(row) === JSON.stringify(b[i]));
}

/** How a save reports a unique key another record holds: the rule's message, and the holder where the rule names it. */
function clashOnSave(q: RecordQueries, where: Where, record: Obj): ExplainClash {
  return async (ruleTaken, holderRid) => {
    const rule = where.type.unique!.find((r) => ruleName(r) === ruleTaken)!;
    const body: ErrorMap = { [rule.errorPath]: [rule.message.replace(/\{(\w+)\}/g, (_, k) => String(record[k] ?? ''))] };
    if (rule.conflictingRecord && holderRid !== null) {
      const holder = await q.uriOf(holderRid);
      if (holder) body.conflicting_record = [holder];
    }
    return errors.conflictOnSave(body);
  };
}

/**
 * Keys, find_by_id values and links derived from the record; `fresh` when it was just inserted
 * (nothing to replace). With `previous` (the record as stored before this write), a kind of row
 * that derives the same from both is left as it is: an edit of a title rewrites no keys, lookups
 * or links (on MySQL two to five round trips fewer), and links that did not change are not checked
 * again (a deletion drops the links to what it deletes, so a stored link names a record that exists).
 * `o.explain`: how a clash of unique keys is reported (a save's 400 unless told); `o.uncheckedLinks`:
 * links may name records not written yet (an import writes them in its file's order).
 */
async function saveDerived(
  q: RecordQueries, s: Services, where: Where, rid: number, record: Obj, fresh: boolean, previous?: Obj,
  o: { explain?: ExplainClash; uncheckedLinks?: boolean } = {},
): Promise<void> {
  const repoId = where.repoId ?? 0;
  const keys = uniqueKeys(where.type, record, repoId);
  if (!previous || !sameRows(keys, uniqueKeys(where.type, previous, repoId))) {
    await q.setUniqueKeys(rid, where.type.name, keys, fresh, o.explain ?? clashOnSave(q, where, record));
  }
  const lookups = lookupKeys(where.type, record);
  if (!previous || !sameRows(lookups, lookupKeys(where.type, previous))) await q.setLookupKeys(rid, where.type.name, repoId, lookups, fresh);
  const refs = collectRefs(s.registry, where.type.name, record);
  if (previous && sameRows(refs, collectRefs(s.registry, where.type.name, previous))) return;
  if (!o.uncheckedLinks) await checkRefs(q, s.registry, refs, where.type.scope === 'repository' ? where.repoId : undefined, record.uri);
  await q.setRefs(rid, refs, fresh);
}

/**
 * Writes a record that comes with its identity (its id, uri, JSON, lock_version and timestamps, as
 * `row` holds them: an import of an export file or of another installation), deriving what every
 * save derives: keys, lookups and links (not checked: the file's order is not the links' order),
 * the type's derived tables, its place (`place`, given the row id), the change-log entry.
 * `replaceRid`: the row of the record it replaces (its place is taken away first). Answers the row id.
 */
export async function writeWithIdentity(
  trx: Tx, s: Services, row: RecordRow, record: Obj,
  o: { replaceRid?: number; explain: ExplainClash; place?: (rid: number) => Promise<void>; changedAtMs: number },
): Promise<number> {
  const q = new RecordQueries(trx);
  const type = s.registry.type(row.type);
  const fresh = o.replaceRid === undefined;
  let rid: number;
  if (o.replaceRid !== undefined) {
    rid = o.replaceRid;
    await q.replaceRow(rid, {
      json: row.json, lock_version: row.lock_version, create_time_ms: row.create_time_ms, system_mtime_ms: row.system_mtime_ms,
      user_mtime_ms: row.user_mtime_ms, suppressed: row.suppressed, hidden: row.hidden,
    });
  } else {
    rid = await q.insert(row);
  }
  const where = { type, repoId: row.repo_id };
  await saveDerived(q, s, where, rid, record, fresh, undefined, { explain: o.explain, uncheckedLinks: true });
  // What a type derives from the record alone (a group's members and grants) is derived here too.
  await s.hooks[row.type]?.derive?.(trx, s, { where, rid, id: row.id, record, created: fresh, actor: { username: 'admin' } });
  await o.place?.(rid);
  await q.appendChange(row.type, row.uri, 'upsert', o.changedAtMs);
  return rid;
}

export function checkRepositoryScope(where: Where): void {
  if (where.type.scope === 'repository' && where.repoId === GLOBAL_REPO_ID && !where.type.allowInGlobalRepository) {
    throw errors.globalRepositoryRecord();
  }
}

/** A deleted record created again from a kept version (records/history.ts): its next lock_version, and who created it when. */
export interface Restoring {
  lockVersion: number;
  createdBy: string;
  createMs: number;
}

/** A record of a create up to its insert: its row and place, and what finishing the create needs (finishCreate). */
export interface PendingCreate {
  where: Where;
  id: number;
  record: Obj;
  row: RecordRow;
  place?: PlaceColumns;
  /** The record is put in its place (placeOnCreate) after its insert, its keys and links: see createRecord. */
  placeLast: boolean;
  /** Where placeLast: the place, read (and on MySQL its sibling group locked) side by side with the insert. */
  placing?: Promise<PlaceColumns | undefined>;
  state: unknown;
  warnings: ErrorMap;
}

/** A create up to the record's insert: its id, the type's beforeSave, the composed record and its row and place. */
export async function prepareCreate(
  q: RecordQueries, trx: Tx, s: Services, actor: Actor, where: Where, body: Obj, warnings: ErrorMap,
  options: { id?: number; idFirst?: number; hidden?: boolean; placeLast?: boolean; restoring?: Restoring },
): Promise<PendingCreate> {
  let id = options.id ?? options.idFirst;
  if (id === undefined) id = await q.nextId(where.type.name);
  else if (options.idFirst === undefined) await q.reserveId(where.type.name, id);
  const nowMs = Date.now();
  const hooks = s.hooks[where.type.name];
  const state = await hooks?.beforeSave?.(trx, s, where, body);
  addressSubrecords(s.registry, where, id, body);
  const restoring = options.restoring;
  const lockVersion = restoring?.lockVersion ?? 0;
  const createMs = restoring?.createMs ?? nowMs;
  const record = composeRecord(where, id, body, {
    lockVersion, createdBy: restoring?.createdBy ?? actor.username, modifiedBy: actor.username, createMs, nowMs,
  });
  const row: RecordRow = {
    type: where.type.name,
    id,
    repo_id: where.repoId ?? 0,
    uri: record.uri,
    json: JSON.stringify(record),
    lock_version: lockVersion,
    create_time_ms: createMs,
    system_mtime_ms: nowMs,
    user_mtime_ms: nowMs,
    hidden: options.hidden ?? false,
  };
  const placeLast = options.placeLast ?? false;
  const place = placeLast ? undefined : await hooks?.placeOnCreate?.(trx, s, where, state);
  // Started, not awaited: its reads go with the insert that follows (on MySQL one round trip).
  // Awaited by finishCreate; an error meanwhile fails the write whichever comes first.
  const placing = placeLast ? hooks?.placeOnCreate?.(trx, s, where, state) : undefined;
  placing?.catch(() => undefined);
  return { where, id, record, row, place, placeLast, placing, state, warnings };
}

/** The rest of a create once its row is inserted as `rid`: keys, lookups and links (`linksChecked`: checked when it was prepared), the type's hooks, the change log. */
export async function finishCreate(q: RecordQueries, trx: Tx, s: Services, actor: Actor, pending: PendingCreate, rid: number, linksChecked = false): Promise<WriteResult> {
  const { where, id, record, state } = pending;
  await saveDerived(q, s, where, rid, record, true, undefined, { uncheckedLinks: linksChecked });
  const saved = { where, rid, id, record, created: true, actor, state };
  const hooks = s.hooks[where.type.name];
  if (pending.placeLast) {
    const place = await pending.placing;
    if (place) await q.putInPlace(pending.row, rid, place);
  }
  await hooks?.afterSave?.(trx, s, saved);
  await hooks?.derive?.(trx, s, saved);
  await q.appendChange(where.type.name, record.uri, 'upsert', pending.row.system_mtime_ms);
  return { status: 'Created' as const, id, lock_version: pending.row.lock_version, stale: null, uri: record.uri, warnings: warningsOf(pending.warnings) };
}

/**
 * The body each attempt of a write's own transaction works on. A transaction that lost a race runs
 * again from the start (store/transactions.ts), and the hooks take fields out of the body they are
 * given (a tree node's parent and position): a second attempt works on the body as it was sent,
 * not on what the first left of it (which put a node given a parent or a position last at the top
 * level). In a caller's transaction the caller runs again with bodies of its own.
 *
 * A shallow copy keeps what was sent: the hooks set and take out the body's own fields only, and
 * what an attempt writes into nested subrecords (their `uri`, addressSubrecords) each attempt
 * writes again from the record's id. A deep copy per write (structuredClone) cost 2 % of a
 * create's CPU for the rare retry (CPU profile of bench/write-profile.ts).
 */
function bodyPerAttempt(body: Obj, ownTransaction: boolean): () => Obj {
  if (!ownTransaction) return () => body;
  const sent = { ...body };
  let first = true;
  return () => {
    if (!first) return { ...sent };
    first = false;
    return body;
  };
}

export async function createRecord(
  s: Services,
  actor: Actor,
  where: Where,
  body: Obj,
  warnings: ErrorMap,
  options: { id?: number; hidden?: boolean; trx?: Tx; restoring?: Restoring } = {},
): Promise<WriteResult> {
  checkRepositoryScope(where);
  applyGenerated(s.registry, where.type.name, body);
  let idFirst = options.id === undefined && !options.trx ? await idBeforeTransaction(s.db, where.type.name) : undefined;
  // A create in a transaction of its own is put in its place in a tree last, after its keys and
  // links, its place read (on MySQL, its sibling group locked: its parent's row, its end) in the
  // round trip of its insert: the group stays locked from that round trip to the commit's, so
  // creates into one group queue for one round trip each (and a create is three: the freshness
  // read, the insert with every read, the rest with the COMMIT). One statement more than an insert
  // in place, which a create in a caller's larger transaction (an import, a batch of children:
  // placed in order, from the transaction's memo) keeps.
  const placeLast = !options.trx;
  const bodyOf = bodyPerAttempt(body, !options.trx);
  const run = async (trx: Tx) => {
    const q = new RecordQueries(trx);
    let pending: PendingCreate | undefined;
    try {
      pending = await prepareCreate(q, trx, s, actor, where, bodyOf(), warnings, { ...options, idFirst, placeLast });
      // The records it links to are read with its insert (one round trip on MySQL), for the link check.
      const targets = linkTargets(collectRefs(s.registry, where.type.name, pending.record), pending.record.uri);
      return await finishCreate(q, trx, s, actor, pending, await q.insert(pending.row, pending.place, targets));
    } catch (err) {
      // Nothing of the attempt still runs when its transaction ends.
      await pending?.placing?.catch(() => undefined);
      // The id the process held may have been taken by a record created with it (an import with
      // identity, another process: id-blocks.ts): the transaction runs again with an id taken in it.
      if (idFirst !== undefined && isUniqueViolation(err)) {
        dropIdBlock(s.db, where.type.name);
        idFirst = undefined;
      }
      throw err;
    }
  };
  return options.trx ? run(options.trx) : writeTransaction(s, run, { batched: true });
}

/** Read-only properties belong to the server: an update keeps them (clients cannot send them). */
function keepServerOwnedFields(type: TypeInfo, previous: Obj, body: Obj): void {
  for (const name of planOf(type.props).readOnly) {
    if (previous[name] !== undefined && body[name] === undefined) body[name] = previous[name];
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

export async function updateRecord(
  s: Services,
  actor: Actor,
  where: Where,
  id: number,
  sent: Obj,
  warnings: ErrorMap,
  /**
   * `keep`: properties the update leaves as stored whatever the body says (guarded ones the caller may not set).
   * `current`: the record's row as read in `trx` (a job walking rows it read a page at a time), not
   * read again; the update still expects its lock_version, so a save made meanwhile fails this one.
   */
  options: { trx?: Tx; keep?: string[]; current?: RecordRow } = {},
): Promise<WriteResult> {
  const bodyOf = bodyPerAttempt(sent, !options.trx);
  const run = async (trx: Tx) => {
    const body = bodyOf();
    const q = new RecordQueries(trx);
    // Read with the root its touch rewrites where that saves a round trip (getToUpdate).
    const row = options.current && options.trx === trx ? options.current : await fetchRow({ get: (t, i) => q.getToUpdate(t, i), getByUris: (u) => q.getByUris(u) }, where, id);
    const expected = lockVersionOf(body);
    if (expected !== row.lock_version) throw errors.staleLockVersion();
    if (row.suppressed) throw errors.suppressedUpdate();
    const previous = JSON.parse(row.json);
    keepServerOwnedFields(where.type, previous, body);
    for (const name of options.keep ?? []) {
      if (previous[name] === undefined) delete body[name];
      else body[name] = previous[name];
    }
    applyGenerated(s.registry, where.type.name, body, previous);
    const nowMs = Date.now();
    const hooks = s.hooks[where.type.name];
    const state = await hooks?.beforeSave?.(trx, s, where, body, previous);
    addressSubrecords(s.registry, where, id, body);
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
    }, row, 'update', () => errors.staleLockVersion());
    if (!updated) throw errors.staleLockVersion();
    await saveDerived(q, s, where, row.rid!, record, false, previous);
    const saved = { where, rid: row.rid!, id, record, created: false, actor, state, previous };
    await hooks?.afterSave?.(trx, s, saved);
    await hooks?.derive?.(trx, s, saved);
    await q.appendChange(where.type.name, record.uri, 'upsert', nowMs);
    return { status: 'Updated' as const, id, lock_version: expected + 1, stale: null, uri: record.uri, warnings: warningsOf(warnings) };
  };
  return options.trx ? run(options.trx) : writeTransaction(s, run, { batched: true });
}

/**
 * Updates of many stored records in `trx`, as updateRecord makes each (validated bodies, keys,
 * lookups and links re-derived, the types' hooks, the change log), their rows written a hundred to
 * a statement (RecordQueries.updateAll): for a job that edits a page of records it read in `trx`
 * (`row`). Each expects the lock_version it was read at; one that moved fails them all. The hooks
 * of one record run before the rows of the others in its hundred are written: for edits that do
 * not move records in their trees or read each other. The event loop turns between records
 * (a hundred records' hooks and derived rows ran 100 ms and more without one, which GETs beside a
 * find and replace waited on).
 */
export async function updateRecords(s: Services, actor: Actor, trx: Tx, edits: Array<{ where: Where; row: RecordRow; body: Obj }>): Promise<void> {
  const q = new RecordQueries(trx);
  for (let i = 0; i < edits.length; i += 100) {
    const nowMs = Date.now();
    const composed = [];
    for (const { where, row, body } of edits.slice(i, i + 100)) {
      await letEventLoopTurn();
      if (row.suppressed) throw errors.suppressedUpdate();
      const previous = JSON.parse(row.json);
      keepServerOwnedFields(where.type, previous, body);
      applyGenerated(s.registry, where.type.name, body, previous);
      const state = await s.hooks[where.type.name]?.beforeSave?.(trx, s, where, body, previous);
      addressSubrecords(s.registry, where, row.id, body);
      const record = composeRecord(where, row.id, body, {
        lockVersion: row.lock_version + 1, createdBy: previous.created_by, modifiedBy: actor.username, createMs: row.create_time_ms, nowMs,
      });
      composed.push({ where, row, record, previous, state });
    }
    const updates = composed.map((c) => ({ rid: c.row.rid!, expectedLock: c.row.lock_version, json: JSON.stringify(c.record), replaced: c.row }));
    if (!(await q.updateAll(updates, nowMs))) throw errors.staleLockVersion();
    for (const { where, row, record, previous, state } of composed) {
      await letEventLoopTurn();
      await saveDerived(q, s, where, row.rid!, record, false, previous);
      const saved = { where, rid: row.rid!, id: row.id, record, created: false, actor, state, previous };
      await s.hooks[where.type.name]?.afterSave?.(trx, s, saved);
      await s.hooks[where.type.name]?.derive?.(trx, s, saved);
      await q.appendChange(where.type.name, record.uri, 'upsert', nowMs);
    }
  }
}

export async function deleteRecord(
  s: Services, where: Where, id: number, options: { trx?: Tx } = {},
): Promise<{ status: 'Deleted'; id: number }> {
  const run = async (trx: Tx) => {
    const q = new RecordQueries(trx);
    const row = await fetchRow(q, where, id);
    if (where.type.deleteDeniedWhen && JSON.parse(row.json)[where.type.deleteDeniedWhen] === true) throw errors.accessDenied();
    const referrers = await q.referrers(row.uri);
    if (where.type.refuseDeleteIfLinked && referrers.length) {
      throw errors.deleteRefusedWhileLinked(where.type.refuseDeleteIfLinked);
    }
    const protector = referrers.find((r) => where.type.refuseDeleteIfLinkedFrom?.[r.type]);
    if (protector) throw errors.deleteRefusedWhileLinked(where.type.refuseDeleteIfLinkedFrom![protector.type]);
    await s.hooks[where.type.name]?.beforeDelete?.(trx, s, row);
    await q.delete(row.rid!);
    await q.appendChange(where.type.name, row.uri, 'delete', Date.now());
    for (const referrer of referrers) await dropLinksTo(q, s, referrer, row.uri);
  };
  await (options.trx ? run(options.trx) : writeTransaction(s, run));
  return { status: 'Deleted', id };
}

/**
 * Rewrites a stored record in place (`change` edits the parsed JSON and says whether it changed):
 * new lock_version and system_mtime, keys and links re-derived, a change-log entry. For what the
 * server does to records besides the one a caller saves (links dropped or re-pointed, subtrees
 * that follow their top node). Runs inside the caller's transaction.
 */
export async function rewriteStored(q: RecordQueries, s: Services, row: { type: string; id: number }, change: (record: Obj) => boolean): Promise<boolean> {
  const type = s.registry.types[row.type];
  // Read as committed and held (MySQL: FOR UPDATE): a client's save of the record committed after
  // this transaction's snapshot is built on, where a snapshot read made the update below change
  // nothing and the link to a record deleted, merged away or moved stayed. A save sent while this
  // transaction holds the row waits, then finds a new lock_version (409).
  const current = await q.get(row.type, row.id, true);
  if (!type || !current) return false;
  const record = JSON.parse(current.json);
  if (!change(record)) return false;
  const nowMs = Date.now();
  record.lock_version = current.lock_version + 1;
  record.system_mtime = isoSeconds(nowMs);
  if (!await q.update(current.rid!, current.lock_version, { json: JSON.stringify(record), lock_version: record.lock_version, system_mtime_ms: nowMs }, current, 'rewrite')) {
    throw new LostRace(`${current.uri} changed while it was being rewritten`);
  }
  await saveDerived(q, s, { type, repoId: current.repo_id || undefined }, current.rid!, record, false);
  await q.appendChange(current.type, current.uri, 'upsert', nowMs);
  return true;
}

/** POST <uri>/:id/<property> (x-archive.propertyRoutes): sets a read-only property the server keeps, as an update of the record. */
export async function setProperty(s: Services, where: Where, id: number, property: string, value: Obj): Promise<{ status: 'Updated' }> {
  await writeTransaction(s, async (trx) => {
    const q = new RecordQueries(trx);
    await rewriteStored(q, s, await fetchRow(q, where, id), (record) => {
      record[property] = value;
      return true;
    });
  });
  return { status: 'Updated' };
}

/**
 * Deleting a record removes the links other records hold to it (errors.md section 5: subjects,
 * agents, top containers, digital objects are not refused); each such record counts as updated.
 */
async function dropLinksTo(q: RecordQueries, s: Services, referrer: Linking, uri: string): Promise<void> {
  await rewriteStored(q, s, referrer, (record) => unlink(record, uri));
}

/**
 * A merge: every record linking to `victim` links to `target` instead (store-level rewrite with
 * its keys, links and change-log entry re-derived, as a link removal), then the victim is deleted.
 * Runs inside the caller's transaction.
 */
export async function mergeInto(trx: Tx, s: Services, target: RecordRow, victim: RecordRow): Promise<void> {
  const q = new RecordQueries(trx);
  await s.hooks[victim.type]?.beforeMerge?.(trx, s, target, victim);
  for (const referrer of await q.referrers(victim.uri)) await rewriteStored(q, s, referrer, (record) => repoint(record, victim.uri, target.uri));
  await deleteRecord(s, { type: s.registry.type(victim.type), repoId: victim.repo_id || undefined, showSuppressed: true }, victim.id, { trx });
}
