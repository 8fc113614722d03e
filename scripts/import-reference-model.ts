/**
 * import-reference-model.ts
 *
 * Converts the machine-readable ArchivesSpace record model (record-model.json from the shared
 * reference facts) into one JSON Schema (draft-07 + x- annotations) per jsonmodel_type in
 * schemas/<jsonmodel_type>.json, plus stub schemas for the out-of-scope types that are
 * referenced by URI (classification, classification_term).
 *
 * Usage (from the repository root):
 *   npx tsx scripts/import-reference-model.ts [path-to-record-model.json]
 * Default input: ../shared/reference/record-model.json (relative to the repository root).
 *
 * Re-running is safe: keys of an existing file's "x-archive" block that the converter does not
 * compute for that type are preserved (hand-maintained keys); keys it does compute are refreshed.
 * Everything else in the file is regenerated from the model.
 *
 * Conventions (see the report accompanying this script for rationale):
 * - System properties (system: true) are skipped; the schema generator adds them centrally.
 * - `uri` is kept and marked readOnly where the server assigns it (server_generated).
 * - required (ifmissing error) -> "required" array; truthy schema_required / ifmissing warn ->
 *   "x-warn-if-missing": true; readonly -> "readOnly": true.
 * - date -> {type: string, format: date}; date-time -> {type: string}.
 * - Ruby regexps are converted to ECMAScript ("pattern") and kept verbatim ("x-pattern-text").
 * - dynamic enums -> "x-enum": NAME; references -> "x-ref": [types]; link objects -> "x-link";
 *   one embedded subrecord type -> "$ref"; several -> "x-subrecords"; unchecked unions ->
 *   "x-unchecked-union". Tree references (resource_tree, digital_object_tree) are rewritten to
 *   their record type with "x-ref-tree": true.
 */
import * as fs from 'fs';
import * as path from 'path';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

// ---------------------------------------------------------------------------------------------
// Input model (record-model.json) shapes
// ---------------------------------------------------------------------------------------------

interface ModelProp {
  type: string | string[];
  as_type?: string | string[];
  required?: boolean;
  ifmissing?: string;
  schema_required?: boolean | string;
  readonly?: boolean | string;
  origin?: string;
  system?: boolean;
  ref?: string[];
  subrecord?: string[];
  subtype?: string;
  properties?: Record<string, ModelProp>;
  items?: ModelProp;
  dynamic_enum?: string;
  enum?: Json[];
  default?: Json;
  maxLength?: number;
  minLength?: number;
  minItems?: number;
  pattern?: string;
  unchecked_union?: boolean;
  used_as?: ModelProp;
  server_generated?: string;
  note?: string;
  tags?: string[];
  maxlength_lowercase_not_enforced?: number;
}

interface ModelType {
  jsonmodel_type: string;
  kind: 'record' | 'subrecord' | 'query';
  uri: string | null;
  scope: 'repository' | 'global' | 'none';
  parent: string | null;
  ancestors: string[];
  embedded_only: boolean;
  embedded_in: string[];
  requires_ref: boolean;
  custom_validations: string[];
  source: string;
  properties: Record<string, ModelProp>;
}

