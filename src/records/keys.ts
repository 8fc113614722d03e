import crypto from 'node:crypto';
import type { TypeInfo, UniqueRule } from '../registry';
import type { KeyRow, LookupRow } from '../store/records';
import type { Obj } from '../json';

// The one-shot digest (Node 20.12+) gives the same hex without a Hash object per key: every
// key of every write is hashed (createHash was ~3 % of a bulk sheet import's CPU in a profile).
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

function hash(text: string): string {
  return oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * Values at a field path: "a.b" descends objects, "a[].b" maps over an array, "a[?c].b" over the
 * items of the array whose `c` is true (an agent's authorized names).
 */
export function valuesAt(obj: unknown, fieldPath: string): unknown {
  let current: unknown = obj;
  for (const { key, mapped, filter } of pathParts(fieldPath)) {
    if (Array.isArray(current)) {
      // Over the items of an array: "a[].b[]" gives every b of every a, in one list.
      current = current.flatMap((item) => {
        const value = (item as Obj | undefined)?.[key];
        return mapped && Array.isArray(value) ? value : [value];
      });
    } else current = (current as Obj | undefined)?.[key];
    if (mapped && current !== undefined && !Array.isArray(current)) current = [current];
    if (filter && Array.isArray(current)) current = current.filter((item) => (item as Obj | undefined)?.[filter] === true);
  }
  return current;
}

interface PathPart {
  key: string;
  mapped: boolean;
  filter?: string;
}

/** A field path's parts, parsed once per path (the rules' few paths are read for every key of every write). */
const parsedPaths = new Map<string, PathPart[]>();

function pathParts(fieldPath: string): PathPart[] {
  let parts = parsedPaths.get(fieldPath);
  if (!parts) {
    parts = fieldPath.split('.').map((part) => {
      const filter = /^(.+)\[\?(\w+)\]$/.exec(part);
      const mapped = filter !== null || part.endsWith('[]');
      return { key: filter ? filter[1] : mapped ? part.slice(0, -2) : part, mapped, ...(filter ? { filter: filter[2] } : {}) };
    });
    parsedPaths.set(fieldPath, parts);
  }
  return parts;
}

function refValue(v: unknown): unknown {
  return v && typeof v === 'object' && 'ref' in (v as Obj) ? (v as Obj).ref : v;
}

function ruleScope(rule: UniqueRule, record: Obj, repoId: number): string {
  if (rule.within === 'global') return 'global';
  if (rule.within === 'repository') return `repo:${repoId}`;
  return String(refValue(record[rule.within]) ?? 'none');
}

export function ruleName(rule: UniqueRule): string {
  return rule.errorPath;
}

/** Unique keys of a record; a rule applies only when its own field (errorPath) has a value. */
export function uniqueKeys(type: TypeInfo, record: Obj, repoId: number): KeyRow[] {
  return (type.unique ?? [])
    .filter((rule) => record[rule.errorPath] !== undefined)
    .map((rule) => {
      let text = JSON.stringify(rule.fields.map((f) => valuesAt(record, f) ?? null).map(refValue));
      if (rule.caseInsensitive) text = text.toLowerCase();
      return { rule: ruleName(rule), scope: ruleScope(rule, record, repoId), hash: hash(text) };
    });
}

/** The stored form of a find_by_id value. */
export function lookupValue(format: string | undefined, values: unknown[]): string {
  if (format === 'identifier-json') {
    const parts = [0, 1, 2, 3].map((i) => values[i] ?? null);
    return JSON.stringify(parts);
  }
  return String(values[0]);
}

export function lookupHash(text: string): string {
  return hash(text);
}

export function lookupKeys(type: TypeInfo, record: Obj): LookupRow[] {
  const rows: LookupRow[] = [];
  for (const [param, rule] of Object.entries(type.lookup ?? {})) {
    const values = rule.fields.map((f) => valuesAt(record, f));
    if (values.every((v) => v === undefined)) continue;
    rows.push({ param, hash: hash(lookupValue(rule.format, values)) });
  }
  return rows;
}
