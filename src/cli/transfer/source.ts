/**
 * A running ArchivesSpace (or another Archive Records Backend: same API) read over HTTP as an
 * administrator: log in, then GET with the session header. Every failure names the address.
 */
import { CliError } from '../output';

/** A listing or read the source answered with an error status (the type is then skipped or the batch refused). */
export class SourceRefused extends Error {
  constructor(readonly status: number, readonly path: string, body: string) {
    super(`${path}: the source answered ${status}${body ? ` ${body.slice(0, 300)}` : ''}`);
  }
}

const ATTEMPTS = 3;

export class SourceApi {
  private session = '';

  private constructor(readonly base: string) {}

  /** Logs in (POST /users/:user/login, the password in the form body so it stays out of access logs). */
  static async login(url: string, user: string, password: string): Promise<SourceApi> {
    let base: string;
    try {
      base = new URL(url).toString().replace(/\/+$/, '');
    } catch {
      throw new CliError(`not a URL: ${url}`, 'give the backend address of the source, such as http://localhost:8089');
    }
    const api = new SourceApi(base);
    const res = await api.fetch('POST', `/users/${encodeURIComponent(user)}/login`, new URLSearchParams({ password, expiring: 'false' }));
    const text = await res.text();
    if (res.status !== 200) {
      throw new CliError(`the source refused the login of ${user} (${res.status}): ${text.slice(0, 200)}`, 'check --user and --password: an administrator of the source is needed to read everything');
    }
    const session = (JSON.parse(text) as { session?: string }).session;
    if (!session) throw new CliError(`the source at ${base} answered the login without a session: is it the backend address (not the staff interface)?`);
    api.session = session;
    return api;
  }

  private async fetch(method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fetch(`${this.base}${path}`, {
          method,
          headers: { ...(this.session ? { 'X-ArchivesSpace-Session': this.session } : {}), ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
          body: form,
        });
      } catch (err) {
        // A dropped connection is retried (long copies outlive the odd network hiccup); a refused one is not.
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        if (attempt >= ATTEMPTS || cause === 'ECONNREFUSED' || cause === 'ENOTFOUND') {
          throw new CliError(`cannot reach the source at ${this.base}${path}: ${cause ?? (err as Error).message}`, 'check the URL and that the source is running');
        }
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
  }

  /** GET path as JSON; an error status throws SourceRefused. */
  async get<T>(path: string, query: Record<string, string | string[]> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
    }
    const qs = params.toString();
    const res = await this.fetch('GET', qs ? `${path}?${qs}` : path);
    const text = await res.text();
    if (res.status !== 200) throw new SourceRefused(res.status, path, text.trim());
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new SourceRefused(res.status, path, `(not JSON) ${text}`);
    }
  }
}
