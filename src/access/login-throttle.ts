import { errors } from '../errors';
import type { Config } from '../config';

interface Window {
  failures: number;
  endsMs: number;
}

/** Beyond this many tracked names and addresses, expired windows are dropped, then the oldest. */
const MAX_TRACKED = 50_000;

/**
 * Failed logins counted per username and per client address in a fixed window. The counts are
 * kept in this process's memory: with several app processes each allows its own N failures.
 */
export class LoginThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts an attempt as failed before the password is checked, so that parallel attempts
   * cannot all pass the check while the slow hash runs; `forgive` takes it back on success.
   * Throws 429 (with Retry-After) when any key has used up its failures.
   */
  begin(keys: string[]): void {
    const now = this.now();
    let waitMs = 0;
    for (const key of keys) {
      const w = this.current(key, now);
      if (w && w.failures >= this.maxFailures) waitMs = Math.max(waitMs, w.endsMs - now);
    }
    if (waitMs > 0) throw errors.tooManyLoginAttempts(Math.max(1, Math.ceil(waitMs / 1000)));
    for (const key of keys) {
      const w = this.current(key, now);
      if (w) w.failures++;
      else this.windows.set(key, { failures: 1, endsMs: now + this.windowMs });
    }
    this.prune(now);
  }

  forgive(keys: string[]): void {
    const now = this.now();
    for (const key of keys) {
      const w = this.current(key, now);
      if (w && w.failures > 0) w.failures--;
    }
  }

  private current(key: string, now: number): Window | undefined {
    const w = this.windows.get(key);
    if (w && w.endsMs <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  private prune(now: number): void {
    if (this.windows.size <= MAX_TRACKED) return;
    for (const [key, w] of this.windows) if (w.endsMs <= now) this.windows.delete(key);
    // Insertion order is age order: an attacker cycling through names evicts its own oldest entries.
    for (const key of this.windows.keys()) {
      if (this.windows.size <= MAX_TRACKED) break;
      this.windows.delete(key);
    }
  }
}

const throttles = new WeakMap<object, LoginThrottle>();

/** One throttle per set of services, that is per app process (and per test app). */
export function loginThrottleFor(s: { config: Config }): LoginThrottle {
  let t = throttles.get(s);
  if (!t) {
    t = new LoginThrottle(s.config.loginMaxFailures, s.config.loginFailureWindowSeconds * 1000);
    throttles.set(s, t);
  }
  return t;
}

export function loginKeys(username: string, clientAddress?: string): string[] {
  return clientAddress ? [`user:${username}`, `address:${clientAddress}`] : [`user:${username}`];
}
