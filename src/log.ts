/**
 * Structured logs through pino: one JSON object per line, info on stdout, warnings and errors on
 * stderr, written synchronously so that nothing is lost when a process exits. Fields that could
 * carry a secret are redacted even if a caller passes one by mistake.
 */
import pino from 'pino';

type Fields = Record<string, unknown>;

const logger = pino(
  {
    base: undefined,
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

export const log = {
  info: (msg: string, fields?: Fields) => logger.info(fields ?? {}, msg),
  warn: (msg: string, fields?: Fields) => logger.warn(fields ?? {}, msg),
  error: (msg: string, fields?: Fields) => logger.error(fields ?? {}, msg),
};
