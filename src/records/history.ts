import { type ErrorMap, errors } from '../errors';
import type { Obj } from '../json';
import { compactHistory, countVersions, indexAmongSiblingsNow, keptVersion, latestVersion, listVersions, nextKeptLockVersion, pruneHistory, type VersionRow } from '../store/history';
import { recordReads, type RecordRow } from '../store/records';
import { log } from '../log';
import { prepareRecord } from '../validation';
import type { Actor, Services, Where } from './context';
import { withhold } from './guarded';
import { jsonPatch, type PatchOperation } from './json-patch';
import { recordUri } from './load';
import { collectRefs, unlink } from './refs';
import { createRecord, updateRecord, type WriteResult } from './write';

/**
 * A record's history (store/history.ts keeps it): its versions listed, one answered, two compared
 * as a JSON Patch, one written back as a new version. A deleted record keeps its history at its
 * last URI, and restoring a version creates it again there, in its tree where it had a place.
 */

/** One version in a listing: who saved it and when (from its JSON), and what replaced it. */
export interface VersionEntry {
  lock_version: number;
  uri: string;
  current: boolean;
  saved_by: string | null;
  saved_at: string | null;
  /** The write that replaced or deleted this version; null for the current one. */
  replaced: { how: string; by: string | null; at: string; via: string | null } | null;
}

/** The record as it stands and its versions, where the call's path names it (404 otherwise). */
interface Located {
  current?: RecordRow;
  /** The version kept last: a deleted record's history ends there. */
  latest?: VersionRow;
}

async function locate(s: Services, where: Where, id: number): Promise<Located> {
  const current = await recordReads(s).get(where.type.name, id);
  const scoped = where.type.scope === 'repository';
  if (current) {
    if (scoped && (current.repo_id !== where.repoId || (current.suppressed && !where.showSuppressed))) throw errors.notFound(where.type.model);
    return { current };
  }
  const latest = await latestVersion(s.db, where.type.name, id);
  if (!latest || latest.uri !== recordUri(where, id)) throw errors.notFound(where.type.model);
  return { latest };
}

function entryOf(json: string, lockVersion: number, uri: string, kept?: VersionRow): VersionEntry {
  const record = JSON.parse(json) as Obj;
  return {
    lock_version: lockVersion,
    uri,
    current: !kept,
    saved_by: record.last_modified_by ?? null,
    saved_at: record.system_mtime ?? null,
    replaced: kept ? { how: kept.replaced_how, by: kept.replaced_by, at: new Date(kept.replaced_ms).toISOString(), via: kept.replaced_via } : null,
  };
}

/** GET <uri>/:id/history: the current version (while the record exists) then the kept ones, newest first, a page at a time. */
export async function listHistory(s: Services, where: Where, id: number, page: number, pageSize: number) {
  const { current } = await locate(s, where, id);
  const total = (await countVersions(s.db, where.type.name, id)) + (current ? 1 : 0);
  const offset = (page - 1) * pageSize;
  const results: VersionEntry[] = [];
  if (current && offset === 0) results.push(entryOf(current.json, current.lock_version, current.uri));
  const keptOffset = current ? Math.max(0, offset - 1) : offset;
  for (const kept of await listVersions(s.db, where.type.name, id, keptOffset, pageSize - results.length)) {
    results.push(entryOf(kept.json, kept.lock_version, kept.uri, kept));
  }
  return { first_page: 1, last_page: Math.max(1, Math.ceil(total / pageSize)), this_page: page, total, results };
}

/** A version's stored JSON: the current record's, or a kept one's. */
async function versionJson(s: Services, where: Where, id: number, located: Located, lockVersion: number): Promise<{ json: string; kept?: VersionRow }> {
  if (located.current?.lock_version === lockVersion) return { json: located.current.json };
  const kept = await keptVersion(s.db, where.type.name, id, lockVersion);
  if (!kept) throw errors.versionNotFound(lockVersion);
  return { json: kept.json, kept };
}

/** GET <uri>/:id/history/:version: the record as it was at that lock_version (guarded properties withheld as on a read). */
export async function getVersion(s: Services, where: Where, id: number, lockVersion: number, withheld: ReadonlySet<string>): Promise<Obj> {
  const { json } = await versionJson(s, where, id, await locate(s, where, id), lockVersion);
  const record = JSON.parse(json) as Obj;
  withhold(s.registry, [record], withheld);
  return record;
}

/**
 * GET <uri>/:id/history/:version/diff?to=: the JSON Patch (RFC 6902) that turns the version into
 * `to` (by default the version after it: what the write that replaced it changed).
 */
export async function diffVersions(
  s: Services, where: Where, id: number, lockVersion: number, to: number | undefined, withheld: ReadonlySet<string>,
): Promise<{ from: number; to: number; patch: PatchOperation[] }> {
  const located = await locate(s, where, id);
  const from = JSON.parse((await versionJson(s, where, id, located, lockVersion)).json) as Obj;
  const target = to ?? (await nextVersion(s, where, id, located, lockVersion));
  const other = JSON.parse((await versionJson(s, where, id, located, target)).json) as Obj;
  withhold(s.registry, [from, other], withheld);
  return { from: lockVersion, to: target, patch: jsonPatch(from, other) };
}

