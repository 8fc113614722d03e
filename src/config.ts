import os from 'node:os';
import path from 'node:path';
/** Environment → typed configuration, read in one place. */
export interface Config {
  port: number;
  /** Server processes on the port (node:cluster); 1 serves from this process alone. */
  workers: number;
  dbUrl: string;
  adminPassword: string;
  defaultPageSize: number;
  maxPageSize: number;
  sessionExpireAfterSeconds: number;
  sessionNonexpirableForceExpireAfterSeconds: number;
  bodyLimitBytes: number;
  /** Longest request target (path and query string) in characters; longer ones get 414. */
  maxUrlLength: number;
  /** Deepest nesting of arrays and objects accepted in a JSON body. */
  maxJsonDepth: number;
  /** Most `::` levels in one resolve[] entry. */
  maxResolveDepth: number;
  /** Failed logins per username, and per client address, allowed within the window before 429. */
  loginMaxFailures: number;
  loginFailureWindowSeconds: number;
  /** Express's `trust proxy`: which forwarding proxies may set the client address (X-Forwarded-For). */
  trustProxy: boolean | number | string;
  compatVersion: string;
  logRequests: boolean;
  /** OAI-PMH: the provider's base URL as harvesters reach it (the `request` element, Identify's baseURL). */
  oaiBaseUrl: string;
  /** OAI-PMH: records per ListRecords / ListIdentifiers page (oai_ead pages hold one finding aid). */
  oaiPageSize: number;
  /** How far the heap may grow past the live data before V8 collects, in percent (src/services.ts); 0 is V8's own choice. */
  heapGrowthPercent: number;
  /** Background jobs (imports): where uploaded files are kept, how many run at once, whether this process runs them. */
  jobs: {
    filesDir: string; concurrency: number; run: boolean; importMaxBytes: number; leaseMs: number;
    /** How long one chunk of a chunked import (EAD) holds the writer, in ms; 0: each file in one transaction. */
    importChunkMs: number;
    /** For the crash tests only: a pause after each chunk's commit, and one inside the publishing transaction (0: none). */
    importPauses: { betweenChunksMs: number; publishingMs: number };
  };
  search: SearchConfig;
  /** Revision history (docs/history.md): whether writes keep versions, how many and how long, how often pruning runs. */
  history: { keep: boolean; keepVersions: number; keepDays: number; pruneSeconds: number };
  webhooks: WebhookConfig;
}

/** Webhook deliveries (docs/webhooks.md). */
export interface WebhookConfig {
  /** Whether this process delivers (WEBHOOKS=off: another process does, or none). */
  run: boolean;
  /** How long one POST may take before it counts as failed. */
  timeoutMs: number;
  /** The wait after a first failed attempt; each further failure doubles it, up to retryMaxDelayMs. */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** How long an event is retried before its subscription is marked failing (its events then wait). */
  retryForMs: number;
  /** How long a process's hold on a subscription lasts unrenewed (another process takes it after a crash). */
  leaseMs: number;
  /** How often subscriptions are looked at for new changes when no commit of this process woke them. */
  pollMs: number;
  /** Deliveries of one subscription in flight at once (never two of one record). */
  concurrency: number;
  /** Deliveries kept per subscription for GET …/deliveries. */
  deliveriesKept: number;
}

export interface SearchConfig {
  adapter: 'embedded' | 'typesense';
  /** The embedded index's SQLite file; by default the SQLite store's own file (a separate file beside it for MySQL). */
  path: string;
  /** Run the indexer inside the app process (default); off when a separate `archive-records indexer` process does it. */
  inProcessIndexer: boolean;
  typesenseUrl?: string;
  typesenseApiKey?: string;
  typesenseCollection: string;
  /** Change-log entries applied per index transaction. */
  indexerBatchSize: number;
  /** A pause between batches, to lighten the load a long reindex puts on the store. */
  indexerPauseMs: number;
  /** How long a hole in the change log's numbering may be a write still committing before the index's checkpoint passes it. */
  indexerGapWaitMs: number;
  /**
   * The embedded index thread's young generation (V8), in MB. Small while serving: it is memory
   * the process keeps resident (V8's default of 48 MB for a thread that mostly answers searches);
   * `reindex` and `indexer --rebuild` raise it, a rebuild allocates fast and a small one slows it by half.
   */
  indexThreadYoungMb: number;
}

