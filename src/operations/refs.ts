import type { Registry } from '../registry';
import type { RefRow } from '../store/records';
import { isPlainObject, Obj, walkShapes } from '../validation/walk';

/** Every outgoing reference of a record (links, uri properties, relationship subrecords). */
export function collectRefs(registry: Registry, typeName: string, record: Obj): RefRow[] {
  const refs: RefRow[] = [];
  walkShapes(registry, { typeName, props: registry.type(typeName).props, obj: record, path: '' }, (shape) => {
    for (const [name, info] of Object.entries(shape.props)) {
      if (!info.refs || info.readOnly || name === 'repository') continue;
      const value = shape.obj[name];
      const items = Array.isArray(value) ? value : value === undefined ? [] : [value];
      for (const item of items) {
        if (typeof item === 'string') refs.push({ property: name, uri: item });
        else if (info.kind === 'link' && isPlainObject(item) && typeof item.ref === 'string') {
          refs.push({ property: name, uri: item.ref });
        }
      }
    }
  });
  return refs;
}
