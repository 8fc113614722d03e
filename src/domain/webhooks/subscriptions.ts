/**
 * Webhook subscriptions as the routes manage them: checked settings in, the subscription out
 * (its secret never: only whether one is set), test pings queued, deliveries listed.
 */
import crypto from 'node:crypto';
import { errors } from '../../errors';
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import { recordQueries } from '../../store/domain-reads';
import { latestChange } from '../../store/indexing';
import {
  deleteSubscription, type DeliveryRow, deliveryPage, insertPing, insertSubscription, subscriptionById, type SubscriptionFields,
  type SubscriptionRow, allSubscriptions, updateSubscription,
} from '../../store/webhooks';
import { type Interests, KINDS, type Kind } from './events';

export const subscriptionUri = (id: number) => `/webhooks/subscriptions/${id}`;

const SETTINGS = ['url', 'secret', 'record_types', 'repositories', 'kinds', 'enabled', 'lock_version'];
const MAX_URL = 2048;
const SECRET_MIN = 16;
const SECRET_MAX = 255;

const parsedList = (text: string | null): string[] | null => (text === null ? null : (JSON.parse(text) as string[]));

/** What a subscription asks for, from its row. */
export function interestsOf(row: SubscriptionRow): Interests {
  const set = <T extends string>(text: string | null) => {
    const list = parsedList(text);
    return list ? new Set(list as T[]) : null;
  };
  return { recordTypes: set(row.record_types), repositories: set(row.repositories), kinds: set<Kind>(row.kinds) };
}

function checkedUrl(value: unknown): string {
  if (typeof value !== 'string' || !value) throw errors.mustBe('url', 'an http or https URL');
  if (value.length > MAX_URL) throw errors.mustBe('url', `at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw errors.mustBe('url', `an http or https URL but given: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.mustBe('url', `an http or https URL but given: ${value}`);
  // Credentials in the URL would be answered back by every GET: the secret is what authenticates.
  if (url.username || url.password) throw errors.mustBe('url', 'a URL without a user name or password');
  return url.toString();
}

function checkedSecret(value: unknown): string {
  if (typeof value !== 'string' || value.length < SECRET_MIN || value.length > SECRET_MAX) {
    throw errors.mustBe('secret', `a string of ${SECRET_MIN} to ${SECRET_MAX} characters`);
  }
  return value;
}

/** A list setting: null (or absent) for all, else a non-empty list of strings that `check` accepts. */
function checkedList(field: string, value: unknown, check: (item: string) => boolean, what: string): string | null {
  if (value === null) return null;
  if (!Array.isArray(value) || !value.length || value.some((v) => typeof v !== 'string')) throw errors.mustBe(field, `null or a non-empty list of ${what}`);
  const bad = (value as string[]).filter((v) => !check(v));
  if (bad.length) throw errors.mustBe(field, `a list of ${what} but given: ${bad.join(', ')}`);
  return JSON.stringify([...new Set(value as string[])]);
}

async function checkedRepositories(s: Services, value: unknown): Promise<string | null> {
  const text = checkedList('repositories', value, (v) => /^\/repositories\/\d+$/.test(v), 'repository URIs (/repositories/:id)');
  if (text === null) return null;
  const uris = JSON.parse(text) as string[];
  const found = new Set((await recordQueries(s.db).getByUris(uris)).filter((r) => r.type === 'repository').map((r) => r.uri));
  const missing = uris.filter((u) => !found.has(u));
  if (missing.length) throw errors.mustBe('repositories', `a list of existing repositories but given: ${missing.join(', ')}`);
  return text;
}

/** The settings in `body` (those present only, unless `creating`), checked. */
async function checkedSettings(s: Services, body: unknown, creating: boolean): Promise<Partial<SubscriptionFields>> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw errors.expectedBody('a JSON object');
  const b = body as Obj;
  const unknown = Object.keys(b).filter((k) => !SETTINGS.includes(k) && k !== 'jsonmodel_type' && k !== 'uri');
  if (unknown.length) throw errors.mustBeOneOf(unknown[0], SETTINGS, unknown[0]);
  const out: Partial<SubscriptionFields> = {};
  if (creating || 'url' in b) out.url = checkedUrl(b.url);
  if ('secret' in b) out.secret = checkedSecret(b.secret);
  if ('record_types' in b) out.record_types = checkedList('record_types', b.record_types, (t) => !!s.registry.types[t] && s.registry.types[t].kind === 'record', 'record types');
  if ('repositories' in b) out.repositories = await checkedRepositories(s, b.repositories);
  if ('kinds' in b) out.kinds = checkedList('kinds', b.kinds, (k) => (KINDS as readonly string[]).includes(k), KINDS.join(', '));
  if ('enabled' in b) {
    if (typeof b.enabled !== 'boolean') throw errors.mustBe('enabled', 'true or false');
    out.enabled = b.enabled;
  }
  return out;
}

