import type { ServerResponse } from 'node:http';

/**
 * A JSON API is never framed, never a document with scripts, and its answers (tokens, records
 * behind permissions) must not be kept by shared caches. A route that serves a page (the API
 * docs) replaces the policy with its row's `contentSecurityPolicy`; any route may override a
 * header through its reply's headers.
 */
export const DEFAULT_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

const HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': DEFAULT_CONTENT_SECURITY_POLICY,
  // Every answer, not only those to a session: the login answer carries the session token itself.
  'Cache-Control': 'no-store',
};

const ENTRIES = Object.entries(HEADERS);

export function securityHeaders(res: ServerResponse): void {
  for (const [name, value] of ENTRIES) res.setHeader(name, value);
}