interface RecordModel {
  format: Record<string, string>;
  types: Record<string, ModelType>;
  abstract_parents: Record<string, unknown>;
  referenced_types_outside_scope: Record<string, { uri: string; scope: string }>;
  enumerations: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Facts that are not in record-model.json (taken from endpoints.md, pagination-and-resolve.md,
// validation-rules.md section 4 and errors.md sections 2 and 4).
// ---------------------------------------------------------------------------------------------

/** Types outside the scope that get a stub schema (referenced by URI from in-scope types). */
const STUB_TYPES = ['classification', 'classification_term'];

/** Tree pseudo-types: references to them are rewritten to the record type + x-ref-tree. */
const TREE_TYPES: Record<string, string> = {
  resource_tree: 'resource',
  digital_object_tree: 'digital_object',
};

/** Record types whose routes are written by hand (domain routes), not generated. */
const NO_GENERIC_ROUTES = new Set(['group', 'user', 'enumeration', 'enumeration_value', 'term']);

/**
 * Listing kind per record type (pagination-and-resolve.md section 1). term and enumeration_value
 * have no generic listing of their own: term is listed via GET /vocabularies/:id/terms
 * (unlimited), enumeration values inside their enumeration; both are marked "unlimited".
 */
const LISTING: Record<string, 'paginated' | 'unlimited'> = {
  accession: 'paginated',
  resource: 'paginated',
  archival_object: 'paginated',
  digital_object: 'paginated',
  digital_object_component: 'paginated',
  top_container: 'paginated',
  subject: 'paginated',
  location: 'paginated',
  location_profile: 'paginated',
  container_profile: 'paginated',
  agent_person: 'paginated',
  agent_corporate_entity: 'paginated',
  agent_family: 'paginated',
  agent_software: 'paginated',
  user: 'paginated',
  event: 'paginated',
  repository: 'unlimited',
  vocabulary: 'unlimited',
  group: 'unlimited',
  enumeration: 'unlimited',
  term: 'unlimited',
  enumeration_value: 'unlimited',
};

interface Permissions {
  read: string | null;
  create: string | null;
  update: string | null;
  delete: string | null;
}

const perm = (read: string | null, create: string | null, update: string | null, del: string | null): Permissions => ({
  read,
  create,
  update,
  delete: del,
});

/**
 * Permission codes per record type and operation (endpoints.md tables; null = no permission
 * declared / no login needed, or no such route). Where the tables are silent the closest
 * analogue is used:
 * - event: routes not detailed in endpoints.md; codes from auth-and-permissions.md 5.2
 *   (update_event_record / delete_event_record), read view_repository like other repository types.
 * - term: no create/update/delete routes; terms belong to vocabularies -> update_vocabulary_record.
 * - enumeration_value: no create/delete route; values are managed through the enumeration ->
 *   update_enumeration_record.
 * - user: POST /users declares no permission (handler-level rules) -> create null; update is
 *   manage_users unless the caller edits itself (handler rule); GET /users/:id needs manage_users.
 */
const PERMISSIONS: Record<string, Permissions> = {
  accession: perm('view_repository', 'update_accession_record', 'update_accession_record', 'delete_archival_record'),
  resource: perm('view_repository', 'update_resource_record', 'update_resource_record', 'delete_archival_record'),
  archival_object: perm('view_repository', 'update_resource_record', 'update_resource_record', 'delete_archival_record'),
  digital_object: perm('view_repository', 'update_digital_object_record', 'update_digital_object_record', 'delete_archival_record'),
  digital_object_component: perm(
    'view_repository',
    'update_digital_object_record',
    'update_digital_object_record',
    'delete_archival_record',
  ),
  top_container: perm('view_repository', 'update_container_record', 'update_container_record', 'manage_container_record'),
  event: perm('view_repository', 'update_event_record', 'update_event_record', 'delete_event_record'),
  group: perm('manage_repository', 'manage_repository', 'manage_repository', 'manage_repository'),
  repository: perm(null, 'create_repository', 'create_repository', 'delete_repository'),
  user: perm('manage_users', null, 'manage_users', 'manage_users'),
  subject: perm(null, 'update_subject_record', 'update_subject_record', 'delete_subject_record'),
  vocabulary: perm(null, 'update_vocabulary_record', 'update_vocabulary_record', null),
  term: perm(null, 'update_vocabulary_record', 'update_vocabulary_record', null),
  location: perm(null, 'update_location_record', 'update_location_record', 'update_location_record'),
  location_profile: perm(
    null,
    'update_location_profile_record',
    'update_location_profile_record',
    'update_location_profile_record',
  ),
  container_profile: perm(
    null,
    'update_container_profile_record',
    'update_container_profile_record',
    'update_container_profile_record',
  ),
  agent_person: perm(null, 'update_agent_record', 'update_agent_record', 'delete_agent_record'),
  agent_corporate_entity: perm(null, 'update_agent_record', 'update_agent_record', 'delete_agent_record'),
  agent_family: perm(null, 'update_agent_record', 'update_agent_record', 'delete_agent_record'),
  agent_software: perm(null, 'update_agent_record', 'update_agent_record', 'delete_agent_record'),
  enumeration: perm(null, 'update_enumeration_record', 'update_enumeration_record', null),
  enumeration_value: perm(null, 'update_enumeration_record', 'update_enumeration_record', null),
};

interface UniqueRule {
  fields: string[];
  within: string; // "repository" | "global" | <property name whose ref scopes it>
  errorPath: string;
  message: string;
  conflictingRecord?: boolean;
  caseInsensitive?: boolean;
}

const IDENTIFIER = ['id_0', 'id_1', 'id_2', 'id_3'];

/** Save-time uniqueness rules (validation-rules.md section 4, errors.md sections 2 and 4). */
const UNIQUE: Record<string, UniqueRule[]> = {
  accession: [{ fields: IDENTIFIER, within: 'repository', errorPath: 'id_0', message: 'That ID is already in use' }],
  resource: [
    { fields: IDENTIFIER, within: 'repository', errorPath: 'id_0', message: 'That ID is already in use' },
    { fields: ['ead_id'], within: 'repository', errorPath: 'ead_id', message: 'Must be unique' },
  ],
  digital_object: [
    { fields: ['digital_object_id'], within: 'repository', errorPath: 'digital_object_id', message: 'Must be unique' },
  ],
  archival_object: [
    {
      fields: ['ref_id'],
      within: 'resource',
      errorPath: 'ref_id',
      message: 'An Archival Object Ref ID must be unique to its resource',
    },
  ],
  digital_object_component: [
    {
      fields: ['component_id'],
      within: 'digital_object',
      errorPath: 'component_id',
      message: 'A Digital Object Component ID must be unique to its Digital Object',
    },
  ],
  top_container: [
    { fields: ['barcode'], within: 'repository', errorPath: 'barcode', message: 'A barcode must be unique within a repository' },
  ],
  subject: [
    {
      fields: ['vocabulary', 'source', 'terms[].term', 'terms[].term_type'],
      within: 'global',
      errorPath: 'terms',
      message: 'Subject must be unique',
      conflictingRecord: true,
    },
    {
      fields: ['vocabulary', 'source', 'authority_id'],
      within: 'global',
      errorPath: 'authority_id',
      message: 'Subject heading identifier must be unique within source',
    },
  ],
  term: [
    { fields: ['vocabulary', 'term', 'term_type'], within: 'global', errorPath: 'term', message: 'Term must be unique' },
  ],
  repository: [{ fields: ['repo_code'], within: 'global', errorPath: 'repo_code', message: 'short name already in use' }],
  container_profile: [
    { fields: ['name'], within: 'global', errorPath: 'name', message: 'container profile name not unique' },
  ],
  location_profile: [{ fields: ['name'], within: 'global', errorPath: 'name', message: 'location profile name not unique' }],
  vocabulary: [
    { fields: ['name'], within: 'global', errorPath: 'name', message: 'Must be unique' },
    { fields: ['ref_id'], within: 'global', errorPath: 'ref_id', message: 'Must be unique' },
  ],
  user: [{ fields: ['username'], within: 'global', errorPath: 'username', message: "Username '{username}' is already in use" }],
  group: [
    {
      fields: ['group_code'],
      within: 'repository',
      errorPath: 'group_code',
      message: 'Group code must be unique within a repository',
      caseInsensitive: true,
    },
  ],
};

interface LookupSpec {
  fields: string[];
  format?: string;
}

/** find_by_id lookups (pagination-and-resolve.md section 6; ark[] lookups are not modelled). */
const LOOKUP: Record<string, Record<string, LookupSpec>> = {
  resource: { identifier: { fields: IDENTIFIER, format: 'identifier-json' } },
  archival_object: { ref_id: { fields: ['ref_id'] }, component_id: { fields: ['component_id'] } },
  digital_object: { digital_object_id: { fields: ['digital_object_id'] } },
  digital_object_component: { component_id: { fields: ['component_id'] } },
  top_container: { indicator: { fields: ['indicator'] }, barcode: { fields: ['barcode'] } },
};

/** The x-archive keys this converter knows how to compute (in output order). */
const COMPUTED_KEY_ORDER = [
  'kind',
  'uri',
  'scope',
  'model',
  'parent',
  'validations',
  'requiresRef',
  'routes',
  'listing',
  'permissions',
  'unique',
  'lookup',
];

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function camelCase(name: string): string {
  return name
    .split('_')
    .filter((p) => p.length > 0)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

function truthy(v: unknown): boolean {
  // schema_required "false" (a string) is truthy in Ruby, as in JS.
  return v !== undefined && v !== null && v !== false;
}

function isReadonly(p: ModelProp): boolean {
  return p.readonly === true || p.readonly === 'true';
}

/**
 * Convert a Ruby regular expression source to an ECMAScript one with the same meaning for our
 * purposes: \A -> ^, \z -> $, \Z -> (?=\n?$), \h / \H -> hex classes. Ruby ^/$ (line anchors)
 * are kept as ^/$ (string anchors in ECMAScript without the m flag). Escapes are tokenised so an
 * escaped backslash is never mistaken for the start of an anchor.
 */
function rubyPatternToEcma(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\' && i + 1 < src.length) {
      const n = src[i + 1];
      i++;
      if (!inClass && n === 'A') out += '^';
      else if (!inClass && n === 'z') out += '$';
      else if (!inClass && n === 'Z') out += '(?=\\n?$)';
      else if (n === 'h') out += inClass ? '0-9a-fA-F' : '[0-9a-fA-F]';
      else if (n === 'H' && !inClass) out += '[^0-9a-fA-F]';
      else out += '\\' + n;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Property translation
// ---------------------------------------------------------------------------------------------

interface Ctx {
  typeName: string;
  path: string;
  problems: string[];
}

/** Rewrite tree pseudo-types in a ref list; returns the new list and whether a tree was seen. */
function mapRefs(refs: string[]): { refs: string[]; tree: boolean } {
  let tree = false;
  const out: string[] = [];
  for (const r of refs) {
    const mapped = TREE_TYPES[r];
    if (mapped) tree = true;
    const name = mapped ?? r;
    if (!out.includes(name)) out.push(name);
  }
  return { refs: out, tree };
}

function setRefs(target: JsonObject, refs: string[]): void {
  const m = mapRefs(refs);
  target['x-ref'] = m.refs;
  if (m.tree) target['x-ref-tree'] = true;
}

/**
 * Translate the "value shape" of a property (type, constraints, refs, subrecords, nested
 * properties), without the per-property flags that only make sense on named properties
 * (required is handled by the containing object).
 */
function translateShape(p: ModelProp, ctx: Ctx): JsonObject {
  const out: JsonObject = {};
  const t = p.type;

  if (p.unchecked_union) {
    // Declared as a union of bare type names: no type constraint, only the listed names.
    const names: string[] = [];
    for (const r of mapRefs(p.ref ?? []).refs) if (!names.includes(r)) names.push(r);
    for (const s of p.subrecord ?? []) if (!names.includes(s)) names.push(s);
    out['x-unchecked-union'] = names;
    if (p.used_as) out['x-used-as'] = translateShape(p.used_as, { ...ctx, path: ctx.path + '(used_as)' });
  } else if (Array.isArray(t)) {
    out.type = [...t];
    if (p.ref && p.ref.length) setRefs(out, p.ref);
    if (p.subrecord && p.subrecord.length) out['x-subrecords'] = [...p.subrecord];
  } else if (t === 'date') {
    out.type = 'string';
    out.format = 'date';
  } else if (t === 'date-time') {
    out.type = 'string';
  } else if (t === 'object') {
    if (p.subtype === 'ref') {
      out.type = 'object';
      out['x-link'] = true;
      const { properties, required } = translateProperties(p.properties ?? {}, ctx, true);
      if (!('ref' in properties)) {
        ctx.problems.push(`${ctx.path}: link object without a ref member`);
      }
      out.properties = properties;
      out.required = required;
    } else if (p.subrecord && p.subrecord.length === 1) {
      out.$ref = p.subrecord[0];
    } else if (p.subrecord && p.subrecord.length > 1) {
      out.type = 'object';
      out['x-subrecords'] = [...p.subrecord];
    } else if (p.properties) {
      out.type = 'object';
      const { properties, required } = translateProperties(p.properties, ctx, false);
      out.properties = properties;
      if (required.length) out.required = required;
    } else {
      out.type = 'object';
    }
  } else if (t === 'array') {
    out.type = 'array';
    if (p.items) {
      out.items = translateProp(p.items, { ...ctx, path: ctx.path + '[]' }, false);
    }
  } else if (t === 'string' || t === 'integer' || t === 'boolean' || t === 'number' || t === 'null') {
    out.type = t;
    if (p.ref && p.ref.length) setRefs(out, p.ref);
  } else {
    ctx.problems.push(`${ctx.path}: unknown type ${JSON.stringify(t)}`);
  }

  if (p.subrecord && p.subrecord.length && t !== 'object' && t !== 'array' && !Array.isArray(t) && !p.unchecked_union) {
    ctx.problems.push(`${ctx.path}: subrecord on non-object type ${JSON.stringify(t)}`);
  }

  if (p.dynamic_enum) out['x-enum'] = p.dynamic_enum;
  if (p.enum) out.enum = [...p.enum];
  if (p.maxLength !== undefined) out.maxLength = p.maxLength;
  if (p.minLength !== undefined) out.minLength = p.minLength;
  if (p.minItems !== undefined) out.minItems = p.minItems;
  if (p.pattern !== undefined) {
    out.pattern = rubyPatternToEcma(p.pattern);
    out['x-pattern-text'] = p.pattern;
  }
  return out;
}

/** Translate one property (shape plus readOnly / default / warnings / informational keys). */
function translateProp(p: ModelProp, ctx: Ctx, named: boolean, name?: string): JsonObject {
  const out = translateShape(p, ctx);
  if (p.default !== undefined) out.default = p.default;
  const serverAssignedUri = name === 'uri' && named && p.server_generated !== undefined;
  if (isReadonly(p) || serverAssignedUri) out.readOnly = true;
  if (truthy(p.schema_required) || (p.ifmissing === 'warn' && !p.required)) out['x-warn-if-missing'] = true;
  if (p.server_generated) out['x-server-generated'] = p.server_generated;
  if (p.tags && p.tags.length) out['x-tags'] = [...p.tags];
  if (p.note) out.description = p.note;
  return out;
}

function translateProperties(
  props: Record<string, ModelProp>,
  ctx: Ctx,
  isLink: boolean,
): { properties: JsonObject; required: string[] } {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [name, p] of Object.entries(props)) {
    if (p.system || p.origin === 'system') continue;
    properties[name] = translateProp(p, { ...ctx, path: `${ctx.path}.${name}` }, true, name);
    if (p.required === true || p.ifmissing === 'error') required.push(name);
  }
  if (isLink) {
    // A link object must always contain ref (ArchivesSpaceSubType "ref"), whatever ref says.
    const idx = required.indexOf('ref');
    if (idx >= 0) required.splice(idx, 1);
    required.unshift('ref');
  }
  return { properties, required };
}

// ---------------------------------------------------------------------------------------------
// Schema assembly
// ---------------------------------------------------------------------------------------------

function computeArchive(t: ModelType): JsonObject {
  const a: JsonObject = { kind: t.kind };
  if (t.uri) {
    a.uri = t.uri;
    if (t.scope === 'repository' || t.scope === 'global') a.scope = t.scope;
  }
  // CamelCase model name for every type (used in "<Model> not found"; informational elsewhere).
  a.model = camelCase(t.jsonmodel_type);
  if (t.parent) a.parent = t.parent;
  const validations = t.custom_validations.map((v) => v.replace(/\s*\(warning\)\s*$/, ''));
  if (validations.length) a.validations = validations;
  if (t.requires_ref) a.requiresRef = true;
  if (t.kind === 'record') {
    const name = t.jsonmodel_type;
    a.routes = !NO_GENERIC_ROUTES.has(name);
    const listing = LISTING[name];
    if (!listing) throw new Error(`no listing kind known for record type ${name}`);
    a.listing = listing;
    const p = PERMISSIONS[name];
    if (!p) throw new Error(`no permissions known for record type ${name}`);
    a.permissions = { ...p } as unknown as JsonObject;
    if (UNIQUE[name]) a.unique = UNIQUE[name].map((u) => ({ ...u })) as unknown as Json[];
    if (LOOKUP[name]) a.lookup = JSON.parse(JSON.stringify(LOOKUP[name])) as JsonObject;
  }
  return a;
}

/** Merge: converter-computed keys first (refreshed), then every other key already in the file. */
function mergeArchive(computed: JsonObject, existing: JsonObject | undefined): JsonObject {
  const out: JsonObject = {};
  for (const k of COMPUTED_KEY_ORDER) if (k in computed) out[k] = computed[k];
  for (const k of Object.keys(computed)) if (!(k in out)) out[k] = computed[k];
  if (existing) {
    for (const [k, v] of Object.entries(existing)) {
      if (!(k in computed)) out[k] = v; // hand-maintained key (or one not computed for this type)
    }
  }
  return out;
}

function buildSchema(t: ModelType, problems: string[]): JsonObject {
  const ctx: Ctx = { typeName: t.jsonmodel_type, path: t.jsonmodel_type, problems };
  const { properties, required } = translateProperties(t.properties, ctx, false);
  if (t.requires_ref && !required.includes('ref')) {
    // Relationship subrecords must contain ref even if not declared required.
    required.unshift('ref');
  }
  const schema: JsonObject = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: t.jsonmodel_type,
    title: t.jsonmodel_type,
    type: 'object',
    'x-archive': computeArchive(t),
    properties,
  };
  if (required.length) schema.required = required;
  return schema;
}

function buildStub(name: string, info: { uri: string; scope: string }): JsonObject {
  const a: JsonObject = { kind: 'external', uri: info.uri };
  if (info.scope === 'repository' || info.scope === 'global') a.scope = info.scope;
  a.model = camelCase(name);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: name,
    title: name,
    description: 'Stub: type outside the scope of this backend; only referenced by URI from in-scope records.',
    type: 'object',
    'x-archive': a,
    properties: {},
  };
}

function readExisting(file: string): JsonObject | undefined {
  if (!fs.existsSync(file)) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as JsonObject;
  } catch (e) {
    throw new Error(`existing schema ${file} is not valid JSON; fix or remove it first: ${(e as Error).message}`);
  }
}

