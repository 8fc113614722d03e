import type { PropInfo, Registry } from '../registry';
import type { ErrorMap } from '../errors';
import { isPlainObject, Obj } from '../json';
import { joinPath, shapeOf } from './walk';

/**
 * Input clean-up before validation (record-model.md section 2): unknown and read-only properties
 * are dropped, null / "" / {} are removed, and every embedded record gets its jsonmodel_type
 * (the first alternative of a union position when absent).
 */
export function cleanRecord(registry: Registry, typeName: string, input: Obj, errors: ErrorMap): Obj {
  return cleanObject(registry, registry.type(typeName).props, input, '', typeName, errors);
}

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (isPlainObject(v) && Object.keys(v).length === 0);
}

function cleanObject(
  registry: Registry,
  props: Record<string, PropInfo>,
  input: Obj,
  path: string,
  typeName: string | undefined,
  errors: ErrorMap,
): Obj {
  const out: Obj = typeName ? { jsonmodel_type: typeName } : {};
  // for…in, not Object.entries: no pair array per property of every object of every write.
  for (const key in input) {
    // Own properties only: a body key such as "constructor" or "toString" must not find Object.prototype's member.
    const info = Object.hasOwn(props, key) ? props[key] : undefined;
    if (!info || info.readOnly || key === 'jsonmodel_type' || !Object.hasOwn(input, key)) continue;
    const value = input[key];
    // An object where a list belongs is left as sent, for validation to refuse: cleaned as one of
    // the list's items, it lost every field and the property vanished without a word.
    if (info.array && isPlainObject(value) && !isAbsent(value)) {
      out[key] = value;
      continue;
    }
    const cleaned =
      info.array && Array.isArray(value)
        ? value
            .map((item, i) => cleanValue(registry, info, item, joinPath(joinPath(path, key), i), errors))
            .filter((item) => !isAbsent(item))
        : cleanValue(registry, info, value, joinPath(path, key), errors);
    if (!isAbsent(cleaned)) out[key] = cleaned;
  }
  return out;
}

function cleanValue(registry: Registry, info: PropInfo, value: unknown, path: string, errors: ErrorMap): unknown {
  if (isAbsent(value) || !isPlainObject(value)) return value;
  if (info.kind === 'subrecord') {
    const chosen = value.jsonmodel_type ?? info.subrecords![0];
    if (!info.subrecords!.includes(chosen)) {
      errors[path] = [wrongRecordType(info.subrecords!)];
      return value;
    }
  }
  const shape = shapeOf(registry, info, value);
  return shape ? cleanObject(registry, shape.props, value, path, shape.typeName, errors) : value;
}

function wrongRecordType(allowed: string[]): string {
  const names = allowed.map((t) => `JSONModel(:${t}) object`);
  return names.length === 1
    ? `Must be a ${names[0]} (you provided a Hash)`
    : `Must be one of: ${names.join(', ')} (you provided a Hash)`;
}
