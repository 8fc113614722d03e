/**
 * Structured logs through pino: one JSON object per line, info on stdout, warnings and errors on
 * stderr, written synchronously so that nothing is lost when a process exits. Fields that could
 * carry a secret are redacted even if a caller passes one by mistake.
 */
import cluster from 'node:cluster';
import pino from 'pino';

type Fields = Record<string, unknown>;

const logger = pino(
  {
    // In a cluster (WORKERS above 1) each line says which server process wrote it.
    base: cluster.isWorker ? { pid: process.pid } : undefined,
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ['password', 'token', 'session', 'headers["x-archivesspace-session"]', 'headers["x-archive-session"]'], censor: '[redacted]' },
  },
  pino.multistream(
    [
      { level: 'info', stream: pino.destination({ dest: 1, sync: true }) },
      { level: 'warn', stream: pino.destination({ dest: 2, sync: true }) },
    ],
    { dedupe: true },
  ),
);

/** The last lines this process logged, for GET /system/log (request lines and secrets left out). */
const BACKLOG = 1000;
const backlog: string[] = [];
function remember(level: string, msg: string, fields?: Fields): void {
  if (msg === 'request') return;
  const { password: _p, token: _t, session: _s, ...rest } = fields ?? {};
  backlog.push(JSON.stringify({ level, time: new Date().toISOString(), msg, ...rest }));
  if (backlog.length > BACKLOG) backlog.shift();
}

export function recentLog(): string {
  return backlog.map((line) => `${line}\n`).join('');
}

export const log = {
  info: (msg: string, fields?: Fields) => { remember('info', msg, fields); logger.info(fields ?? {}, msg); },
  warn: (msg: string, fields?: Fields) => { remember('warn', msg, fields); logger.warn(fields ?? {}, msg); },
  error: (msg: string, fields?: Fields) => { remember('error', msg, fields); logger.error(fields ?? {}, msg); },
};
