import busboy from 'busboy';
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response } from 'express';
import qs from 'qs';
import { can, maySeeSuppressed, NOTHING_WITHHELD, withheldFrom } from '../access/permissions';
import { accessCacheFor, type AccessView } from '../access/cache';
import { servedEndpoints } from '../openapi';
import type { Call, Endpoint, Reply } from '../records/endpoint';
import { ApiError, errors } from '../errors';
import type { Actor, Services } from '../records/context';
import { preferredFieldDefaults } from '../domain/users/record-defaults';
import { requireRepository } from '../records/repositories';
import { prepareRecord } from '../validation';
import { log } from '../log';
import { checkResolveDepth, checkUrlLength, jsonNestedDeeperThan } from './limits';
import { parseParams, parsePaging } from './params';
import { securityHeaders } from './security';
import { routeGroups } from './routes';
import { isStoreBusy, isStoreUnreachable } from '../store/connect';
import { ReadScope } from '../store/freshness';

/** The session header, under every name clients use (the spec's, ArchivesSpace's, and the CGI form). */
const SESSION_HEADERS = ['x-archive-session', 'x-archivesspace-session', 'x_archivesspace_session'];

interface Locals {
  actor: Actor | null;
  token?: string;
  /** Session, grants and repositories as this process keeps them, read once per request with a session. */
  access?: AccessView;
}

/** A request as the stages see it: node:http's own, not Express's (createApp says why), with the body once read (a Buffer). */
export interface ApiRequest extends IncomingMessage {
  body?: unknown;
}

/** node:http's response, with what the stages keep of the request. */
export interface ApiResponse extends ServerResponse<ApiRequest> {
  locals: Locals;
}

/** The request target: its path (as Express's `req.path` reads it), its query string parsed (as its `req.query` did, with the same limits), the answering row's path parameters. */
interface Target {
  path: string;
  query: Record<string, unknown>;
  params: Record<string, string>;
}

/**
 * The path and the query string of a request target, an absolute-form one too (`GET
 * http://host/path`, as sent to a proxy); runs of slashes in the path are one, as Rack
 * (ArchivesSpace's server) reads them: `/repositories/6//search` is `/repositories/6/search`.
 */
function splitTarget(url: string): { path: string; queryText: string } {
  let path = url;
  let queryText = '';
  if (url.startsWith('/')) {
    const q = url.indexOf('?');
    if (q >= 0) [path, queryText] = [url.slice(0, q), url.slice(q + 1)];
  } else {
    try {
      const parsed = new URL(url);
      [path, queryText] = [parsed.pathname, parsed.search.slice(1)];
    } catch {
      // Not a URL: no row's path matches it (404).
    }
  }
  return { path: path.includes('//') ? path.replace(/\/{2,}/g, '/') : path, queryText };
}

/** A query string or a form body: arrays and nesting as Rack reads them, within bounds. */
const parseForm = (text: string) => qs.parse(text, { arrayLimit: 1000, parameterLimit: 10000, depth: 3 });

function targetOf(url: string): Target {
  const { path, queryText } = splitTarget(url);
  return { path, query: queryText ? parseForm(queryText) : {}, params: {} };
}

/**
 * Express's request and response, for the paths that use its helpers (text and streamed
 * answers, errors, extra headers, the client's address behind proxies): the objects get
 * Express's prototypes on the first such use. JSON answers never need them.
 */
type Expressive = (req: ApiRequest, res: ApiResponse) => { req: Request; res: Response };

/** Reads a request's body into `req.body` (express.raw), then calls `next`. */
type BodyReader = (req: ApiRequest, res: ApiResponse, next: (err?: unknown) => void) => void;

