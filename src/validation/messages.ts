import type { ErrorObject } from 'ajv';
import type { ErrorMap } from '../errors';
import type { Obj } from '../json';
import { joinPath } from './walk';

/** Ruby class names, as the reference's type messages quote them. */
export function rubyClass(value: unknown): string {
  if (typeof value === 'string') return 'String';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Integer' : 'Float';
  if (value === true) return 'TrueClass';
  if (value === false) return 'FalseClass';
  if (value === null) return 'NilClass';
  return Array.isArray(value) ? 'Array' : 'Hash';
}

const URI_HINT = ' (malformed or invalid uri? check if referenced object exists.)';

function expectedTypeName(schema: Obj): string[] {
  if (schema['x-ref'] && schema.type === 'string') return schema['x-ref'].map((t: string) => `JSONModel(:${t}) uri`);
  if (schema.$id) return [`JSONModel(:${schema.$id}) object`];
  if (schema['x-subrecords']) return schema['x-subrecords'].map((t: string) => `JSONModel(:${t}) object`);
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function typeMessage(schema: Obj, data: unknown): string {
  const names = expectedTypeName(schema);
  const head = names.length === 1 ? `Must be a ${names[0]}` : `Must be one of: ${names.join(', ')}`;
  const isUri = names.some((n) => n.endsWith(' uri'));
  return `${head} (you provided a ${rubyClass(data)})${isUri ? URI_HINT : ''}`;
}

function pathOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('/');
}

/** ajv keywords that only steer union positions; the chosen branch reports the real error. */
const STEERING = new Set(['if', 'then', 'else', 'allOf', 'const']);

/**
 * Maps ajv errors to the reference's {path: [message]} form (errors.md section 3). `broken`
 * collects the paths of objects that lack a required property or have the wrong type: their
 * custom rules are skipped.
 */
export function mapAjvErrors(ajvErrors: ErrorObject[], out: ErrorMap, broken: Set<string>): void {
  for (const e of ajvErrors) {
    if (STEERING.has(e.keyword)) continue;
    const path = pathOf(e.instancePath);
    const schema: Obj = e.parentSchema ?? {};
    const params: Obj = e.params;
    switch (e.keyword) {
      case 'required':
        broken.add(path);
        out[joinPath(path, params.missingProperty)] = ['Property is required but was missing'];
        break;
      case 'type':
        broken.add(path);
        out[path] = [typeMessage(schema, e.data)];
        break;
      case 'pattern':
        out[path] = [
          schema['x-ref']
            ? typeMessage(schema, e.data)
            : `Value '${e.data}' did not match regular expression: ${schema['x-pattern-text'] ?? params.pattern}`,
        ];
        break;
      case 'format':
        out[path] = ['Not a valid date'];
        break;
      case 'maxLength':
        out[path] = [`Must be ${params.limit} characters or fewer`];
        break;
      case 'minLength':
        out[path] = [`Must be at least ${params.limit} characters`];
        break;
      case 'minItems':
        out[path] = [`At least ${params.limit} item(s) is required`];
        break;
      case 'enum':
        out[path] = [`Invalid value '${e.data}'.  Must be one of: ${params.allowedValues.join(', ')}`];
        break;
      default:
        out.unknown = [`${path}: ${e.message ?? e.keyword}`];
    }
  }
}
