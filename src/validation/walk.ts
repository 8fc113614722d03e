import type { PropInfo, Registry } from '../registry';

import { isPlainObject, type Obj } from '../json';

export function joinPath(base: string, key: string | number): string {
  return base ? `${base}/${key}` : String(key);
}

/** An object shape met while walking a record: a record/subrecord (typeName set), a link or an inline object. */
export interface Shape {
  typeName?: string;
  props: Record<string, PropInfo>;
  obj: Obj;
  path: string;
}

const LINK_REF: PropInfo = { kind: 'ref' };
/** A link position's members (ref and the position's own), one table per position: plans are kept per table. */
const linkProps = new WeakMap<PropInfo, Record<string, PropInfo>>();

function linkPropsOf(info: PropInfo): Record<string, PropInfo> {
  let props = linkProps.get(info);
  if (!props) linkProps.set(info, (props = { ref: LINK_REF, ...(info.props ?? {}) }));
  return props;
}

/** Properties of the object a property value holds, if it holds one. */
export function shapeOf(registry: Registry, info: PropInfo, value: unknown): { typeName?: string; props: Record<string, PropInfo> } | undefined {
  if (!isPlainObject(value)) return undefined;
  if (info.kind === 'subrecord') {
    const t = value.jsonmodel_type ?? info.subrecords![0];
    const type = registry.types[t];
    return type && info.subrecords!.includes(t) ? { typeName: t, props: type.props } : undefined;
  }
  if (info.kind === 'link') return { props: linkPropsOf(info) };
  if (info.kind === 'inline') return { props: info.props ?? {} };
  return undefined;
}

/**
 * What the walks over a shape's properties need, worked out once per property table (a schema
 * has some 80 properties, a record sets a few): a create or update walks every shape three or
 * four times (validation, defaults, links), and going through every property each time was a
 * tenth of a write's CPU.
 */
export interface PropsPlan {
  /** Properties whose value can hold an object shape (subrecords, links, inline objects), in schema order. */
  nested: Array<[string, PropInfo]>;
  /** Properties checked against a value list. */
  enumerated: Array<[string, PropInfo]>;
  /** Properties whose absence is warned about. */
  warnIfMissing: string[];
  /** Properties filled in when absent (a default, or [] for an array). */
  defaulted: Array<[string, PropInfo]>;
  /** Properties that reference records and that a client sets (not read-only). */
  referencing: Array<[string, PropInfo]>;
  /** Properties holding subrecords (server-generated fields are derived from them first). */
  subrecords: string[];
  /** Read-only properties: the server's, kept by an update that does not send them. */
  readOnly: string[];
}

const plans = new WeakMap<Record<string, PropInfo>, PropsPlan>();

export function planOf(props: Record<string, PropInfo>): PropsPlan {
  let plan = plans.get(props);
  if (!plan) {
    const entries = Object.entries(props);
    plan = {
      nested: entries.filter(([, info]) => info.kind === 'subrecord' || info.kind === 'link' || info.kind === 'inline'),
      enumerated: entries.filter(([, info]) => info.enumName),
      warnIfMissing: entries.filter(([, info]) => info.warnIfMissing).map(([name]) => name),
      defaulted: entries.filter(([name, info]) => name !== 'lock_version' && (info.default !== undefined || info.array)),
      referencing: entries.filter(([, info]) => info.refs && !info.readOnly),
      subrecords: entries.filter(([, info]) => info.kind === 'subrecord').map(([name]) => name),
      readOnly: entries.filter(([, info]) => info.readOnly).map(([name]) => name),
    };
    plans.set(props, plan);
  }
  return plan;
}

/** Visits every object shape of an (already cleaned) record, parents before children. */
export function walkShapes(registry: Registry, root: Shape, visit: (shape: Shape) => void): void {
  visit(root);
  // Plain loops and one object per shape: every write walks each of its shapes three or four times.
  for (const [name, info] of planOf(root.props).nested) {
    const value = root.obj[name];
    if (value === undefined) continue;
    if (info.array && Array.isArray(value)) {
      const base = joinPath(root.path, name);
      for (let i = 0; i < value.length; i++) walkInto(registry, info, value[i], joinPath(base, i), visit);
    } else {
      walkInto(registry, info, value, joinPath(root.path, name), visit);
    }
  }
}

function walkInto(registry: Registry, info: PropInfo, item: unknown, path: string, visit: (shape: Shape) => void): void {
  const shape = shapeOf(registry, info, item);
  if (shape) walkShapes(registry, { typeName: shape.typeName, props: shape.props, obj: item as Obj, path }, visit);
}
