import { isPlainObject } from '../json';

/** One operation of a JSON Patch (RFC 6902): what turns one version of a record into another. */
export type PatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown };

/** A JSON Pointer segment (RFC 6901): `~` and `/` escaped. */
function segment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The JSON Patch that turns `from` into `to`: objects compared key by key, arrays item by item
 * (items past the shorter one added or removed at the end, last first, so each path is valid when
 * its operation applies), anything else replaced whole when it differs.
 */
export function jsonPatch(from: unknown, to: unknown, path = ''): PatchOperation[] {
  if (isPlainObject(from) && isPlainObject(to)) {
    const ops: PatchOperation[] = [];
    for (const key of Object.keys(from)) {
      if (!(key in to)) ops.push({ op: 'remove', path: `${path}/${segment(key)}` });
    }
    for (const [key, value] of Object.entries(to)) {
      const at = `${path}/${segment(key)}`;
      if (!(key in from)) ops.push({ op: 'add', path: at, value });
      else ops.push(...jsonPatch(from[key], value, at));
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const ops: PatchOperation[] = [];
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) ops.push(...jsonPatch(from[i], to[i], `${path}/${i}`));
    for (let i = from.length - 1; i >= common; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = common; i < to.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: to[i] });
    return ops;
  }
  return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ op: 'replace', path, value: to }];
}
