import type { Registry } from '../registry';
import { ErrorMap, errors } from '../errors';
import { cleanRecord } from './clean';
import { EnumerationCatalog } from './enumerations';
import { mapAjvErrors } from './messages';
import { customRules } from './rules';
import { isPlainObject, Obj } from '../json';
import { joinPath, planOf, Shape, walkShapes } from './walk';

export interface Prepared {
  record: Obj;
  warnings: ErrorMap;
}

/**
 * clean → schema validation (generated validators) → custom rules and value lists → defaults.
 * Throws the reference's 400 validation error; returns the record ready to store. `preferred`
 * replaces the schema's default of the fields it names (the caller's preferred `publish`), in
 * the record and its subrecords, where the value has the default's type.
 */
export function prepareRecord(registry: Registry, enums: EnumerationCatalog, typeName: string, input: unknown, preferred: Obj = {}): Prepared {
  if (!isPlainObject(input)) throw errors.expectedBody(`a JSON object for a ${typeName} record`);
  const errs: ErrorMap = {};
  const warnings: ErrorMap = {};
  const record = cleanRecord(registry, typeName, input, errs);

  const validate = registry.validator(typeName);
  const broken = new Set<string>();
  if (!validate(record)) mapAjvErrors(validate.errors ?? [], errs, broken);

  const root: Shape = { typeName, props: registry.type(typeName).props, obj: record, path: '' };
  walkShapes(registry, root, (shape) => {
    checkShape(registry, enums, shape, errs, warnings, broken);
  });
  if (Object.keys(errs).length) throw errors.validation(errs, warnings, typeName, record);

  walkShapes(registry, root, (shape) => applyDefaults(shape, preferred));
  return { record, warnings };
}

function checkShape(
  registry: Registry,
  enums: EnumerationCatalog,
  shape: Shape,
  errs: ErrorMap,
  warnings: ErrorMap,
  broken: Set<string>,
): void {
  const plan = planOf(shape.props);
  for (const name of plan.warnIfMissing) {
    if (shape.obj[name] === undefined) warnings[joinPath(shape.path, name)] = ['Property was missing'];
  }
  for (const [name, info] of plan.enumerated) {
    const value = shape.obj[name];
    if (value === undefined) continue;
    const path = joinPath(shape.path, name);
    const values = info.array && Array.isArray(value) ? value : [value];
    values.forEach((v, i) => {
      if (typeof v !== 'string') return;
      const message = enumMessage(enums, info.enumName!, v, info.array ? joinPath(path, i) : path);
      if (message) errs[info.array ? joinPath(path, i) : path] = [message];
    });
  }
  if (!shape.typeName || broken.has(shape.path)) return;
  for (const ruleName of registry.type(shape.typeName).validations ?? []) {
    const rule = customRules[ruleName];
    if (!rule) throw new Error(`schema ${shape.typeName} names custom rule ${ruleName}, which does not exist`);
    for (const finding of rule(shape.obj)) {
      const target = finding.level === 'warning' ? warnings : errs;
      if (finding.coded) target.coded_errors = [finding.message];
      else target[joinPath(shape.path, finding.field)] = [finding.message];
    }
  }
}

function enumMessage(enums: EnumerationCatalog, listName: string, value: string, path: string): string | undefined {
  const list = enums.get(listName);
  if (!list || list.values.includes(value)) return undefined;
  const text = `Invalid value '${value}'.  Must be one of: ${list.values.join(', ')}`;
  return list.editable ? text : `Protected read-only list #/${path}. ${text}`;
}

/** Defaults are filled in after validation; absent arrays become []. */
function applyDefaults(shape: Shape, preferred: Obj): void {
  for (const [name, info] of planOf(shape.props).defaulted) {
    if (shape.obj[name] !== undefined) continue;
    // A read-only field (a subject's publish) keeps the schema's default.
    const fallback = !info.readOnly && info.default !== undefined && typeof preferred[name] === typeof info.default ? preferred[name] : info.default;
    // An empty-string default would break the rule that records never carry "".
    if (fallback !== undefined && fallback !== '') shape.obj[name] = typeof fallback === 'object' && fallback !== null ? structuredClone(fallback) : fallback;
    else if (info.array) shape.obj[name] = [];
  }
}
