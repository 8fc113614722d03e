import type { Tx } from '../store/database';
import { countLoginFailure, deleteEndedLoginWindows, forgiveLoginFailures } from '../store/sessions';
import { errors } from '../errors';
import type { Config } from '../config';

/**
 * Failed logins counted per username and per client address in a fixed window, in the store's
 * login_failures table, so every app process counts the same attempts (N processes do not allow
 * N times the limit). Each key's row is changed only by single conditional statements inside one
 * transaction, so parallel attempts cannot all slip under the limit.
 */
export class LoginThrottle {
  constructor(
    private readonly db: { transaction<T>(run: (trx: Tx) => Promise<T>): Promise<T> },
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts an attempt as failed before the password is checked, so that parallel attempts
   * cannot all pass the check while the slow hash runs; `forgive` takes it back on success.
   * Throws 429 (with Retry-After) when any key has used up its failures; then nothing is counted.
   */
  async begin(keys: string[]): Promise<void> {
    const now = this.now();
    const waitMs = await this.db.transaction(async (trx) => {
      // Sorted, so two attempts sharing keys take their row locks in one order.
      for (const key of [...keys].sort()) {
        const endsMs = await countLoginFailure(trx, key, now, this.windowMs, this.maxFailures);
        // Rolled back: a refused attempt counts for none of its keys.
        if (endsMs !== undefined) throw new Blocked(endsMs - now);
      }
      return 0;
    }).catch((err) => {
      if (err instanceof Blocked) return err.waitMs;
      throw err;
    });
    if (waitMs > 0) throw errors.tooManyLoginAttempts(Math.max(1, Math.ceil(waitMs / 1000)));
    // Expired windows are cleared now and then, not on every attempt.
    if (Math.random() < 0.01) await this.db.transaction((trx) => deleteEndedLoginWindows(trx, now));
  }

  async forgive(keys: string[]): Promise<void> {
    const now = this.now();
    await this.db.transaction((trx) => forgiveLoginFailures(trx, keys, now));
  }
}

class Blocked extends Error {
  constructor(readonly waitMs: number) {
    super('blocked');
  }
}

const throttles = new WeakMap<object, LoginThrottle>();

/** One throttle per set of services; its counts live in the store, shared by every process. */
export function loginThrottleFor(s: { config: Config; db: { transaction<T>(run: (trx: Tx) => Promise<T>): Promise<T> } }): LoginThrottle {
  let t = throttles.get(s);
  if (!t) {
    t = new LoginThrottle(s.db, s.config.loginMaxFailures, s.config.loginFailureWindowSeconds * 1000);
    throttles.set(s, t);
  }
  return t;
}

export function loginKeys(username: string, clientAddress?: string): string[] {
  return clientAddress ? [`user:${username}`, `address:${clientAddress}`] : [`user:${username}`];
}
