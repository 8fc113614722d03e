import { randomBytes } from 'node:crypto';

/**
 * A JSON object as records, subrecords and request bodies arrive: every layer speaks it. Its
 * shape is checked at run time by the generated validators, which know every type; the generic
 * engine handles every type alike through it. Code that reads one type's fields names them with
 * that type's interface from generated/types.ts, so a renamed field fails tsc there.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = Record<string, any>;

export function isPlainObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Each shared (never written) object's JSON text, made once: it lives as long as the object is kept. */
const textOfShared = new WeakMap<object, string>();

/**
 * Marks where a shared object's text goes: a string no record holds (a NUL, this process's
 * random nonce, the text's number), which JSON.stringify writes as `"\u0000<nonce>:<n>\u0000"`.
 */
const NONCE = randomBytes(12).toString('hex');
const MARK_OPEN = `"\\u0000${NONCE}:`;
const MARK_CLOSE = '\\u0000"';

/**
 * JSON.stringify(value), where `holders` are objects of `value` whose `key` holds a shared object
 * (resolve[]'s kept records, one object under every link to it): each shared object is serialised
 * once for as long as it is kept and its text spliced in, not serialised again under every link
 * and in every answer. The holders are left as they were.
 */
export function stringifySharing(value: unknown, holders: Obj[], key: string): string {
  if (!holders.length) return JSON.stringify(value);
  const texts: string[] = [];
  const kept: object[] = [];
  for (const holder of holders) {
    const shared = holder[key] as object;
    let text = textOfShared.get(shared);
    if (text === undefined) textOfShared.set(shared, (text = JSON.stringify(shared)));
    holder[key] = `\u0000${NONCE}:${texts.length}\u0000`;
    texts.push(text);
    kept.push(shared);
  }
  const json = JSON.stringify(value);
  holders.forEach((holder, i) => { holder[key] = kept[i]; });
  const parts: string[] = [];
  let from = 0;
  for (let at = json.indexOf(MARK_OPEN); at >= 0; at = json.indexOf(MARK_OPEN, from)) {
    const close = json.indexOf(MARK_CLOSE, at + MARK_OPEN.length);
    parts.push(json.slice(from, at), texts[Number(json.slice(at + MARK_OPEN.length, close))]);
    from = close + MARK_CLOSE.length;
  }
  parts.push(json.slice(from));
  return parts.join('');
}
