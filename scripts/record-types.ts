/**
 * generated/types.ts: one interface per jsonmodel_type, so code that reads a record's fields names
 * them through a type and a renamed field fails `tsc`. Written by scripts/generate.ts.
 *
 * A property is optional unless its schema requires it: the loader fills defaults and the API
 * answers records partly resolved, so code must not assume more than the schema promises. There is
 * no index signature on a described object: the loader drops properties its schema does not name
 * (src/validation/clean.ts); only an object the schema leaves open (no `properties`, or
 * `additionalProperties`) gets one.
 */
// Schema nodes are free-form JSON, read by what each keyword means.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The interface name of a jsonmodel_type: archival_object → ArchivalObject. */
export function interfaceName(type: string): string {
  return type
    .split('_')
    .map((s) => s[0].toUpperCase() + s.slice(1))
    .join('');
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A literal in the code's own quoting. */
const literal = (v: unknown) => (typeof v === 'string' ? `'${v.replace(/[\\']/g, '\\$&')}'` : JSON.stringify(v));
const key = (name: string) => (IDENTIFIER.test(name) ? name : literal(name));

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length ? unique.join(' | ') : 'never';
}

function interfaces(types: string[]): string {
  return union(types.map(interfaceName));
}

function scalar(type: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return 'unknown[]';
    case 'object':
      return 'Record<string, unknown>';
    default:
      return 'unknown';
  }
}

/** The TypeScript type of a schema node, written at `indent`. */
function tsType(node: Json, indent: string): string {
  if (node === true || node === undefined) return 'unknown';
  // x-used-as: how a loosely declared property is really used (a union the reference leaves unchecked).
  if (node['x-used-as']) return tsType(node['x-used-as'], indent);
  if (node.type === 'array') return node.items ? `Array<${tsType(node.items, indent)}>` : 'unknown[]';
  if (node.$ref) return interfaceName(node.$ref);
  if (node['x-subrecords']) {
    const embedded = interfaces(node['x-subrecords']);
    // A string beside the subrecord: a URI of one (x-ref), or text where the schema allows it (an outline level's items).
    const orString = node['x-ref'] || (Array.isArray(node.type) && node.type.includes('string'));
    return orString ? `string | ${embedded}` : embedded;
  }
  if (node['x-link']) return link(node, indent);
  if (node['x-ref']) return 'string';
  if (node['x-unchecked-union']) return node.type === 'string' ? 'string' : interfaces(node['x-unchecked-union']);
  // A value list the installation edits (x-enum) is open: any string may be stored by a later edit.
  if (node['x-enum']) return 'string';
  if (Array.isArray(node.enum)) return union(node.enum.map(literal));
  if (node.const !== undefined) return literal(node.const);
  if (node.properties) return objectLiteral(node, indent);
  if (Array.isArray(node.type)) {
    return union(node.type.map((t: string) => (t === 'object' && node.properties ? objectLiteral(node, indent) : scalar(t))));
  }
  if (node.type === 'object' && node.additionalProperties && node.additionalProperties !== true) {
    return `Record<string, ${tsType(node.additionalProperties, indent)}>`;
  }
  return node.type ? scalar(node.type) : 'unknown';
}

/** A link object: the target's URI, the target itself when resolved, and the link's own properties. */
function link(node: Json, indent: string): string {
  const refNode = node.properties?.ref ?? {};
  const targets: string[] | undefined = refNode['x-ref'] ?? refNode['x-unchecked-union'];
  const resolved = targets?.length ? interfaces(targets) : 'Record<string, unknown>';
  const { ref: _ref, _resolved: _r, ...own } = node.properties ?? {};
  const inner = indent + '  ';
  const lines = [`${inner}ref: string;`, `${inner}_resolved?: ${resolved};`, ...members(own, node.required ?? [], inner, ['ref'])];
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function objectLiteral(node: Json, indent: string): string {
  const inner = indent + '  ';
  const lines = [...members(node.properties, node.required ?? [], inner), ...indexSignature(node, inner)];
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function members(properties: Record<string, Json>, required: string[], indent: string, skip: string[] = []): string[] {
  const out: string[] = [];
  for (const [name, node] of Object.entries(properties)) {
    if (skip.includes(name)) continue;
    if (node?.description) out.push(`${indent}/** ${String(node.description).replace(/\*\//g, '*\\/')} */`);
    out.push(`${indent}${key(name)}${required.includes(name) ? '' : '?'}: ${tsType(node, indent)};`);
  }
  return out;
}

function indexSignature(node: Json, indent: string): string[] {
  const extra = node.additionalProperties;
  if (extra === undefined || extra === false) return [];
  // unknown, not the declared type: the named members must fit the signature too.
  return [`${indent}[key: string]: unknown;`];
}

/**
 * The text of generated/types.ts for the schemas. `system`: the properties the loader adds to every
 * type (already in each schema's properties), written once as SystemFields, which every interface extends.
 */
export function recordTypes(schemas: Record<string, Json>, system: Record<string, Json>, banner: string): string {
  const names = Object.keys(schemas).sort();
  const seen = new Map<string, string>();
  for (const name of names) {
    const iface = interfaceName(name);
    if (seen.has(iface)) throw new Error(`schemas/${name}.json and schemas/${seen.get(iface)}.json both become the interface ${iface}`);
    seen.set(iface, name);
  }
  const { jsonmodel_type: _type, ...shared } = system;
  const out = [`/* ${banner} */`, '/* eslint-disable */', ''];
  out.push('/** The properties every record and subrecord has (scripts/generate.ts SYSTEM_PROPERTIES). */', 'export interface SystemFields {', ...members(shared, [], '  '), '}', '');
  for (const name of names) {
    const schema = schemas[name];
    const own = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !(k in system)));
    const properties = { ...own, jsonmodel_type: { const: name } };
    const body = [...members(properties, schema.required ?? [], '  '), ...indexSignature(schema, '  ')];
    out.push(`/** schemas/${name}.json */`, `export interface ${interfaceName(name)} extends SystemFields {`, ...body, '}', '');
  }
  out.push('/** Every jsonmodel_type and its interface. */', 'export interface RecordTypes {');
  for (const name of names) out.push(`  ${key(name)}: ${interfaceName(name)};`);
  out.push('}', '', '/** A jsonmodel_type name. */', 'export type RecordTypeName = keyof RecordTypes;', '');
  out.push(
    '/**',
    ' * One view of several types (an export that takes any archival record, a name of any agent): every',
    ' * field one of them has, optional, typed as the union of its types there. A field none of them has',
    ' * fails tsc, as it would on one interface.',
    ' */',
    'export type AnyOf<T> = { [K in T extends unknown ? keyof T : never]?: T extends unknown ? (K extends keyof T ? T[K] : never) : never };',
    '',
  );
  return out.join('\n');
}
