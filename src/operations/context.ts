import type { Config } from '../config';
import type { Registry } from '../registry';
import type { Database } from '../store/connect';
import type { EnumerationCatalog } from '../validation/enumerations';
import type { TypeHooks } from './hooks';
import type { Grants } from '../access/grants';
import type { SearchServices } from '../search';

/** What every operation needs, with no knowledge of HTTP. */
export interface Services {
  config: Config;
  db: Database;
  registry: Registry;
  enums: EnumerationCatalog;
  /** Domain rules of the few types that have them, by type name. */
  hooks: Record<string, TypeHooks>;
  /** The search index and its indexer (absent only in tools that never search). */
  search?: SearchServices;
}

export interface Actor {
  username: string;
  /** Loaded once per request, on the first permission check. */
  grants?: Promise<Grants>;
}

/** Seconds-precision UTC timestamps, as the reference writes them (2024-05-01T12:00:00Z). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
