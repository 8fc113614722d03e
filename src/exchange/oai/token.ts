/**
 * OAI-PMH resumption tokens that hold the whole position of a list (the request's arguments and
 * where the last page ended), so any server process, before or after a restart, continues it:
 * nothing is remembered between requests. A token is base64url JSON; one that does not decode to
 * a well-formed position is a badResumptionToken.
 */
import type { Obj } from '../../json';

export interface ListPosition {
  /** metadataPrefix, set, from and until of the request that started the list. */
  prefix: string;
  set?: string;
  from?: string;
  until?: string;
  /** 'records' while walking the records (by type, then id), then 'deletes' (the change log). */
  phase: 'records' | 'deletes';
  /** Index into the format's record types, and the last id returned of that type. */
  typeIndex: number;
  lastId: number;
  /** Last change-log sequence number returned in the deletes phase. */
  lastSeq: number;
  /** How many items earlier pages returned (the token's cursor). */
  cursor: number;
}

const isText = (v: unknown) => v === undefined || typeof v === 'string';
const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function encodeToken(p: ListPosition): string {
  const short = { v: 1, m: p.prefix, s: p.set, f: p.from, u: p.until, p: p.phase === 'records' ? 'r' : 'd', t: p.typeIndex, i: p.lastId, q: p.lastSeq, c: p.cursor };
  return Buffer.from(JSON.stringify(short)).toString('base64url');
}

/** The position a token holds, or undefined when it is not one of ours. */
export function decodeToken(token: string): ListPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(token)) return undefined;
  let raw: Obj;
  try {
    raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null || raw.v !== 1) return undefined;
  if (typeof raw.m !== 'string' || !isText(raw.s) || !isText(raw.f) || !isText(raw.u)) return undefined;
  if ((raw.p !== 'r' && raw.p !== 'd') || !isCount(raw.t) || !isCount(raw.i) || !isCount(raw.q) || !isCount(raw.c)) return undefined;
  return {
    prefix: raw.m, set: raw.s, from: raw.f, until: raw.u,
    phase: raw.p === 'r' ? 'records' : 'deletes', typeIndex: raw.t, lastId: raw.i, lastSeq: raw.q, cursor: raw.c,
  };
}
