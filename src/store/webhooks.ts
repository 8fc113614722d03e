/**
 * Webhook subscriptions and their deliveries (src/domain/webhooks): the subscriptions an
 * administrator manages, each one's cursor into the change log and lease (one app process
 * delivers a subscription at a time), and the record of recent deliveries.
 */
import { type Database, type Handle, readsOf, sqlOf } from './database';
import { committedRows } from './statements';

export type SubscriptionStatus = 'active' | 'failing';

export interface SubscriptionRow {
  id: number;
  url: string;
  secret: string;
  /** JSON arrays, null for all. */
  record_types: string | null;
  repositories: string | null;
  kinds: string | null;
  enabled: boolean;
  status: SubscriptionStatus;
  cursor_seq: number;
  failing_since_ms: number | null;
  last_error: string | null;
  lock_version: number;
  created_ms: number;
  updated_ms: number;
  lease_holder: string;
  lease_until_ms: number;
}

export type SubscriptionFields = Pick<SubscriptionRow, 'url' | 'secret' | 'record_types' | 'repositories' | 'kinds' | 'enabled'>;

export type DeliveryStatus = 'pending' | 'delivered' | 'retrying' | 'failed';

export interface DeliveryRow {
  id: number;
  subscription_id: number;
  seq: number | null;
  kind: string;
  uri: string | null;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  response_code: number | null;
  error: string | null;
  created_ms: number;
  last_attempt_ms: number | null;
  next_attempt_ms: number | null;
  delivered_ms: number | null;
}

/** What one attempt at an event (or the attempts of one round) left: written as its delivery row. */
export type DeliveryOutcome = Omit<DeliveryRow, 'id'>;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function subscriptionOf(r: Record<string, unknown>): SubscriptionRow {
  return {
    ...(r as unknown as SubscriptionRow),
    enabled: !!r.enabled,
    cursor_seq: Number(r.cursor_seq),
    failing_since_ms: num(r.failing_since_ms),
    lock_version: Number(r.lock_version),
    created_ms: Number(r.created_ms),
    updated_ms: Number(r.updated_ms),
    lease_until_ms: Number(r.lease_until_ms),
  };
}

function deliveryOf(r: Record<string, unknown>): DeliveryRow {
  return {
    ...(r as unknown as DeliveryRow),
    id: Number(r.id),
    seq: num(r.seq),
    attempts: Number(r.attempts),
    response_code: num(r.response_code),
    created_ms: Number(r.created_ms),
    last_attempt_ms: num(r.last_attempt_ms),
    next_attempt_ms: num(r.next_attempt_ms),
    delivered_ms: num(r.delivered_ms),
  };
}

/** A new subscription whose cursor starts at `cursorSeq` (the change log's head: changes from now on). */
export async function insertSubscription(h: Handle, fields: SubscriptionFields, cursorSeq: number, nowMs: number): Promise<number> {
  const [id] = await sqlOf(h)('webhook_subscriptions').insert({ ...fields, cursor_seq: cursorSeq, created_ms: nowMs, updated_ms: nowMs });
  return Number(id);
}

export async function subscriptionById(h: Handle, id: number): Promise<SubscriptionRow | undefined> {
  const row = await readsOf(h)('webhook_subscriptions').where({ id }).first();
  return row ? subscriptionOf(row) : undefined;
}

export async function allSubscriptions(h: Handle): Promise<SubscriptionRow[]> {
  return (await readsOf(h)('webhook_subscriptions').orderBy('id').select()).map(subscriptionOf);
}

/**
 * Changes a subscription's settings if its lock_version is still `lockVersion`: false when it
 * moved on. An update also makes a failing subscription active again (its events are tried anew).
 */
export async function updateSubscription(h: Handle, id: number, lockVersion: number, fields: Partial<SubscriptionFields>, nowMs: number): Promise<boolean> {
  const n = await sqlOf(h)('webhook_subscriptions').where({ id, lock_version: lockVersion })
    .update({ ...fields, status: 'active', failing_since_ms: null, lock_version: lockVersion + 1, updated_ms: nowMs });
  return n === 1;
}

