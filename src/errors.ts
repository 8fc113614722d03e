/**
 * The one catalogue of error answers. Every layer throws ApiError; the HTTP layer writes
 * status and body as they are. Shapes and texts follow the reference (errors.md).
 */
export type ErrorMap = Record<string, string[]>;

/**
 * The kinds of error answer, by status. An endpoint row declares which kinds it answers
 * (src/records/endpoint.ts answeredErrors) and the OpenAPI document describes exactly those.
 */
export const ERROR_KINDS = {
  BadRequest: {
    status: 400,
    description: 'Bad parameters, an unparsable or invalid JSON body, a repository that does not exist, a link to a missing record ' +
      '(`{"error": {"<path>": ["<message>"]}}` or `{"error": "<message>"}`).',
  },
  AccessDenied: { status: 403, description: 'The caller lacks the permission (`{"error": "Access denied"}`).' },
  NotFound: { status: 404, description: 'No such record here (`{"error": "<Model> not found"}`).' },
  Conflict: {
    status: 409,
    description: 'A stale or missing `lock_version`, an update of a suppressed record, a delete the record\'s links forbid, ' +
      'or a transfer to another repository that records left behind or taken keys stand in the way of (`{"error": {"<uri>": [{"message": ...}]}}`).',
  },
  SessionGone: {
    status: 412,
    description: 'The session header names no live session (`SESSION_GONE`) or an expired one (`SESSION_EXPIRED`): log in again.',
  },
  TooLarge: { status: 413, description: 'The request body is larger than BODY_LIMIT_BYTES.' },
  TooManyRequests: { status: 429, description: 'Too many failed logins for this username or address; see the Retry-After header.' },
  StoreBusy: {
    status: 503,
    description: 'The store stayed busy longer than DB_WAIT_SECONDS (a long write holds it, e.g. a large import on SQLite), or its database server does not answer (a cluster node down); try again after Retry-After.',
  },
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    /** The two 412 session answers are written without the trailing newline. */
    readonly trailingNewline = true,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.error === 'string' ? body.error : JSON.stringify(body.error));
  }
}

const PARAM_REQUIRED = 'Parameter required but no value provided';
const PROPERTY_MISSING = 'Property is required but was missing';

/** The text of a parameter or field that breaks its rule: "Failed validation -- <detail>". */
export const failedValidation = (detail: string) => `Failed validation -- ${detail}`;

/** The text of a parameter whose value is not of its type (`shown` as the caller sent it). */
export const wantedType = (typeName: string, shown: string) => `Wanted type ${typeName} but got '${shown}'`;

/** The parameter-error shape with one parameter (or field) and one message: `{"error": {"<param>": ["<message>"]}}`. */
const oneParam = (param: string, message: string) => new ApiError(400, { error: { [param]: [message] } });
const invalidParam = (param: string, detail: string) => oneParam(param, failedValidation(detail));
const unparsableBody = (detail: string) => new ApiError(400, { error: `Had some trouble parsing your request: ${detail}` });

