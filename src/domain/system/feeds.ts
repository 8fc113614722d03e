import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import { changeLogHead } from '../../store/records';
import { readsOf } from '../../store/database';
import { changesAfter, changesOfTypes, deletionsSince } from '../../store/feeds';
import { recordQueries } from '../../store/domain-reads';
import { deleteRecord } from '../../records/write';
import { errors, ApiError } from '../../errors';
import { writeTransaction } from '../../records/context';

const FEED_LIMIT = 250;

/**
 * GET /update-feed: the changes after `lastSequence`, each with the record as it is now (or
 * "deleted"), at most 250, waiting up to `waitMs` for one when there is none yet (a long poll,
 * as the original's). Unlike the original's in-memory feed, it comes from the durable change log:
 * a client that was away gets what it missed.
 */
export async function updatesSince(s: Services, lastSequence: number, waitMs = 5000): Promise<Obj[]> {
  const until = Date.now() + waitMs;
  for (;;) {
    const rows = await changesAfter(s.db, lastSequence, FEED_LIMIT);
    if (rows.length || Date.now() >= until) {
      const live = new Map((await recordQueries(s.db).getByUris([...new Set(rows.map((r) => r.uri))])).map((r) => [r.uri, r.json]));
      return rows.map((r) => ({
        record: r.op === 'delete' || !live.has(r.uri) ? 'deleted' : JSON.parse(live.get(r.uri)!),
        uri: r.uri, sequence: Number(r.seq), timestamp: Number(r.at_ms),
      }));
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * GET /notifications: what the staff interface listens for (ArchivesSpace's notification
 * stream), from the change log: each change to a record whose type declares a notification code
 * (x-archive.notification) after `lastSequence`, as `{code, params, sequence, timestamp}`, one per
 * code in an answer (the original merges identical ones of a transaction); waiting up to `waitMs`
 * when there is none yet. The change log is durable, so a client that was away learns what it missed.
 */
export async function notificationsSince(s: Services, lastSequence: number, waitMs = 5000): Promise<Obj[]> {
  const codes = new Map(Object.values(s.registry.types).filter((t) => t.notification).map((t) => [t.name, t.notification!]));
  const until = Date.now() + waitMs;
  let after = lastSequence;
  for (;;) {
    const head = await changeLogHead(readsOf(s.db));
    const rows = await changesOfTypes(s.db, after, head, [...codes.keys()], FEED_LIMIT);
    if (rows.length || Date.now() >= until) {
      // One of each code: the latest (a repository's creation writes its six groups, one refresh is enough).
      const latest = new Map(rows.map((r) => [codes.get(r.type)!, r]));
      return [...latest].sort(([, a], [, b]) => Number(a.seq) - Number(b.seq))
        .map(([code, r]) => ({ code, params: {}, sequence: Number(r.seq), timestamp: Number(r.at_ms) }));
    }
    // Nothing to announce up to the head read before the look: the next look starts there.
    after = Math.max(after, head);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** GET /delete-feed: the URIs deleted since `modifiedSince` (seconds), a page at a time. */
export async function deletedSince(s: Services, modifiedSince: number, page: number, pageSize: number): Promise<Obj> {
  const { total, uris } = await deletionsSince(s.db, modifiedSince * 1000, (page - 1) * pageSize, pageSize);
  return { first_page: 1, last_page: Math.max(1, Math.ceil(total / pageSize)), this_page: page, results: uris };
}

/**
 * POST /batch_delete: each URI deleted as DELETE on it would (its type's permission checked by
 * `mayDelete`); all or nothing, one transaction. A refusal lists each failed URI with its answer.
 */
export async function batchDelete(s: Services, uris: string[], mayDelete: (typeName: string, repoId: number | undefined) => Promise<boolean>): Promise<Obj> {
  const failures: Obj[] = [];
  const results: Obj[] = [];
  await writeTransaction(s, async (trx) => {
    for (const uri of uris) {
      const type = s.registry.typeOfUri(uri);
      const m = /^(?:\/repositories\/(\d+))?.*\/(\d+)$/.exec(uri);
      if (!type || !m || !type.permissions?.delete) {
        failures.push({ uri, response: { error: 'Record not found' } });
        continue;
      }
      const repoId = type.scope === 'repository' ? Number(m[1]) : undefined;
      if (!(await mayDelete(type.name, repoId))) {
        failures.push({ uri, response: { error: 'Access denied' } });
        continue;
      }
      try {
        results.push({ ...(await deleteRecord(s, { type, repoId, showSuppressed: true }, Number(m[2]), { trx })), uri });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        failures.push({ uri, response: err.body });
      }
    }
    if (failures.length) throw errors.batchDeleteFailed(failures);
  });
  return { status: 'OK', results };
}