function sessionToken(req: ApiRequest): string | undefined {
  for (const name of SESSION_HEADERS) {
    const value = req.headers[name];
    if (value !== undefined) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const NEWLINE = Buffer.from('\n');

/** Raised into a streaming body's writer when the client went away, so the producer stops. */
class ClientGone extends Error {}

async function sendStream(res: Response, reply: Reply): Promise<void> {
  res.type(reply.contentType ?? 'application/octet-stream');
  const write = async (chunk: string | Buffer): Promise<void> => {
    if (res.destroyed) throw new ClientGone('the client closed the connection');
    if (!res.write(chunk)) await new Promise<void>((resolve) => {
      const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
      res.on('drain', done).on('close', done);
    });
  };
  try {
    await reply.stream!(write);
    res.end();
  } catch (err) {
    // Once the status line is out, an error can only cut the answer short: the client sees a broken transfer.
    if (!res.headersSent) throw err;
    if (!(err instanceof ClientGone)) log.error('streamed answer failed part-way', { error: err instanceof Error ? err.stack : String(err) });
    res.destroy();
  }
}

async function send(req: ApiRequest, res: ApiResponse, reply: Reply, expressive: Expressive): Promise<void> {
  // Replies' statuses come from the endpoint table and the error table, all valid codes.
  res.statusCode = reply.status ?? 200;
  if (reply.headers) expressive(req, res).res.set(reply.headers);
  if (reply.stream) {
    await sendStream(expressive(req, res).res, reply);
  } else if (reply.text !== undefined) {
    expressive(req, res).res.type(reply.contentType ?? 'text/plain').send(reply.text);
  } else {
    // JSON goes out as it is (stored records are served as stored): no charset parsing or
    // re-encoding by res.send. Text is written as text: node:http encodes it into the socket,
    // where a Buffer made of it first would be memory outside the JavaScript heap, which V8
    // frees only once tens of megabytes of it have piled up (a listing of 500 KB per request).
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    const json = reply.json!;
    if (typeof json !== 'string') {
      const body = Buffer.concat([json, NEWLINE]);
      res.setHeader('Content-Length', body.length);
      res.end(body);
      return;
    }
    // The text is written as it is, then its newline, headers first: with the newline appended,
    // the text was copied into a new string (node:http measures what end() is given), and that
    // copied again with the headers put in front (an allocation profile of GET one; a listing
    // page is half a megabyte). Corked, the three leave in one write. node:http sends no body
    // to a HEAD request by itself, and keeps the length.
    res.setHeader('Content-Length', Buffer.byteLength(json) + 1);
    res.cork();
    res.flushHeaders();
    res.write(json);
    res.end('\n');
  }
}

function sendError(res: Response, err: ApiError): void {
  res.set(err.headers);
  res.status(err.status).type('application/json').send(JSON.stringify(err.body) + (err.trailingNewline ? '\n' : ''));
}

function formFields(req: ApiRequest): Record<string, unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') || !Buffer.isBuffer(req.body) || !req.body.length) return {};
  return parseForm(req.body.toString('utf8'));
}

/** Parameters sent as a JSON object body (search routes accept text/json and application/json). */
function jsonFields(req: ApiRequest, maxDepth: number): Record<string, unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!/^(text|application)\/json/.test(type) || !Buffer.isBuffer(req.body) || !req.body.length) return {};
  const body = parseJsonBody(req, maxDepth);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.expectedBody('a JSON object of parameters');
  // Nested JSON parameters (aq, filter) travel as objects here; the routes read them as JSON text.
  const asParam = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(asParam);
    if (typeof v === 'object' && v !== null) return JSON.stringify(v);
    return typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
  };
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, asParam(v)]));
}

function parseJsonBody(req: ApiRequest, maxDepth: number): unknown {
  const text = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (jsonNestedDeeperThan(text, maxDepth)) throw errors.jsonTooDeep(maxDepth);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw text.trim() ? errors.unparsableBody((err as Error).message) : errors.emptyBody();
  }
}

/** A multipart/form-data body (already read): its fields, and its files as buffers. */
function parseMultipart(req: ApiRequest): Promise<NonNullable<Call['form']>> {
  const type = String(req.headers['content-type'] ?? '');
  if (!type.startsWith('multipart/form-data')) throw errors.expectedBody('a multipart/form-data body (a job field and files[])');
  return new Promise((resolve, reject) => {
    const form: NonNullable<Call['form']> = { fields: {}, files: [] };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fieldSize: 10 * 1024 * 1024 } });
    } catch (err) {
      throw errors.unparsableBody((err as Error).message);
    }
    parser.on('field', (name, value) => { form.fields[name] = value; });
    parser.on('file', (_name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      // A file of one chunk (the body arrives whole) is a view of the body, not a copy of megabytes.
      stream.on('end', () => form.files.push({ filename: info.filename || 'upload', data: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }));
    });
    parser.on('error', (err) => reject(errors.unparsableBody((err as Error).message)));
    parser.on('close', () => resolve(form));
    parser.end(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
  });
}

