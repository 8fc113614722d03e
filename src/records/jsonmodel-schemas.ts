import type { Obj } from '../json';
import { isPlainObject } from '../json';
import type { Registry } from '../registry';

/**
 * Our schemas in ArchivesSpace's JSONModel shape (GET /schemas): scripts read property lists,
 * required fields and value-list names from it. `$ref` becomes `JSONModel(:type) object`, a link
 * target `JSONModel(:type) uri`, an editable value list `dynamic_enum`, readOnly `readonly`,
 * a required property `ifmissing: "error"`.
 */
function property(node: Obj, required: boolean): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-') || key === 'readOnly' || key === '$ref' || key === 'required' || key === 'properties' || key === 'items') continue;
    out[key] = value;
  }
  if (node.$ref) out.type = `JSONModel(:${node.$ref}) object`;
  if (node['x-subrecords']) out.type = (node['x-subrecords'] as string[]).map((t) => ({ type: `JSONModel(:${t}) object` }));
  if (node['x-ref'] && !node['x-link']) out.type = (node['x-ref'] as string[]).map((t) => ({ type: `JSONModel(:${t}) uri` }));
  if (node['x-link']) out.subtype = 'ref';
  if (node['x-enum']) out.dynamic_enum = node['x-enum'];
  if (node.readOnly) out.readonly = true;
  if (required) out.ifmissing = 'error';
  if (isPlainObject(node.items)) out.items = property(node.items, false);
  if (isPlainObject(node.properties)) out.properties = properties(node as Obj);
  return out;
}

function properties(schema: Obj): Obj {
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  return Object.fromEntries(Object.entries((schema.properties ?? {}) as Obj).map(([name, node]) => [name, property(node, required.has(name))]));
}

export function jsonModelSchema(registry: Registry, name: string): Obj | undefined {
  const type = registry.types[name];
  const schema = registry.schemas[name] as Obj | undefined;
  if (!type || !schema || type.kind === 'external' || type.kind === 'query') return undefined;
  const out: Obj = { $schema: 'http://www.archivesspace.org/archivesspace.json', version: 1, type: 'object' };
  if (type.uri) out.uri = type.uri;
  out.properties = properties(schema);
  return out;
}

export function jsonModelSchemas(registry: Registry): Obj {
  const out: Obj = {};
  for (const name of Object.keys(registry.types).sort()) {
    const schema = jsonModelSchema(registry, name);
    if (schema) out[name] = schema;
  }
  return out;
}
