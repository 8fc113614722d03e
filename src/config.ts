/** Environment → typed configuration, read in one place. */
export interface Config {
  port: number;
  dbUrl: string;
  adminPassword: string;
  defaultPageSize: number;
  maxPageSize: number;
  sessionExpireAfterSeconds: number;
  sessionNonexpirableForceExpireAfterSeconds: number;
  bodyLimitBytes: number;
  compatVersion: string;
  logRequests: boolean;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got '${raw}'`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const defaultPageSize = intFrom(env, 'DEFAULT_PAGE_SIZE', 10);
  const maxPageSize = intFrom(env, 'MAX_PAGE_SIZE', 250);
  if (defaultPageSize < 1 || maxPageSize < defaultPageSize) {
    throw new Error('DEFAULT_PAGE_SIZE must be at least 1 and not above MAX_PAGE_SIZE');
  }
  return {
    port: intFrom(env, 'PORT', 8089),
    dbUrl: env.DB_URL || 'sqlite://./data/archive.db',
    adminPassword: env.ADMIN_PASSWORD || 'admin',
    defaultPageSize,
    maxPageSize,
    sessionExpireAfterSeconds: intFrom(env, 'SESSION_EXPIRE_AFTER_SECONDS', 3600),
    sessionNonexpirableForceExpireAfterSeconds: intFrom(env, 'SESSION_NONEXPIRABLE_FORCE_EXPIRE_AFTER_SECONDS', 604800),
    bodyLimitBytes: intFrom(env, 'BODY_LIMIT_BYTES', 10 * 1024 * 1024),
    compatVersion: env.ARCHIVESSPACE_VERSION || 'v3.5.1',
    logRequests: env.LOG_REQUESTS !== 'false',
  };
}
