import type { Obj } from '../json';
import type { Actor, Services } from './context';
import type { Prepared } from '../validation';
import type { ErrorKind } from '../errors';

export type ParamType = 'integer' | 'string' | 'boolean' | 'string[]' | 'integer[]';

export interface ParamSpec {
  name: string;
  type: ParamType;
  required?: boolean;
  default?: unknown;
  /** Extra check after coercion; returns the rule text for "Failed validation -- <text>". */
  /** Takes the value as its parameter's type gives it (a number, a string, a list...). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  check?: (value: any) => string | undefined;
}

export interface Paging {
  mode: 'page' | 'id_set' | 'all_ids';
  page: number;
  pageSize: number;
  ids: number[];
  modifiedSince: number;
  sortField?: string;
  sortDirection: 'asc' | 'desc';
  resolve: string[];
}

export interface Call {
  s: Services;
  actor: Actor | null;
  token?: string;
  /** The client's address: the socket's, or the forwarded one from a proxy trusted by TRUST_PROXY. */
  client?: string;
  params: Obj;
  /** The path's repository, checked to exist, for /repositories/:repo_id/... routes. */
  repoId?: number;
  /** The JSON body, cleaned and validated as the endpoint's record type. */
  body?: Prepared;
  /** The fields and files of a multipart body (endpoints with `multipart`). */
  form?: { fields: Record<string, string>; files: Array<{ filename: string; data: Buffer }> };
  /** The parsed JSON body of endpoints whose body is not a record (rawJsonBody). */
  rawBody?: unknown;
  paging?: Paging;
  /** The caller may see suppressed records (index_system), decided with the permission check. */
  maySeeSuppressed: boolean;
  /** The guarding permissions the caller lacks: the guarded properties its reads withhold and its writes cannot set (records/guarded.ts). */
  withheld: ReadonlySet<string>;
  /**
   * Every parameter as sent (form fields, query string, path), before the declared ones are
   * checked: for protocols that answer bad parameters in their own way (OAI-PMH).
   */
  rawParams?: Record<string, unknown>;
}

export interface Reply {
  status?: number;
  /** JSON text, or its UTF-8 bytes, as it goes out (a newline is added). */
  json?: string | Buffer;
  text?: string;
  /**
   * A body written as it is produced (exports): the function gets a sink that resolves once the
   * chunk is on its way (waiting for the socket to drain), so a large answer stays out of memory.
   */
  stream?: (write: (chunk: string | Buffer) => Promise<void>) => Promise<void>;
  contentType?: string;
  headers?: Record<string, string>;
}

/** One row of the declarative endpoint table. */
export interface Endpoint {
  method: 'get' | 'post' | 'delete';
  /** Express path; `:repo_id` names a repository that must exist. */
  path: string;
  params?: ParamSpec[];
  /** A listing that needs page, id_set or all_ids. */
  paginated?: boolean;
  /** The record type of the JSON body. */
  body?: string;
  /** The body is JSON but not a record: parsed, not validated against a schema. */
  rawJsonBody?: boolean;
  /** The body is multipart/form-data with files (up to IMPORT_MAX_BYTES): call.form. */
  multipart?: boolean;
  /** Parameters may also come as a JSON object body (the search routes' POST form). */
  jsonParams?: boolean;
  /** Media type of a successful answer when it is not JSON (described in the OpenAPI document). */
  produces?: string;
  /** Replaces the default Content-Security-Policy (default-src 'none') for a route that serves a page. */
  contentSecurityPolicy?: string;
  /** Permission code the caller must hold; null: anyone, logged in or not. */
  permission: string | null;
  /**
   * Error answers the operation itself can give (NotFound for an unknown id, Conflict for a stale
   * lock_version...). Those the row's other declarations imply are added by answeredErrors.
   */
  errors?: ErrorKind[];
  summary: string;
  handle(call: Call): Promise<Reply>;
}

export const json = (value: unknown, status?: number): Reply => ({ status, json: JSON.stringify(value) });
export const rawJson = (text: string | Buffer): Reply => ({ json: text });

/**
 * Every error kind a row answers: what its declaration implies (a session header is always read:
 * 412; the store may stay busy: 503; parameters, a body or a repository in the path: 400; a permission: 403; a body: 413) and
 * the kinds it declares. The OpenAPI document and the fuzz test read this, nothing else.
 */
export function answeredErrors(e: Endpoint): ErrorKind[] {
  const kinds = new Set<ErrorKind>(e.errors);
  kinds.add('SessionGone');
  // Any row may find the store busy past DB_WAIT_SECONDS.
  kinds.add('StoreBusy');
  if (e.params?.length || e.body || e.rawJsonBody || e.jsonParams || e.multipart || e.paginated || e.path.includes(':repo_id')) kinds.add('BadRequest');
  if (e.permission !== null) kinds.add('AccessDenied');
  if (e.body || e.rawJsonBody || e.jsonParams || e.multipart) kinds.add('TooLarge');
  return [...kinds];
}
