import type { Config } from '../config';
import type { Registry } from '../registry';
import type { Database } from '../store/connect';
import type { EnumerationCatalog } from '../validation/enumerations';

/** What every operation needs, with no knowledge of HTTP. */
export interface Services {
  config: Config;
  db: Database;
  registry: Registry;
  enums: EnumerationCatalog;
}

export interface Actor {
  username: string;
}

/** Seconds-precision UTC timestamps, as the reference writes them (2024-05-01T12:00:00Z). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
