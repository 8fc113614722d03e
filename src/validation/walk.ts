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

/** Properties of the object a property value holds, if it holds one. */
export function shapeOf(registry: Registry, info: PropInfo, value: unknown): { typeName?: string; props: Record<string, PropInfo> } | undefined {
  if (!isPlainObject(value)) return undefined;
  if (info.kind === 'subrecord') {
    const t = value.jsonmodel_type ?? info.subrecords![0];
    const type = registry.types[t];
    return type && info.subrecords!.includes(t) ? { typeName: t, props: type.props } : undefined;
  }
  if (info.kind === 'link') return { props: { ref: LINK_REF, ...(info.props ?? {}) } };
  if (info.kind === 'inline') return { props: info.props ?? {} };
  return undefined;
}

/** Visits every object shape of an (already cleaned) record, parents before children. */
export function walkShapes(registry: Registry, root: Shape, visit: (shape: Shape) => void): void {
  visit(root);
  for (const [name, info] of Object.entries(root.props)) {
    const value = root.obj[name];
    if (value === undefined) continue;
    const items = info.array && Array.isArray(value) ? value : [value];
    items.forEach((item, i) => {
      const shape = shapeOf(registry, info, item);
      if (!shape) return;
      const path = info.array && Array.isArray(value) ? joinPath(joinPath(root.path, name), i) : joinPath(root.path, name);
      walkShapes(registry, { ...shape, obj: item, path }, visit);
    });
  }
}
