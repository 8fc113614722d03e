import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config';
import { errors } from '../errors';

/**
 * Refuses over-long request targets before the session is looked up or the body read: a URL
 * is bounded by Node's header limit (16 KB) anyway, and below that this answers in JSON.
 */
export function checkUrlLength(config: Config, req: http.IncomingMessage): void {
  if ((req.url ?? '').length > config.maxUrlLength) throw errors.urlTooLong(config.maxUrlLength);
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`, found by one scan before
 * parsing: V8 parses any depth, but every recursive step after it (clean-up, validation,
 * the error's invalid_object text) would overflow the stack on a body of `[[[[…`.
 */
export function jsonNestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** resolve[] entries nest with `::`; deeper than the limit is refused, not silently cut short. */
export function checkResolveDepth(config: Config, entries: unknown): void {
  if (!Array.isArray(entries)) return;
  for (const entry of entries) {
    if (typeof entry === 'string' && entry.split('::').length > config.maxResolveDepth) {
      throw errors.resolveTooDeep(config.maxResolveDepth, entry.length > 200 ? `${entry.slice(0, 200)}…` : entry);
    }
  }
}

/**
 * Requests Node's parser refuses never reach Express (headers over --max-http-header-size,
 * 16 KB by default, which also bounds the URL; malformed request lines). Node would answer
 * them with an empty body; this answers in the usual JSON shape.
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, `Request headers are larger than the limit of ${http.maxHeaderSize} bytes`]
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'The request was not received in time']
          : [400, 'Malformed HTTP request'];
    const body = `${JSON.stringify({ error: message })}\n`;
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