/** The lock_version of the version after `lockVersion`: the next one kept, else the current one. */
async function nextVersion(s: Services, where: Where, id: number, located: Located, lockVersion: number): Promise<number> {
  const kept = await nextKeptLockVersion(s.db, where.type.name, id, lockVersion);
  if (kept !== undefined) return kept;
  if (located.current && located.current.lock_version > lockVersion) return located.current.lock_version;
  throw errors.versionNotFound(lockVersion + 1);
}

/** Fields the server sets on every write: a restored version takes them anew. */
const SERVER_FIELDS = ['uri', 'lock_version', 'created_by', 'last_modified_by', 'create_time', 'system_mtime', 'user_mtime', 'repository'];

/**
 * Removes the links of `record` to records that no longer exist, or that moved to another
 * repository than the record's, as deleting them would have: each one a warning under its property.
 */
async function dropBrokenLinks(s: Services, where: Where, record: Obj, warnings: ErrorMap): Promise<void> {
  const refs = collectRefs(s.registry, where.type.name, record);
  const uris = [...new Set(refs.map((r) => r.uri).filter((u) => !u.endsWith('/tree')))];
  const found = new Map((await recordReads(s).getByUris(uris)).map((row) => [row.uri, row]));
  for (const uri of uris) {
    const row = found.get(uri);
    const elsewhere = row && s.registry.types[row.type]?.scope === 'repository' && where.type.scope === 'repository' && row.repo_id !== where.repoId;
    if (row && !elsewhere) continue;
    unlink(record, uri);
    for (const ref of refs.filter((r) => r.uri === uri)) {
      (warnings[ref.property] ??= []).push(`${uri} ${row ? 'is in another repository now' : 'no longer exists'}: the link was dropped`);
    }
  }
}

/**
 * Where a deleted tree node goes back: under its parent (when it still exists) at its old place
 * among the siblings there now, as the body of a create names it.
 */
async function placeInTree(s: Services, where: Where, record: Obj, deleted: VersionRow): Promise<void> {
  const tree = where.type.tree;
  if (!tree || deleted.position === null) return;
  const rootUri: string | undefined = record[tree.rootProperty]?.ref;
  if (!rootUri) return;
  // A parent deleted since: the link is dropped (with its warning) and the node goes to the top.
  if (deleted.parent_uri) record[tree.parentProperty] = { ref: deleted.parent_uri };
  record.position = await indexAmongSiblingsNow(s.db, rootUri, deleted.parent_uri, deleted.position);
}

/**
 * POST <uri>/:id/history/:version/restore?lock_version=: the version written back as a new one,
 * checked as an update is (the record's current lock_version, validation, unique keys); a deleted
 * record is created again with its id, URI and tree place. Links to records gone are dropped with
 * a warning. `keep`: guarded properties the caller may not set, left as they stand.
 */
export async function restoreVersion(
  s: Services, actor: Actor, where: Where, id: number, lockVersion: number, currentLock: number | undefined, keep: string[],
): Promise<WriteResult & { restored_from: number }> {
  const located = await locate(s, where, id);
  const { current, latest } = located;
  const old = JSON.parse((await versionJson(s, where, id, located, lockVersion)).json) as Obj;
  if (current) {
    if (currentLock === undefined) throw errors.missingLockVersion();
    if (currentLock !== current.lock_version) throw errors.staleLockVersion();
  }
  const body: Obj = {};
  for (const [key, value] of Object.entries(old)) if (!SERVER_FIELDS.includes(key)) body[key] = value;
  if (latest) await placeInTree(s, where, body, latest);
  const dropped: ErrorMap = {};
  await dropBrokenLinks(s, where, body, dropped);
  const prepared = prepareRecord(s.registry, s.enums, where.type.name, body);
  const warnings = { ...prepared.warnings, ...dropped };
  if (current) {
    prepared.record.lock_version = current.lock_version;
    return { ...(await updateRecord(s, actor, where, id, prepared.record, warnings, { keep })), restored_from: lockVersion };
  }
  const restoring = { lockVersion: latest!.lock_version + 1, createdBy: old.created_by ?? actor.username, createMs: Date.parse(old.create_time) || Date.now() };
  return { ...(await createRecord(s, actor, where, prepared.record, warnings, { id, restoring })), restored_from: lockVersion };
}

/** How often kept versions are deflated (store/history.ts compactHistory). */
const COMPACT_EVERY_MS = 30_000;

/**
 * History's upkeep in the background, off the requests' path, in the processes that run jobs:
 * versions deflated every COMPACT_EVERY_MS, and pruned as HISTORY_KEEP_VERSIONS and
 * HISTORY_KEEP_DAYS say every HISTORY_PRUNE_SECONDS.
 */
export function startHistoryUpkeep(s: Services): { stop(): void } | undefined {
  const policy = s.config.history;
  if (!policy.keep) return undefined;
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, task: () => Promise<unknown>) => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      task().catch((err: Error) => log.error('history upkeep', { error: err.message })).finally(() => (running = false));
    }, ms);
    timer.unref();
    timers.push(timer);
  };
  every(COMPACT_EVERY_MS, () => compactHistory(s.db));
  if (policy.keepVersions || policy.keepDays) every(policy.pruneSeconds * 1000, () => pruneHistory(s.db, policy));
  return { stop: () => timers.forEach(clearInterval) };
}