/** The path's repository id, parsed here and checked to exist by the operations layer. */
function repositoryId(s: Services, raw: unknown, access?: AccessView): Promise<number> {
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw errors.repositoryMissing();
  return existingRepository(s, Number(raw), access);
}

/** A repository the request names: from what the request's access view keeps, else from the store. */
async function existingRepository(s: Services, id: number, access?: AccessView): Promise<number> {
  if (!access) return requireRepository(s, id);
  if (!(await access.repositoryExists(id))) throw errors.repositoryMissing();
  return id;
}

/**
 * One handler serves every row of the endpoint table, in the reference's order of checks:
 * session (412, before routing) → parameters and body (400) → permission (403) → operation.
 */
function handlerFor(endpoint: Endpoint, expressive: Expressive) {
  const repositoryInPath = endpoint.path.includes(':repo_id');
  // `s`: the request's own view of the services (its read scope and write source).
  return async (req: ApiRequest, res: ApiResponse, s: Services, target: Target) => {
    const locals = res.locals;
    const { params } = target;
    if (endpoint.contentSecurityPolicy) res.setHeader('Content-Security-Policy', endpoint.contentSecurityPolicy);
    const bodyParams = endpoint.jsonParams ? jsonFields(req, s.config.maxJsonDepth) : {};
    const source: Record<string, unknown> = { ...formFields(req), ...bodyParams, ...target.query, ...params };
    const call: Call = {
      s, actor: locals.actor, token: locals.token, params: {}, maySeeSuppressed: false, withheld: NOTHING_WITHHELD, rawParams: source,
      // Worked out (proxy headers, TRUST_PROXY) only by the routes that read it.
      get client() { return expressive(req, res).req.ip; },
    };
    if (repositoryInPath) call.repoId = await repositoryId(s, params.repo_id, locals.access);
    call.params = parseParams(endpoint.params ?? [], source);
    // A repository named by a repo_id parameter (merge requests, memberships) is checked as a path's is.
    if (call.repoId === undefined && typeof call.params.repo_id === 'number') call.repoId = await existingRepository(s, call.params.repo_id, locals.access);
    checkResolveDepth(s.config, call.params.resolve);
    if (endpoint.paginated) call.paging = parsePaging(s.config, source);
    checkResolveDepth(s.config, call.paging?.resolve);
    if (endpoint.body) await s.enums.ensureFresh(s.db);
    if (endpoint.body) {
      const load = () => preferredFieldDefaults(s, call.repoId, call.actor?.username);
      const preferred = { ...(await (locals.access ? locals.access.kept(`preferred:${call.repoId}:${call.actor?.username}`, load) : load())) };
      call.body = prepareRecord(s.registry, s.enums, endpoint.body, parseJsonBody(req, s.config.maxJsonDepth), preferred);
    }
    if (endpoint.rawJsonBody) call.rawBody = parseJsonBody(req, s.config.maxJsonDepth);
    if (endpoint.multipart) call.form = await parseMultipart(req);
    if (endpoint.permission !== null && !(await can(s, call.actor, endpoint.permission, call.repoId))) {
      throw errors.accessDenied();
    }
    call.maySeeSuppressed = await maySeeSuppressed(s, call.actor, call.repoId);
    call.withheld = await withheldFrom(s, call.actor);
    // The source is for the versions history keeps: with HISTORY=off a write pays nothing for it.
    if (req.method !== 'GET' && s.config.history.keep) s.writeSource = { by: call.actor?.username, via: `${req.method} ${target.path}` };
    await send(req, res, await endpoint.handle(call), expressive);
  };
}

/** Whether the request sent a body to read (a declared length of 0 is none: nothing to wait for). */
function hasBody(req: ApiRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Stage: the request's id (a caller's or proxy's kept when it looks like one, so logs line up across hops) and its log line. */
function tagRequest(s: Services, req: ApiRequest, res: ApiResponse): void {
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && /^[\w.:-]{1,100}$/.test(given) ? given : crypto.randomUUID();
  res.setHeader('X-Request-Id', requestId);
  if (!s.config.logRequests) return;
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    log.info('request', {
      request_id: requestId,
      method: req.method,
      path: splitTarget(req.url ?? '/').path,
      status: res.statusCode,
      ms: Number(process.hrtime.bigint() - started) / 1e6,
      user: res.locals.actor?.username,
    });
  });
}

