import seed from '../store/seeds/enumerations.json';
import type { Handle } from '../store/database';
import {
  bumpEnumerationVersion, enumerationLists, enumerationVersion, insertLists, nextEnumerationId, usableEnumerationValues,
} from '../store/value-lists';

/** The store's (store/value-lists.ts), for the records engine's writes of the lists. */
export { bumpEnumerationVersion, nextEnumerationId as nextId };

export interface EnumerationList {
  editable: boolean;
  /** Values a record may use now: unsuppressed, in position order. */
  values: string[];
}

/** How often a process asks the store whether another process changed a list. */
const FRESHNESS_MS = 1000;

/** Current values of the editable value lists (enumerations.md), read from the store. */
export class EnumerationCatalog {
  private lists = new Map<string, EnumerationList>();
  private version = -1;
  private checkedAt = 0;

  static async load(db: Handle): Promise<EnumerationCatalog> {
    const catalog = new EnumerationCatalog();
    await catalog.refresh(db);
    return catalog;
  }

  async refresh(db: Handle): Promise<void> {
    const lists = new Map<string, EnumerationList>();
    const version = await enumerationVersion(db);
    for (const row of await enumerationLists(db)) {
      lists.set(row.name, { editable: !!row.editable, values: [] });
    }
    const values = await usableEnumerationValues(db);
    for (const row of values) lists.get(row.enum_name)?.values.push(row.value);
    this.lists = lists;
    this.version = version;
    this.checkedAt = Date.now();
  }

  /**
   * Several app processes share one store: a list changed by another process is picked up here
   * at most a second later (one indexed single-row read per second, not per request).
   */
  async ensureFresh(db: Handle): Promise<void> {
    if (Date.now() - this.checkedAt < FRESHNESS_MS) return;
    this.checkedAt = Date.now();
    if ((await enumerationVersion(db)) !== this.version) await this.refresh(db);
  }

  get(name: string): EnumerationList | undefined {
    return this.lists.get(name);
  }
}

/** Seeds the default lists (from the reference's fresh database) where they are missing. */
export async function seedEnumerations(db: Handle): Promise<void> {
  const present = new Set((await enumerationLists(db)).map((r) => r.name));
  const lists = seed as Record<string, { editable: boolean; values: string[]; readonly_values: string[]; default_value: string | null }>;
  const missing = Object.entries(lists).filter(([name]) => !present.has(name));
  if (!missing.length) return;
  await insertLists(db, missing.map(([name, list]) => ({ name, ...list })));
}
