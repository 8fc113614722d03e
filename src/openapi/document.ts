/**
 * The OpenAPI 3.1 description of the API, built from the registry (record schemas) and the
 * endpoint table (routes, parameters, permissions): a route or a schema change shows up here
 * without anyone editing a description. Pure: the same inputs give the same document, which
 * is why the copy in generated/openapi.json can be checked for staleness.
 */
import type { Registry, TypeInfo } from '../registry';
import { answeredErrors, type Endpoint, type ParamSpec } from '../records/endpoint';
import { ERROR_KINDS } from '../errors';

// OpenAPI and JSON Schema nodes are free-form JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface DocumentInfo {
  /** The package's version (info.version). */
  version: string;
}

const SESSION_HEADER = 'X-ArchivesSpace-Session';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** Our own component names are capitalised; registry types are snake_case, so they cannot clash. */
const OWN_SCHEMAS: Record<string, Json> = {
  ErrorMap: {
    type: 'object',
    description: 'Problems by path (`title`, `dates/0/begin`) or parameter name, each with its messages.',
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
  Error: {
    type: 'object',
    required: ['error'],
    description:
      'Every error answer. `error` is a message, or an ErrorMap for validation and parameter problems; ' +
      'a schema validation failure also carries `warning` and `invalid_object`.',
    properties: {
      error: { oneOf: [{ type: 'string' }, ref('ErrorMap')] },
      warning: ref('ErrorMap'),
      invalid_object: { type: 'string', description: 'A debugging rendering of the submitted record; do not parse it.' },
    },
    examples: [
      { error: { title: ['Property is required but was missing'] }, warning: {}, invalid_object: '#<JSONModel(:accession) {...}>' },
      { error: { page: ['Parameter required but no value provided'] } },
      { error: 'Access denied' },
    ],
  },
  SessionError: {
    type: 'object',
    required: ['code', 'error'],
    properties: {
      code: { type: 'string', enum: ['SESSION_GONE', 'SESSION_EXPIRED'] },
      error: { type: 'string' },
    },
    examples: [{ code: 'SESSION_GONE', error: 'No session found for 1a2b3c' }],
  },
  WriteResult: {
    type: 'object',
    required: ['status', 'id', 'lock_version', 'uri', 'warnings'],
    properties: {
      status: { type: 'string', enum: ['Created', 'Updated'] },
      id: { type: 'integer' },
      lock_version: { type: 'integer', description: 'Send it back with the next update (optimistic locking: 409 when stale).' },
      stale: { type: 'null' },
      uri: { type: 'string' },
      warnings: {
        description: 'Properties that should have been given (an empty array when there are none).',
        oneOf: [ref('ErrorMap'), { type: 'array', maxItems: 0 }],
      },
    },
  },
  DeleteResult: {
    type: 'object',
    required: ['status', 'id'],
    properties: { status: { type: 'string', const: 'Deleted' }, id: { type: 'integer' } },
  },
};

const ERROR_CONTENT = { 'application/json': { schema: ref('Error') } };

// One reusable response per error kind, described by the error catalogue.
const RESPONSES: Record<string, Json> = Object.fromEntries(
  Object.entries(ERROR_KINDS).map(([kind, { description }]) => [
    kind,
    { description, content: kind === 'SessionGone' ? { 'application/json': { schema: ref('SessionError') } } : ERROR_CONTENT },
  ]),
);

/** Express `:name` segments → OpenAPI `{name}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:(\w+)/g, '{$1}');
}

function pathParamNames(expressPath: string): string[] {
  return [...expressPath.matchAll(/:(\w+)/g)].map((m) => m[1]);
}

function paramSchema(type: ParamSpec['type']): Json {
  switch (type) {
    case 'integer': return { type: 'integer' };
    case 'boolean': return { type: 'boolean' };
    case 'string': return { type: 'string' };
    case 'string[]': return { type: 'array', items: { type: 'string' } };
    case 'integer[]': return { type: 'array', items: { type: 'integer' } };
  }
}

function parameter(spec: ParamSpec, inPath: boolean): Json {
  const array = spec.type.endsWith('[]');
  const schema = paramSchema(spec.type);
  if (spec.default !== undefined && !inPath) schema.default = spec.default;
  const p: Json = {
    // Array parameters travel as name[]=a&name[]=b (a bare name=a is refused with a hint).
    name: array && !inPath ? `${spec.name}[]` : spec.name,
    in: inPath ? 'path' : 'query',
    required: inPath || !!spec.required,
    schema,
  };
  if (array && !inPath) Object.assign(p, { style: 'form', explode: true });
  return p;
}

/** page / id_set / all_ids and their companions (src/http/params.ts parsePaging). */
const PAGING_PARAMETERS: Json[] = [
  { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 }, description: 'The page to list (one of page, id_set[] or all_ids is required).' },
  { name: 'page_size', in: 'query', schema: { type: 'integer', minimum: 1 }, description: 'Records per page (DEFAULT_PAGE_SIZE; at most MAX_PAGE_SIZE).' },
  { name: 'id_set[]', in: 'query', style: 'form', explode: true, schema: { type: 'array', items: { type: 'integer' } }, description: 'These ids only (at most MAX_PAGE_SIZE; `id_set=1,2,3` works too).' },
  { name: 'all_ids', in: 'query', schema: { type: 'boolean' }, description: 'Every id, as an array of integers (present: selected).' },
  { name: 'modified_since', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Only records changed since this time (seconds since the epoch).' },
  { name: 'sort_field', in: 'query', schema: { type: 'string', enum: ['id', 'create_time', 'system_mtime', 'user_mtime', 'lock_version'] } },
  { name: 'sort_direction', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'], default: 'asc' } },
  { name: 'resolve[]', in: 'query', style: 'form', explode: true, schema: { type: 'array', items: { type: 'string' } }, description: 'Links to resolve (`subjects`, `linked_agents::subjects`, `tree`...).' },
];

/** A registry JSON Schema node → an OpenAPI 3.1 schema node (refs into components, subrecord unions spelt out). */
export function toOpenApiSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toOpenApiSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) out.$ref = `#/components/schemas/${v}`;
    else if (k === 'properties' || k === 'patternProperties') {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, p]) => [name, toOpenApiSchema(p)]));
    } else if (['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf'].includes(k)) {
      out[k] = toOpenApiSchema(v);
    } else out[k] = v;
  }
  const notes: string[] = node.description ? [node.description] : [];
  if (Array.isArray(node['x-subrecords'])) {
    // Embedded records are told apart by jsonmodel_type; a position that also takes a URI says so.
    const records = node['x-subrecords'].map((t: string) => ref(t));
    delete out.type;
    out.anyOf = node['x-ref'] ? [{ type: 'string', description: `URI of a ${node['x-ref'].join(' or ')} record` }, ...records] : records;
  } else if (Array.isArray(node['x-ref'])) {
    notes.push(`URI of a ${node['x-ref'].join(' or ')} record${node['x-ref-tree'] ? ' (or its /tree)' : ''}.`);
  }
  if (typeof node['x-enum'] === 'string') {
    notes.push(`A value of the editable value list \`${node['x-enum']}\` (GET /config/enumerations/names/${node['x-enum']}).`);
  }
  if (notes.length) out.description = notes.join(' ');
  return out;
}

