/**
 * The events a subscription is sent: which change-log entries it wants (record types,
 * repositories, kinds of change), each entry's event body, and the signature of a body.
 */
import crypto from 'node:crypto';
import type { Services } from '../../records/context';
import { recordReads } from '../../store/records';
import { lastOpsBefore } from '../../store/webhooks';

export const KINDS = ['create', 'update', 'delete'] as const;
export type Kind = (typeof KINDS)[number];

/** A change-log entry as a subscription reads it. */
export interface Change {
  seq: number;
  type: string;
  uri: string;
  op: string;
  at_ms: number;
}

/** What a subscription asks for: null for all. */
export interface Interests {
  recordTypes: Set<string> | null;
  repositories: Set<string> | null;
  kinds: Set<Kind> | null;
}

/** One event ready to send: its change-log entry and its body. */
export interface PreparedEvent {
  seq: number;
  uri: string;
  kind: Kind;
  body: string;
}

/** The repository a record URI lies in (`/repositories/2` for the repository itself and anything under it). */
export function repositoryOf(uri: string): string | undefined {
  return /^\/repositories\/\d+/.exec(uri)?.[0];
}

/**
 * The events of `changes` that `interests` asks for, in order. A write is a create when it is
 * the record's first change-log entry (or the first after a delete), an update otherwise. The
 * lock_version (and a component's collection) is the record's as it stands when the event is
 * prepared, at or after the change; a deleted record has none. Everything is read outside the
 * writer's connection (SQLite's read connection), so a long write does not hold the events back.
 */
export async function prepareEvents(s: Services, changes: Change[], interests: Interests): Promise<PreparedEvent[]> {
  const wanted = changes.filter((c) => (!interests.recordTypes || interests.recordTypes.has(c.type))
    && (!interests.repositories || interests.repositories.has(repositoryOf(c.uri) ?? '')));
  if (!wanted.length) return [];
  const writes = [...new Set(wanted.filter((c) => c.op !== 'delete').map((c) => c.uri))];
  const before = writes.length ? await lastOpsBefore(s.db, writes, wanted[0].seq) : new Map<string, string>();
  const withKind: Array<Change & { kind: Kind }> = [];
  for (const c of wanted) {
    const previous = before.get(c.uri);
    const kind: Kind = c.op === 'delete' ? 'delete' : previous === undefined || previous === 'delete' ? 'create' : 'update';
    before.set(c.uri, c.op);
    if (!interests.kinds || interests.kinds.has(kind)) withKind.push({ ...c, kind });
  }
  const live = withKind.some((c) => c.kind !== 'delete')
    ? new Map((await recordReads(s).getByUris([...new Set(withKind.filter((c) => c.kind !== 'delete').map((c) => c.uri))])).map((r) => [r.uri, r]))
    : new Map();
  return withKind.map((c) => {
    const row = c.kind === 'delete' ? undefined : live.get(c.uri);
    const rootProperty = s.registry.types[c.type]?.tree?.rootProperty;
    const collection = row && rootProperty ? (JSON.parse(row.json)[rootProperty]?.ref as string | undefined) : undefined;
    const event = {
      id: c.seq, type: c.type, uri: c.uri, kind: c.kind, lock_version: row ? row.lock_version : null,
      time: new Date(c.at_ms).toISOString(), ...(collection ? { collection } : {}),
    };
    return { seq: c.seq, uri: c.uri, kind: c.kind, body: JSON.stringify(event) };
  });
}

/** The signature header's value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>`. */
export function signature(secret: string, body: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}