/** Removes a subscription and its deliveries: false when there was none. */
export async function deleteSubscription(h: Handle, id: number): Promise<boolean> {
  await sqlOf(h)('webhook_deliveries').where({ subscription_id: id }).delete();
  return (await sqlOf(h)('webhook_subscriptions').where({ id }).delete()) === 1;
}

/** Takes a subscription's lease for `holder` until `untilMs`, or renews it: false when another holder's lease still runs at `nowMs`. */
export async function takeSubscriptionLease(h: Handle, id: number, holder: string, nowMs: number, untilMs: number): Promise<boolean> {
  const n = await sqlOf(h)('webhook_subscriptions').where({ id })
    .andWhere((w) => w.where('lease_holder', holder).orWhere('lease_until_ms', '<', nowMs))
    .update({ lease_holder: holder, lease_until_ms: untilMs });
  return n === 1;
}

/** Gives a lease up if `holder` holds it (failures ignored: it runs out anyway). */
export async function releaseSubscriptionLease(h: Handle, id: number, holder: string): Promise<void> {
  await sqlOf(h)('webhook_subscriptions').where({ id, lease_holder: holder }).update({ lease_until_ms: 0 }).catch(() => undefined);
}

/**
 * Records a round of deliveries and moves the cursor, in one transaction, if `holder` still holds
 * the lease: false when it does not (another process delivers the subscription now).
 */
export async function recordRound(
  db: Database, id: number, holder: string,
  progress: { cursor_seq: number; status: SubscriptionStatus; failing_since_ms: number | null; last_error: string | null },
  outcomes: DeliveryOutcome[],
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const n = await trx('webhook_subscriptions').where({ id, lease_holder: holder }).update(progress);
    if (n !== 1) return false;
    const events = outcomes.filter((o) => o.seq !== null);
    const known = new Set<number>();
    for (let i = 0; i < events.length; i += 500) {
      const seqs = events.slice(i, i + 500).map((o) => o.seq!);
      for (const s of await trx('webhook_deliveries').where({ subscription_id: id }).whereIn('seq', seqs).pluck('seq')) known.add(Number(s));
    }
    const fresh = events.filter((o) => !known.has(o.seq!));
    for (let i = 0; i < fresh.length; i += 200) await trx('webhook_deliveries').insert(fresh.slice(i, i + 200));
    for (const o of events.filter((e) => known.has(e.seq!))) {
      await trx('webhook_deliveries').where({ subscription_id: id, seq: o.seq }).update({
        status: o.status, attempts: o.attempts, response_code: o.response_code, error: o.error,
        last_attempt_ms: o.last_attempt_ms, next_attempt_ms: o.next_attempt_ms, delivered_ms: o.delivered_ms,
      });
    }
    return true;
  });
}

export interface LoggedChange { seq: number; type: string; uri: string; op: string; at_ms: number }

const CHANGES_SQL = 'SELECT `seq`, `type`, `uri`, `op`, `at_ms` FROM `change_log` WHERE `seq` > ? ORDER BY `seq` LIMIT ?';
const CHANGES_BETWEEN_SQL = 'SELECT `seq`, `type`, `uri`, `op`, `at_ms` FROM `change_log` WHERE `seq` > ? AND `seq` <= ? ORDER BY `seq` LIMIT ?';

const logged = (rows: Array<Record<string, unknown>>): LoggedChange[] =>
  rows.map((r) => ({ seq: Number(r.seq), type: String(r.type), uri: String(r.uri), op: String(r.op), at_ms: Number(r.at_ms) }));

/**
 * Change-log entries after `seq`, in order, read outside any transaction: on SQLite through the
 * read connection, so a subscription's next window is not queued behind a long write on the
 * writer's connection (a bulk load's transaction).
 */
export async function committedChangesAfter(db: Database, seq: number, limit: number): Promise<LoggedChange[]> {
  return logged(await committedRows<Record<string, unknown>>(db, CHANGES_SQL, [seq, limit]));
}

