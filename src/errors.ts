/**
 * The one catalogue of error answers. Every layer throws ApiError; the HTTP layer writes
 * status and body as they are. Shapes and texts follow the reference (errors.md).
 */
export type ErrorMap = Record<string, string[]>;

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

export const errors = {
  notFound: (model: string) => new ApiError(404, { error: `${model} not found` }),
  userNotFound: () => new ApiError(404, { error: "User wasn't found" }),
  notFoundException: () => new ApiError(404, { error: 'NotFoundException' }),
  routeNotFound: () => new ApiError(404, { error: 'Sinatra::NotFound' }),
  accessDenied: () => new ApiError(403, { error: 'Access denied' }),
  loginFailed: () => new ApiError(403, { error: 'Login failed' }),
  invalidUsername: () => new ApiError(400, { error: 'Invalid username' }),
  sessionGone: (token: string) =>
    new ApiError(412, { code: 'SESSION_GONE', error: `No session found for ${token}` }, false),
  sessionExpired: (token: string) =>
    new ApiError(412, { code: 'SESSION_EXPIRED', error: `Session timed out for ${token}` }, false),
  unparsableBody: (detail: string) =>
    new ApiError(400, { error: `Had some trouble parsing your request: ${detail}` }),
  /** Parameter problems: one object, one key per parameter. */
  params: (map: ErrorMap) => new ApiError(400, { error: map }),
  paramRequired: (...names: string[]) =>
    new ApiError(400, { error: Object.fromEntries(names.map((n) => [n, [PARAM_REQUIRED]])) }),
  repositoryMissing: () =>
    new ApiError(400, { error: { repo_id: ['Failed validation -- The Repository must exist'] } }),
  /** Schema validation failure of a JSON body. */
  validation: (error: ErrorMap, warning: ErrorMap, type: string, record: unknown) =>
    new ApiError(400, {
      error,
      warning,
      invalid_object: `#<JSONModel(:${type}) ${JSON.stringify(record)}>`,
    }),
  /** Model-level failures found when saving (uniqueness and the like). */
  conflictOnSave: (error: ErrorMap) => new ApiError(400, { error }),
  globalRepositoryRecord: () =>
    new ApiError(400, { error: 'The global repository cannot contain archival records' }),
  staleLockVersion: () =>
    new ApiError(409, { error: 'The record you tried to update has been modified since you fetched it.' }),
  missingLockVersion: () =>
    new ApiError(409, { error: 'You must provide a lock_version in your request' }),
  /** A type whose schema refuses deleting a record others still link to (x-archive.refuseDeleteIfLinked). */
  deleteRefusedWhileLinked: (message: string) => new ApiError(409, { error: message }),
  suppressedUpdate: () => new ApiError(409, { error: "Can't update an object that has been suppressed" }),
  bodyTooLarge: (limit: number) =>
    new ApiError(413, { error: `Request body is larger than the limit of ${limit} bytes` }),
  urlTooLong: (limit: number) =>
    new ApiError(414, { error: `Request URL is longer than the limit of ${limit} characters` }),
  jsonTooDeep: (limit: number) =>
    new ApiError(400, { error: `Had some trouble parsing your request: the JSON is nested more than ${limit} levels deep` }),
  resolveTooDeep: (limit: number, path: string) =>
    new ApiError(400, { error: { resolve: [`Failed validation -- must not be more than ${limit} levels deep but given: ${path}`] } }),
  tooManyLoginAttempts: (retryAfterSeconds: number) =>
    new ApiError(
      429,
      { error: `Too many failed login attempts; try again in ${retryAfterSeconds} seconds` },
      true,
      { 'Retry-After': String(retryAfterSeconds) },
    ),
} as const;

export const PARAM_REQUIRED_MESSAGE = PARAM_REQUIRED;
