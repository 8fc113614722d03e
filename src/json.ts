/** A JSON object as records, subrecords and request bodies arrive: every layer speaks it. */
export type Obj = Record<string, any>;

export function isPlainObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