/** Up to `limit` change-log entries after `seq` up to `through`, in order, read as committedChangesAfter (a second look at a range with holes). */
export async function committedChangesBetween(db: Database, seq: number, through: number, limit: number): Promise<LoggedChange[]> {
  return logged(await committedRows<Record<string, unknown>>(db, CHANGES_BETWEEN_SQL, [seq, through, limit]));
}

/**
 * The operation of each of `uris`' last change-log entry before `beforeSeq` (absent: none): what
 * tells a record's first write from a later one. Read as committedChangesAfter is.
 */
export async function lastOpsBefore(db: Database, uris: string[], beforeSeq: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < uris.length; i += 500) {
    const chunk = uris.slice(i, i + 500);
    const rows = await committedRows<{ uri: string; op: string }>(db,
      `SELECT c.\`uri\`, c.\`op\` FROM \`change_log\` c JOIN (SELECT \`uri\`, MAX(\`seq\`) AS m FROM \`change_log\` WHERE \`uri\` IN (${chunk.map(() => '?').join(',')}) AND \`seq\` < ? GROUP BY \`uri\`) l ON c.\`seq\` = l.m`,
      [...chunk, beforeSeq]);
    for (const r of rows) out.set(String(r.uri), String(r.op));
  }
  return out;
}

/** The change-log entries past the cursor already delivered (a round that stopped at a failed event delivered some after it). */
export async function deliveredAfter(h: Handle, id: number, seq: number): Promise<number[]> {
  const seqs = await sqlOf(h)('webhook_deliveries').where({ subscription_id: id, status: 'delivered' }).andWhere('seq', '>', seq).pluck('seq');
  return seqs.map(Number);
}

/** Queues a test ping; answers its delivery id. */
export async function insertPing(h: Handle, id: number, event: string, nowMs: number): Promise<number> {
  const [deliveryId] = await sqlOf(h)('webhook_deliveries').insert({ subscription_id: id, seq: null, kind: 'ping', event, status: 'pending', created_ms: nowMs });
  return Number(deliveryId);
}

/** The pings queued for the subscriptions `ids`, oldest first. */
export async function pendingPings(h: Handle, ids: number[]): Promise<DeliveryRow[]> {
  if (!ids.length) return [];
  return (await sqlOf(h)('webhook_deliveries').whereIn('subscription_id', ids).whereNull('seq').andWhere({ status: 'pending' }).orderBy('id').select()).map(deliveryOf);
}

/** What a ping's one attempt got. */
export async function finishPing(h: Handle, deliveryId: number, outcome: Pick<DeliveryRow, 'status' | 'response_code' | 'error' | 'last_attempt_ms' | 'delivered_ms'>): Promise<void> {
  await sqlOf(h)('webhook_deliveries').where({ id: deliveryId }).update({ ...outcome, attempts: 1 });
}

/** A subscription's deliveries, newest first, and how many there are. */
export async function deliveryPage(h: Handle, id: number, offset: number, limit: number): Promise<{ total: number; rows: DeliveryRow[] }> {
  const total = Number((await readsOf(h)('webhook_deliveries').where({ subscription_id: id }).count({ n: '*' }).first())?.n ?? 0);
  const rows = await readsOf(h)('webhook_deliveries').where({ subscription_id: id }).orderBy('id', 'desc').offset(offset).limit(limit).select();
  return { total, rows: rows.map(deliveryOf) };
}

/**
 * Keeps a subscription's newest `keep` deliveries, and any of its events past the cursor (what
 * the next round must not deliver again).
 */
export async function pruneDeliveries(h: Handle, id: number, keep: number, cursorSeq: number): Promise<void> {
  const edge = await sqlOf(h)('webhook_deliveries').where({ subscription_id: id }).orderBy('id', 'desc').offset(keep).first('id');
  if (!edge) return;
  await sqlOf(h)('webhook_deliveries').where({ subscription_id: id }).andWhere('id', '<=', Number(edge.id))
    .andWhere((w) => w.whereNull('seq').orWhere('seq', '<=', cursorSeq)).delete();
}