export const errors = {
  notFound: (model: string) => new ApiError(404, { error: `${model} not found` }),
  userNotFound: () => new ApiError(404, { error: "User wasn't found" }),
  notFoundException: () => new ApiError(404, { error: 'NotFoundException' }),
  routeNotFound: () => new ApiError(404, { error: 'Sinatra::NotFound' }),
  storeBusy: () =>
    new ApiError(503, { error: 'The store is busy with a long write (such as a large import); try again shortly' }, true, { 'Retry-After': '5' }),
  storeUnreachable: () =>
    new ApiError(503, { error: 'The database server does not answer (a node of a cluster may be down); try again shortly' }, true, { 'Retry-After': '5' }),
  accessDenied: () => new ApiError(403, { error: 'Access denied' }),
  loginFailed: () => new ApiError(403, { error: 'Login failed' }),
  /** Password resets by e-mail are off (the original's default, allow_password_reset). */
  passwordResetOff: () => new ApiError(400, { error: 'NotAllowed' }),
  invalidUsername: () => new ApiError(400, { error: 'Invalid username' }),
  sessionGone: (token: string) =>
    new ApiError(412, { code: 'SESSION_GONE', error: `No session found for ${token}` }, false),
  sessionExpired: (token: string) =>
    new ApiError(412, { code: 'SESSION_EXPIRED', error: `Session timed out for ${token}` }, false),
  /** A body the parser could not read (its own message). */
  unparsableBody,
  emptyBody: () => unparsableBody('the request body is empty'),
  /** A body that parsed but is not what the route reads: `what` with its article ("a JSON object of parameters"). */
  expectedBody: (what: string) => unparsableBody(`expected ${what}`),
  /** A value meant to hold JSON (`what`: "the job", a parameter's name) that does not parse. */
  notJson: (what: string, parseError: string) => unparsableBody(`${what} is not valid JSON (${parseError})`),
  /** Parameter problems: one object, one key per parameter. */
  params: (map: ErrorMap) => new ApiError(400, { error: map }),
  paramRequired: (...names: string[]) =>
    new ApiError(400, { error: Object.fromEntries(names.map((n) => [n, [PARAM_REQUIRED]])) }),
  /** A parameter (or a field of a body) that breaks its rule: "Failed validation -- <detail>". */
  invalidParam,
  /** …that must be something else: `what` with its article ("an object", "a list of {label, type}"). */
  mustBe: (param: string, what: string) => invalidParam(param, `must be ${what}`),
  /** …whose value is not one of a closed list (`given` absent: "(none)"). */
  mustBeOneOf: (param: string, allowed: readonly string[], given: string | undefined) =>
    invalidParam(param, `must be one of ${allowed.join(', ')} but given: ${given ?? '(none)'}`),
  /** …that should name a record by its URI: `what` with its article ("a group", "an enumeration"). */
  notAUri: (param: string, what: string, given: string) => invalidParam(param, `not ${what} URI: ${given}`),
  /** …naming a record outside the tree or repository it must be in. */
  notIn: (param: string, what: string, where: string) => invalidParam(param, `${what} is not in ${where}`),
  /** …naming a record that does not exist (`what`: "location", "container profile", "record"). */
  nothingAt: (param: string, what: string, uri: string) => invalidParam(param, `no ${what} at ${uri}`),
  /** …whose value is not of its type. */
  wrongType: (param: string, typeName: string, shown: string) => oneParam(param, wantedType(typeName, shown)),
  /** A property of a body the route needs, absent (the validation message of a missing required property). */
  propertyMissing: (param: string) => oneParam(param, PROPERTY_MISSING),
  /** A parameter naming a repository that does not exist. */
  repositoryNotFound: (param: string) => oneParam(param, 'Repository not found'),
  /** A merge request the merge cannot make, in the merge's words. */
  badMergeRequest: (message: string) => oneParam('merge_request', message),
  /** A merge request without its candidates. */
  noMergeCandidates: () => oneParam('merge_candidates', 'Must have at least 1 item, each with a ref'),
  repositoryMissing: () => invalidParam('repo_id', 'The Repository must exist'),
  /** Schema validation failure of a JSON body. */
  validation: (error: ErrorMap, warning: ErrorMap, type: string, record: unknown) =>
    new ApiError(400, {
      error,
      warning,
      invalid_object: `#<JSONModel(:${type}) ${JSON.stringify(record)}>`,
    }),
  /** Model-level failures found when saving (uniqueness and the like). */
  conflictOnSave: (error: ErrorMap) => new ApiError(400, { error }),
  /** A save refused for one field, in the rule's words. */
  refusedOnSave: (field: string, message: string) => oneParam(field, message),
  notUnique: (field: string) => oneParam(field, 'Must be unique'),
  /** A group granting permission codes the permission table does not know. */
  unknownPermissionCodes: (codes: string[]) => oneParam('grants_permissions', `Unknown permission code${codes.length > 1 ? 's' : ''}: ${codes.join(', ')}`),
  /** A group naming members who have no user account. */
  unknownUsers: (usernames: string[]) =>
    oneParam('member_usernames', usernames.length === 1 ? `User ${usernames[0]} does not exist` : `Users ${usernames.join(', ')} do not exist`),
  globalRepositoryRecord: () =>
    new ApiError(400, { error: 'The global repository cannot contain archival records' }),
  versionNotFound: (lockVersion: number) => new ApiError(404, { error: `Version ${lockVersion} not found` }),
  staleLockVersion: () =>
    new ApiError(409, { error: 'The record you tried to update has been modified since you fetched it.' }),
  missingLockVersion: () =>
    new ApiError(409, { error: 'You must provide a lock_version in your request' }),
  /** A type whose schema refuses deleting a record others still link to (x-archive.refuseDeleteIfLinked). */
  deleteRefusedWhileLinked: (message: string) => new ApiError(409, { error: message }),
  suppressedUpdate: () => new ApiError(409, { error: "Can't update an object that has been suppressed" }),
  /** A link (ref) to a record that does not exist. */
  missingLinkTarget: (uri: string) => new ApiError(400, { error: `Can't relate to non-existent record: ${uri}` }),
  /** A link from a repository's record to another repository's record. */
  foreignRepositoryLink: (repoId: number | undefined, uri: string) =>
    new ApiError(400, { error: `Invalid URI reference for this (${repoId}) repo: '${uri}'` }),
  /** A merge the caller may not make (it would carry what the caller may not see). */
  conflictingMerge: (message: string) => new ApiError(409, { error: message }),
  /** A transfer to another repository refused: what stands in the way, under each record's URI. */
  transferConflicts: (conflicts: Record<string, Array<{ json_property?: string; message: string }>>) => new ApiError(409, { error: conflicts }),
  /** A transfer to a repository where the caller lacks the permission the transfer needs. */
  transferTargetDenied: () => new ApiError(403, { error: { target_repo: ['Permission denied'] } }),
  /** A tree move that would put a node under itself or its descendants. */
  treeCycle: () => new ApiError(409, { error: "Can't make a parent into its own child" }),
  noPreviousNode: () => new ApiError(404, { error: 'No previous node' }),
  enumerationValueInUse: (value: string) => new ApiError(409, { error: `Can't delete a value that's in use: ${value}` }),
  enumerationNotEditable: (id: number) => new ApiError(400, { error: `Can't migrate values for non-editable enumeration ${id}` }),
  enumerationValueMissing: (value: string, id: number) =>
    new ApiError(404, { error: `Can't find a value '${value}' in enumeration ${id}` }),
  readOnlyEnumerationValue: () => new ApiError(400, { error: "Can't transfer from a read-only enumeration value" }),
  /** A search parameter (q, aq, filter, sort...) that cannot be understood, in the parameter-error shape. */
  badSearchParam: (param: string, message: string) => oneParam(param, message),
  /** …not of the form the parameter takes (`form` as the message shows it). */
  searchParamForm: (param: string, form: string, given: string) => oneParam(param, `Must be ${form} (got ${JSON.stringify(given)})`),
  searchParamTooLong: (param: string, max: number) => oneParam(param, `Must be ${max} characters or fewer`),
  querySyntax: (param: string, where: string, message: string) => oneParam(param, `Query syntax error${where}: ${message}`),
  regexUnsupported: (param: string, raw: string) => oneParam(param, `Regular expressions (/${raw}/) are not supported; use wildcards (* and ?) instead`),
  notADate: (param: string, value: unknown) => oneParam(param, `Not a date: ${JSON.stringify(value)} (expected YYYY, YYYY-MM or YYYY-MM-DD)`),
  unsortable: (field: string) => oneParam('sort', `Can't sort on ${field}: not a sortable field`),
  unknownResolver: (resolver: string) => oneParam('resolve', `Unknown resolver ${resolver}; the one available is compact_resource`),
  /** What the configured search adapter cannot express. */
  unsupportedBySearchAdapter: (what: string) =>
    new ApiError(400, { error: { q: [`${what} is not supported by the Typesense search index (SEARCH_ADAPTER=typesense); use the embedded index for it`] } }),
  /** An error of one item of a batch, naming the item it is about. */
  forItem: (err: ApiError, uri: string) => new ApiError(err.status, { ...err.body, uri }, err.trailingNewline, err.headers),
  /** POST /batch_delete with a record that could not be deleted: nothing was (each failure with its URI and answer). */
  batchDeleteFailed: (failures: unknown[]) => new ApiError(400, { error: { failures } }),
  jobRunning: () => new ApiError(409, { error: 'A running job cannot be deleted: cancel it first' }),
  /** A 4xx from Express or its body parsers, with their message. */
  fromHttpLayer: (status: number, message: string) => new ApiError(status, { error: message }),
  internal: () => new ApiError(500, { error: 'Internal server error' }),
  bodyTooLarge: (limit: number) =>
    new ApiError(413, { error: `Request body is larger than the limit of ${limit} bytes` }),
  urlTooLong: (limit: number) =>
    new ApiError(414, { error: `Request URL is longer than the limit of ${limit} characters` }),
  jsonTooDeep: (limit: number) => unparsableBody(`the JSON is nested more than ${limit} levels deep`),
  resolveTooDeep: (limit: number, path: string) => invalidParam('resolve', `must not be more than ${limit} levels deep but given: ${path}`),
  tooManyLoginAttempts: (retryAfterSeconds: number) =>
    new ApiError(
      429,
      { error: `Too many failed login attempts; try again in ${retryAfterSeconds} seconds` },
      true,
      { 'Retry-After': String(retryAfterSeconds) },
    ),
} as const;

export const PARAM_REQUIRED_MESSAGE = PARAM_REQUIRED;