/** Stage: the caller's session (412 when it is unknown or expired), with this process's kept access view. */
async function openSession(s: Services, req: ApiRequest, res: ApiResponse): Promise<void> {
  const locals = res.locals;
  const token = sessionToken(req);
  if (token === undefined) return;
  const access = await accessCacheFor(s.db).sync(s.db, s.readScope);
  const session = await access.session(s.config, token);
  locals.token = token;
  locals.actor = { username: session.username, access };
  locals.access = access;
}

/** `endpoints` defaults to the endpoint table; tests pass extra rows. */
export function createApp(s: Services, endpoints: Endpoint[] = servedEndpoints(s.registry)): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', s.config.trustProxy);

  const expressive: Expressive = (req, res) => {
    if (Object.getPrototypeOf(res) !== app.response) {
      (req as unknown as { res: ApiResponse }).res = res;
      Object.setPrototypeOf(req, app.request);
      Object.setPrototypeOf(res, app.response);
    }
    return { req: req as unknown as Request, res: res as unknown as Response };
  };

  // Uploads (multipart rows) may be as large as IMPORT_MAX_BYTES allows; every other body BODY_LIMIT_BYTES.
  const readBody = express.raw({ type: () => true, limit: s.config.bodyLimitBytes }) as unknown as BodyReader;
  const readUpload = express.raw({ type: () => true, limit: s.config.jobs.importMaxBytes + 1024 * 1024 }) as unknown as BodyReader;
  const findRoute = routeGroups(endpoints.map((endpoint) => ({
    method: endpoint.method, path: endpoint.path, handler: handlerFor(endpoint, expressive), readBody: endpoint.multipart ? readUpload : readBody,
  })));

  /** Every error ends here: the error table's answer, else a 500 that the log explains. */
  const fail = (err: unknown, req: ApiRequest, res: ApiResponse): void => {
    if (res.headersSent) {
      log.error('request failed after its answer started', { error: err instanceof Error ? err.stack : String(err) });
      res.destroy();
      return;
    }
    const answer = (e: ApiError) => sendError(expressive(req, res).res, e);
    if (err instanceof ApiError) return answer(err);
    if (isStoreBusy(err)) return answer(errors.storeBusy());
    if (isStoreUnreachable(err)) return answer(errors.storeUnreachable());
    const e = err as { type?: string; status?: number };
    if (e?.type === 'entity.too.large') return answer(errors.bodyTooLarge(s.config.bodyLimitBytes));
    if (e?.status && e.status >= 400 && e.status < 500) {
      return answer(errors.fromHttpLayer(e.status, (err as Error).message));
    }
    log.error('unhandled error', { error: err instanceof Error ? err.stack : String(err) });
    answer(errors.internal());
  };

  // The stages of every request, in order: request id, headers, URL length, session, routing,
  // the body (only where one was sent, up to the row's limit), the row's handler.
  const stages = async (req: ApiRequest, res: ApiResponse): Promise<void> => {
    // One read of the store's freshness serves every kept value the request uses (ReadScope).
    const rs: Services = { ...s, readScope: new ReadScope() };
    tagRequest(s, req, res);
    securityHeaders(res);
    checkUrlLength(s.config, req);
    await openSession(rs, req, res);
    const target = targetOf(req.url ?? '/');
    const found = findRoute(req.method ?? 'GET', target.path);
    if (!found) throw errors.routeNotFound();
    target.params = found.params;
    if (hasBody(req)) {
      await new Promise<void>((resolve, reject) => found.route.readBody(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
    }
    await found.route.handler(req, res, rs, target);
  };

  // Express hands each request to its router, a walk of layers in front of the stages above,
  // which route themselves; and it gives the request and response its own prototypes (req.query,
  // res.status and the rest). Both are skipped: the request goes to the stages as node:http made
  // it, and gets Express's prototypes only where an answer uses its helpers (expressive). A CPU
  // profile of GET one record under load put the router's walk at about a twelfth of the
  // server's time; changing the two objects' prototypes cost about a quarter of a GET's CPU
  // (docs/performance.md), the objects' later property reads in node:http included.
  (app as unknown as { handle: (req: ApiRequest, res: ApiResponse) => void }).handle = (req, res) => {
    res.locals = { actor: null };
    stages(req, res).catch((err: unknown) => fail(err, req, res));
  };
  return app;
}