function writeSchema(dir: string, name: string, schema: JsonObject): void {
  const file = path.join(dir, `${name}.json`);
  const existing = readExisting(file);
  const existingArchive =
    existing && typeof existing['x-archive'] === 'object' && existing['x-archive'] !== null && !Array.isArray(existing['x-archive'])
      ? (existing['x-archive'] as JsonObject)
      : undefined;
  const merged: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) {
    merged[k] = k === 'x-archive' ? mergeArchive(v as JsonObject, existingArchive) : v;
  }
  fs.writeFileSync(file, JSON.stringify(merged, null, 2) + '\n');
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

function main(): void {
  const repoRoot = path.resolve(__dirname, '..');
  // An explicit path is taken relative to the current directory; the default relative to the repo root.
  const input = process.argv[2]
    ? path.resolve(process.cwd(), process.argv[2])
    : path.resolve(repoRoot, '../shared/reference/record-model.json');
  const outDir = path.join(repoRoot, 'schemas');
  const model = JSON.parse(fs.readFileSync(input, 'utf8')) as RecordModel;
  fs.mkdirSync(outDir, { recursive: true });

  const problems: string[] = [];
  const counts: Record<string, number> = {};
  let written = 0;

  for (const t of Object.values(model.types)) {
    writeSchema(outDir, t.jsonmodel_type, buildSchema(t, problems));
    counts[t.kind] = (counts[t.kind] ?? 0) + 1;
    written++;
  }
  for (const name of STUB_TYPES) {
    const info = model.referenced_types_outside_scope[name];
    if (!info) {
      problems.push(`stub type ${name} not listed in referenced_types_outside_scope`);
      continue;
    }
    writeSchema(outDir, name, buildStub(name, info));
    counts.external = (counts.external ?? 0) + 1;
    written++;
  }

  console.log(`read ${Object.keys(model.types).length} types from ${input}`);
  console.log(`wrote ${written} schema files to ${outDir}`);
  for (const [k, n] of Object.entries(counts)) console.log(`  ${k}: ${n}`);
  if (problems.length) {
    console.error(`${problems.length} problem(s):`);
    for (const p of problems) console.error(`  ${p}`);
    process.exitCode = 1;
  }
}

main();