/** A subscription as the routes answer it. */
export function subscriptionJson(row: SubscriptionRow): Obj {
  return {
    jsonmodel_type: 'webhook_subscription',
    uri: subscriptionUri(row.id),
    id: row.id,
    url: row.url,
    secret_set: !!row.secret,
    record_types: parsedList(row.record_types),
    repositories: parsedList(row.repositories),
    kinds: parsedList(row.kinds),
    enabled: row.enabled,
    status: row.status,
    failing_since: row.failing_since_ms === null ? null : new Date(row.failing_since_ms).toISOString(),
    last_error: row.last_error,
    last_sequence: row.cursor_seq,
    lock_version: row.lock_version,
    create_time: new Date(row.created_ms).toISOString(),
    system_mtime: new Date(row.updated_ms).toISOString(),
  };
}

async function rowOf(s: Services, id: number): Promise<SubscriptionRow> {
  const row = await subscriptionById(s.db, id);
  if (!row) throw errors.notFound('Webhook subscription');
  return row;
}

/**
 * A new subscription, delivering the changes committed from now on. Without a secret one is
 * made, and answered this once (`secret`).
 */
export async function createSubscription(s: Services, body: unknown): Promise<Obj> {
  const settings = await checkedSettings(s, body, true);
  const made = settings.secret === undefined ? crypto.randomBytes(24).toString('hex') : undefined;
  const fields: SubscriptionFields = {
    url: settings.url!, secret: settings.secret ?? made!, record_types: settings.record_types ?? null,
    repositories: settings.repositories ?? null, kinds: settings.kinds ?? null, enabled: settings.enabled ?? true,
  };
  const id = await insertSubscription(s.db, fields, await latestChange(s.db), Date.now());
  s.webhooks?.nudge();
  return { status: 'Created', id, uri: subscriptionUri(id), lock_version: 0, warnings: [], ...(made ? { secret: made } : {}) };
}

export async function listSubscriptions(s: Services): Promise<Obj[]> {
  return (await allSubscriptions(s.db)).map(subscriptionJson);
}

export async function getSubscription(s: Services, id: number): Promise<Obj> {
  return subscriptionJson(await rowOf(s, id));
}

/** Changes the settings `body` holds (lock_version required); a failing subscription becomes active and its events are tried again. */
export async function changeSubscription(s: Services, id: number, body: unknown): Promise<Obj> {
  // A bad body is answered 400 before an unknown subscription 404, as every route does.
  const settings = await checkedSettings(s, body, false);
  const lockVersion = (body as Obj).lock_version;
  if (lockVersion !== undefined && lockVersion !== null && !Number.isInteger(lockVersion)) throw errors.mustBe('lock_version', 'an integer');
  const row = await rowOf(s, id);
  if (lockVersion === undefined || lockVersion === null) throw errors.missingLockVersion();
  if (lockVersion !== row.lock_version || !(await updateSubscription(s.db, id, lockVersion as number, settings, Date.now()))) throw errors.staleLockVersion();
  s.webhooks?.refreshSoon();
  return { status: 'Updated', id, uri: subscriptionUri(id), lock_version: row.lock_version + 1, warnings: [] };
}

export async function removeSubscription(s: Services, id: number): Promise<Obj> {
  if (!(await deleteSubscription(s.db, id))) throw errors.notFound('Webhook subscription');
  s.webhooks?.refreshSoon();
  return { status: 'Deleted', id, uri: subscriptionUri(id) };
}

/** Queues a test ping, sent once by the process delivering the subscription (never on this request's path). */
export async function queuePing(s: Services, id: number): Promise<Obj> {
  await rowOf(s, id);
  const nowMs = Date.now();
  const event = JSON.stringify({ kind: 'ping', subscription: subscriptionUri(id), time: new Date(nowMs).toISOString() });
  const deliveryId = await insertPing(s.db, id, event, nowMs);
  s.webhooks?.refreshSoon();
  return { status: 'Queued', id: deliveryId, subscription: subscriptionUri(id) };
}

function deliveryJson(d: DeliveryRow): Obj {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: d.id, sequence: d.seq, kind: d.kind, uri: d.uri, status: d.status, attempts: d.attempts, response_code: d.response_code,
    error: d.error, event: JSON.parse(d.event), created: iso(d.created_ms), last_attempt: iso(d.last_attempt_ms),
    next_attempt: iso(d.next_attempt_ms), delivered: iso(d.delivered_ms),
  };
}

/** A page of the subscription's recent deliveries, newest first, in ArchivesSpace's page shape. */
export async function listDeliveries(s: Services, id: number, page: number, size: number): Promise<Obj> {
  await rowOf(s, id);
  const { total, rows } = await deliveryPage(s.db, id, (page - 1) * size, size);
  return { first_page: 1, last_page: Math.max(1, Math.ceil(total / size)), this_page: page, total, results: rows.map(deliveryJson) };
}