/**
 * The embedded index sits beside a SQLite store (archive.db → archive.search.db), not inside it:
 * the index is written from its own thread, and two writers on one SQLite file wait on each other.
 */
function searchPathFor(dbUrl: string): string {
  if (dbUrl.startsWith('sqlite://')) {
    const file = dbUrl.slice('sqlite://'.length);
    if (file === ':memory:') return file;
    return file.replace(/(\.[^./]+)?$/, '.search$1');
  }
  return './data/search.db';
}

/** Uploaded job files beside a SQLite store (`archive.db` → `archive.jobs/`); a temporary folder for an in-memory one. */
function jobFilesDirFor(dbUrl: string): string {
  if (dbUrl.startsWith('sqlite://')) {
    const file = dbUrl.slice('sqlite://'.length);
    if (file === ':memory:') return path.join(os.tmpdir(), `archive-jobs-${process.pid}-${Date.now()}`);
    return file.replace(/(\.[^./]+)?$/, '.jobs');
  }
  return './data/jobs';
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got '${raw}'`);
  return n;
}

/** Deeper levels would be cut off by resolveLinks; a request for them is refused instead. */
export const RESOLVE_DEPTH_CEILING = 25;

function trustProxyFrom(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

function positiveIntFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = intFrom(env, name, fallback);
  if (n < 1 || n > max) throw new Error(`${name} must be between 1 and ${max}, got ${n}`);
  return n;
}

function nonNegativeIntFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const n = intFrom(env, name, fallback);
  if (n < 0 || n > max) throw new Error(`${name} must be between 0 and ${max}, got ${n}`);
  return n;
}

const DEFAULT_DB_URL = 'sqlite://./data/archive.db';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const defaultPageSize = intFrom(env, 'DEFAULT_PAGE_SIZE', 10);
  const maxPageSize = intFrom(env, 'MAX_PAGE_SIZE', 250);
  if (defaultPageSize < 1 || maxPageSize < defaultPageSize) {
    throw new Error('DEFAULT_PAGE_SIZE must be at least 1 and not above MAX_PAGE_SIZE');
  }
  return {
    port: intFrom(env, 'PORT', 8089),
    workers: positiveIntFrom(env, 'WORKERS', os.availableParallelism()),
    heapGrowthPercent: nonNegativeIntFrom(env, 'HEAP_GROWTH_PERCENT', 30, 1000),
    dbUrl: env.DB_URL || DEFAULT_DB_URL,
    adminPassword: env.ADMIN_PASSWORD || 'admin',
    defaultPageSize,
    maxPageSize,
    sessionExpireAfterSeconds: intFrom(env, 'SESSION_EXPIRE_AFTER_SECONDS', 3600),
    sessionNonexpirableForceExpireAfterSeconds: intFrom(env, 'SESSION_NONEXPIRABLE_FORCE_EXPIRE_AFTER_SECONDS', 604800),
    bodyLimitBytes: positiveIntFrom(env, 'BODY_LIMIT_BYTES', 10 * 1024 * 1024),
    maxUrlLength: positiveIntFrom(env, 'MAX_URL_LENGTH', 8192),
    maxJsonDepth: positiveIntFrom(env, 'MAX_JSON_DEPTH', 100),
    maxResolveDepth: positiveIntFrom(env, 'MAX_RESOLVE_DEPTH', 10, RESOLVE_DEPTH_CEILING),
    loginMaxFailures: positiveIntFrom(env, 'LOGIN_MAX_FAILURES', 10),
    loginFailureWindowSeconds: positiveIntFrom(env, 'LOGIN_FAILURE_WINDOW_SECONDS', 60),
    trustProxy: trustProxyFrom(env.TRUST_PROXY),
    compatVersion: env.ARCHIVESSPACE_VERSION || 'v3.5.1',
    logRequests: env.LOG_REQUESTS !== 'false',
    oaiBaseUrl: env.OAI_BASE_URL || `http://localhost:${intFrom(env, 'PORT', 8089)}/oai`,
    oaiPageSize: positiveIntFrom(env, 'OAI_PAGE_SIZE', 100),
    jobs: {
      filesDir: env.JOB_FILES_DIR || jobFilesDirFor(env.DB_URL || DEFAULT_DB_URL),
      concurrency: positiveIntFrom(env, 'JOB_CONCURRENCY', 1),
      run: env.JOBS !== 'off',
      importMaxBytes: positiveIntFrom(env, 'IMPORT_MAX_BYTES', 200 * 1024 * 1024),
      // How long a running job's process may go silent before the job counts as dead (renewed every 0.5 s).
      leaseMs: positiveIntFrom(env, 'JOB_LEASE_SECONDS', 30) * 1000,
      // Other clients' writes wait at most this long for an import's chunk (plus its publishing).
      importChunkMs: nonNegativeIntFrom(env, 'IMPORT_CHUNK_MS', 200, 3_600_000),
      importPauses: {
        betweenChunksMs: nonNegativeIntFrom(env, 'IMPORT_PAUSE_BETWEEN_CHUNKS_MS', 0, 600_000),
        publishingMs: nonNegativeIntFrom(env, 'IMPORT_PAUSE_PUBLISHING_MS', 0, 600_000),
      },
    },
    history: {
      keep: env.HISTORY !== 'off',
      keepVersions: nonNegativeIntFrom(env, 'HISTORY_KEEP_VERSIONS', 0, Number.MAX_SAFE_INTEGER),
      keepDays: nonNegativeIntFrom(env, 'HISTORY_KEEP_DAYS', 0, Number.MAX_SAFE_INTEGER),
      pruneSeconds: positiveIntFrom(env, 'HISTORY_PRUNE_SECONDS', 3600),
    },
    search: {
      adapter: env.SEARCH_ADAPTER === 'typesense' ? 'typesense' : 'embedded',
      path: env.SEARCH_PATH || searchPathFor(env.DB_URL || DEFAULT_DB_URL),
      inProcessIndexer: env.INDEXER !== 'off',
      typesenseUrl: env.TYPESENSE_URL || undefined,
      typesenseApiKey: env.TYPESENSE_API_KEY || undefined,
      typesenseCollection: env.TYPESENSE_COLLECTION || 'archive_records',
      indexerBatchSize: intFrom(env, 'INDEXER_BATCH_SIZE', 500),
      indexerPauseMs: intFrom(env, 'INDEXER_PAUSE_MS', 0),
      indexerGapWaitMs: positiveIntFrom(env, 'INDEXER_GAP_WAIT_MS', 30_000),
      indexThreadYoungMb: positiveIntFrom(env, 'INDEX_THREAD_YOUNG_MB', 8, 1024),
    },
    webhooks: {
      run: env.WEBHOOKS !== 'off',
      timeoutMs: positiveIntFrom(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
      retryBaseMs: positiveIntFrom(env, 'WEBHOOK_RETRY_BASE_MS', 1_000),
      retryMaxDelayMs: positiveIntFrom(env, 'WEBHOOK_RETRY_MAX_DELAY_SECONDS', 3_600) * 1000,
      retryForMs: positiveIntFrom(env, 'WEBHOOK_RETRY_FOR_SECONDS', 86_400) * 1000,
      leaseMs: positiveIntFrom(env, 'WEBHOOK_LEASE_SECONDS', 30) * 1000,
      pollMs: positiveIntFrom(env, 'WEBHOOK_POLL_MS', 1_000),
      concurrency: positiveIntFrom(env, 'WEBHOOK_CONCURRENCY', 8, 256),
      deliveriesKept: positiveIntFrom(env, 'WEBHOOK_DELIVERIES_KEPT', 1_000),
    },
  };
}