/** What a route answers when it succeeds, as far as the registry tells (generic JSON otherwise). */
function successSchema(endpoint: Endpoint, byUri: Map<string, TypeInfo>): { schema: Json; description: string } {
  const itemPath = /^(.*)\/:id$/.exec(endpoint.path)?.[1];
  const collection = byUri.get(endpoint.path);
  const item = itemPath !== undefined ? byUri.get(itemPath) : undefined;
  if (collection && endpoint.method === 'get') {
    const records = { type: 'array', items: ref(collection.name) };
    if (!endpoint.paginated) return { schema: records, description: `Every ${collection.name} record` };
    return {
      description: 'With page: one page; with id_set[]: those records; with all_ids: every id',
      schema: {
        oneOf: [
          {
            type: 'object',
            required: ['first_page', 'last_page', 'this_page', 'total', 'results'],
            properties: {
              first_page: { type: 'integer' }, last_page: { type: 'integer' }, this_page: { type: 'integer' },
              total: { type: 'integer' }, results: records,
            },
          },
          records,
          { type: 'array', items: { type: 'integer' } },
        ],
      },
    };
  }
  if (collection && endpoint.method === 'post' && endpoint.body === collection.name) return { schema: ref('WriteResult'), description: 'Created' };
  if (item && endpoint.method === 'get') return { schema: ref(item.name), description: `The ${item.name}` };
  if (item && endpoint.method === 'post' && endpoint.body === item.name) return { schema: ref('WriteResult'), description: 'Updated' };
  if (item && endpoint.method === 'delete') return { schema: ref('DeleteResult'), description: 'Deleted' };
  return { schema: {}, description: 'Success' };
}

function tagOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  const rest = parts[0] === 'repositories' && parts[1] === ':repo_id' && parts.length > 2 ? parts.slice(2) : parts;
  return rest[0] ?? 'system';
}

function operationId(endpoint: Endpoint): string {
  const words = endpoint.path.split('/').filter(Boolean).map((p) => p.replace(/^:/, 'by_').replace(/\W+/g, '_'));
  return [endpoint.method, ...words].join('_') || endpoint.method;
}

function permissionText(permission: string | null): string {
  return permission === null
    ? 'Permission: none checked before the call (anyone, with or without a session; the operation may refuse some callers).'
    : `Permission: \`${permission}\` (in the path's repository for repository routes; the administrator holds every permission).`;
}

function operation(endpoint: Endpoint, byUri: Map<string, TypeInfo>): Json {
  const inPath = new Set(pathParamNames(endpoint.path));
  const declared = endpoint.params ?? [];
  const parameters: Json[] = [];
  for (const name of inPath) {
    const spec = declared.find((p) => p.name === name);
    parameters.push(
      spec
        ? parameter(spec, true)
        : { name, in: 'path', required: true, schema: name === 'repo_id' ? { type: 'integer' } : { type: 'string' },
            ...(name === 'repo_id' ? { description: 'A repository that exists (400 otherwise).' } : {}) },
    );
  }
  for (const spec of declared) if (!inPath.has(spec.name)) parameters.push(parameter(spec, false));
  if (endpoint.paginated) {
    const taken = new Set(parameters.map((p) => p.name));
    parameters.push(...PAGING_PARAMETERS.filter((p) => !taken.has(p.name)));
  }

  const success = successSchema(endpoint, byUri);
  const produces = endpoint.produces ?? 'application/json';
  const responses: Json = {
    '200': {
      description: success.description,
      content: { [produces]: { schema: produces === 'application/json' ? success.schema : { type: 'string' } } },
    },
  };
  for (const kind of answeredErrors(endpoint)) responses[String(ERROR_KINDS[kind].status)] = response(kind);

  const description = [
    permissionText(endpoint.permission),
    endpoint.paginated ? 'Paginated: give one of `page`, `id_set[]` or `all_ids`.' : '',
    endpoint.jsonParams ? 'POST parameters may also come as a JSON object body (or a form body).' : '',
  ].filter(Boolean).join('\n\n');

  const op: Json = {
    operationId: operationId(endpoint),
    summary: endpoint.summary,
    description,
    tags: [tagOf(endpoint.path)],
    'x-permission': endpoint.permission,
    parameters,
    responses,
    // Routes with no permission answer anonymous callers too; a session is still honoured.
    security: endpoint.permission === null ? [{}, { session: [] }] : [{ session: [] }],
  };
  if (!parameters.length) delete op.parameters;
  if (endpoint.body) {
    op.requestBody = { required: true, content: { 'application/json': { schema: ref(endpoint.body) } } };
  } else if (endpoint.rawJsonBody) {
    op.requestBody = { required: true, description: 'A JSON document (see the summary).', content: { 'application/json': { schema: {} } } };
  } else if (endpoint.jsonParams) {
    const props = Object.fromEntries(declared.map((p) => [p.name, paramSchema(p.type)]));
    op.requestBody = { required: false, content: { 'application/json': { schema: { type: 'object', properties: props } } } };
  }
  return op;
}

export function buildOpenApiDocument(registry: Registry, endpoints: Endpoint[], info: DocumentInfo): Json {
  const byUri = new Map(registry.routedTypes().map((t) => [t.uri!, t]));
  const paths: Json = {};
  for (const endpoint of endpoints) {
    const p = openApiPath(endpoint.path);
    paths[p] ??= {};
    // Express answers the first matching row; a later duplicate is unreachable, so the first one describes it.
    paths[p][endpoint.method] ??= operation(endpoint, byUri);
  }
  const schemas: Json = {};
  for (const name of Object.keys(registry.schemas).sort()) schemas[name] = toOpenApiSchema(registry.schemas[name]);
  for (const [name, schema] of Object.entries(OWN_SCHEMAS)) {
    if (schemas[name]) throw new Error(`record type ${name} clashes with an OpenAPI component of the same name`);
    schemas[name] = schema;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Archive Records Backend',
      version: info.version,
      summary: 'The ArchivesSpace backend API: archival records over HTTP/JSON.',
      description:
        'Generated from the schema registry and the endpoint table (src/openapi/document.ts); never edited by hand.\n\n' +
        `Log in with \`POST /users/{username}/login?password=...\` and send the \`session\` it answers in the \`${SESSION_HEADER}\` ` +
        'header. Checks run in this order: session (412), parameters and body (400), permission (403), then the operation.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    paths,
    components: {
      schemas,
      responses: RESPONSES,
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'header',
          name: SESSION_HEADER,
          description:
            'The session token from POST /users/{username}/login. The headers X-Archive-Session and ' +
            'X_ARCHIVESSPACE_SESSION are accepted too. An unknown or expired token answers 412.',
        },
      },
    },
  };
}
