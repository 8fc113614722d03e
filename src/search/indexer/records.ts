/**
 * The records the indexer turns into documents: read from the store, decorated and their links
 * resolved as each type's search mapping asks, and the records whose documents carry a changed
 * record's data (its referrers).
 */
import type { Services } from '../../records/context';
import { decorateRecords, uriLoader } from '../../records/load';
import { resolveLinks, type UriLoader } from '../../records/resolve';
import type { SearchMapping } from '../../registry';
import { type Obj, stringifySharing } from '../../json';
import { linksInto, linksOutOf } from '../../store/indexing';
import { recordReads } from '../../store/records';
import { buildDocuments, type SearchDoc } from '../documents';
import type { RecordBatch } from '../port';
import { letEventLoopTurn } from '../../event-loop';

/** Records the live indexer reads and prepares at a time, the event loop let turn in between. */
const SLICE = 100;

/** A loader that remembers what it loaded, up to `limit` records (then starts again). */
export function cachedLoader(load: UriLoader, limit: number): UriLoader {
  const cache = new Map<string, Obj>();
  return async (uris) => {
    const missing = uris.filter((u) => !cache.has(u));
    if (missing.length) {
      if (cache.size + missing.length > limit) cache.clear();
      const loaded = await load(missing);
      for (const u of missing) {
        const record = loaded.get(u);
        if (record) cache.set(u, record);
      }
    }
    const out = new Map<string, Obj>();
    for (const u of uris) {
      const record = cache.get(u);
      if (record) out.set(u, record);
    }
    return out;
  };
}

/** Records grouped by type as one list, with the type of each. */
function flatten(byType: Map<string, Obj[]>): { types: string[]; records: Obj[] } {
  const types: string[] = [];
  const records: Obj[] = [];
  for (const [type, group] of byType) {
    for (const record of group) {
      types.push(type);
      records.push(record);
    }
  }
  return { types, records };
}

/** Records of several types as one JSON text (each kept linked record's text made once: stringifySharing). */
export function recordBatch(byType: Map<string, Obj[]>, holders: Obj[]): RecordBatch {
  const { types, records } = flatten(byType);
  return { types, json: stringifySharing(records, holders, '_resolved') };
}

export class IndexedRecords {
  /** resolvedProperties of each type met so far (asked for every link of every change). */
  private readonly resolvedByType = new Map<string, Set<string>>();
  /** Types whose documents depend on what links to them (a top container's collections and series). */
  private readonly dependentTypes: Set<string>;
  /** Every guarding permission: linked records are resolved into documents without their guarded properties. */
  private readonly unguarded: ReadonlySet<string>;

  /** The properties some type's documents resolve (the only links whose targets' changes reach a referrer). */
  private readonly anyResolved: string[];

  constructor(private readonly s: Services) {
    this.dependentTypes = new Set(Object.keys(s.registry.types).filter((t) => this.mappingOf(t)?.dependsOnReferrers));
    this.anyResolved = [...new Set(Object.keys(s.registry.types).flatMap((t) => [...this.resolvedProperties(t)]))];
    this.unguarded = new Set(s.registry.guardingPermissions());
  }

  /** Mapping of each indexed type (types without one are not searched). */
  mappingOf(type: string): SearchMapping | undefined {
    return this.s.registry.types[type]?.search;
  }

  /** The types that have documents. */
  indexedTypes(): string[] {
    return Object.keys(this.s.registry.types).filter((t) => this.mappingOf(t));
  }

  /** Link properties a type's documents resolve (the first step of each resolve path), worked out once per type. */
  private resolvedProperties(type: string): Set<string> {
    let properties = this.resolvedByType.get(type);
    if (!properties) {
      properties = new Set((this.mappingOf(type)?.resolve ?? []).map((path) => path.split('::')[0]));
      this.resolvedByType.set(type, properties);
    }
    return properties;
  }

  /** Loads linked records as documents resolve them: without implied publication and guarded properties. */
  loader(): UriLoader {
    return uriLoader(this.s, { impliedPublication: false, withheld: this.unguarded });
  }

  /** The records whose documents carry the data of records at `uris` (once each or more); asked SLICE at a time, the event loop let turn between. */
  async referrersOf(uris: string[]): Promise<string[]> {
    const referrers: string[] = [];
    for (let i = 0; i < uris.length; i += SLICE) {
      referrers.push(...await this.referrersOfSlice(uris.slice(i, i + SLICE)));
      await letEventLoopTurn();
    }
    return referrers;
  }

  private async referrersOfSlice(uris: string[]): Promise<string[]> {
    // Only referrers whose documents carry the linked record's data: those that resolve the link
    // (an accession resolves its subjects; an archival object does not copy its resource).
    const referrers: string[] = [];
    for (const row of await linksInto(this.s.db, uris, this.anyResolved)) {
      if (this.resolvedProperties(row.type).has(row.property)) referrers.push(row.uri);
    }
    await letEventLoopTurn();
    // Records whose documents depend on what links to them (a top container's collections and
    // series), among those `uris` link to: their type is known from the URI.
    if (this.dependentTypes.size) {
      const dependsOnReferrers = (uri: string) => this.dependentTypes.has(this.s.registry.typeOfUri(uri)?.name ?? '');
      referrers.push(...(await linksOutOf(this.s.db, uris)).filter(dependsOnReferrers));
    }
    return referrers;
  }

  /**
   * The indexed records among `uris` as their documents read them (decorated, links resolved:
   * `holders` are the links given a kept record); `found` also holds records not indexed. Read and
   * prepared SLICE at a time, the event loop let turn in between: on SQLite a read answers before it
   * returns, so a batch of 500 went through without a turn (150-300 ms that requests waited).
   */
  async recordsFor(uris: string[]): Promise<{ byType: Map<string, Obj[]>; holders: Obj[]; found: Set<string> }> {
    const found = new Set<string>();
    const byType = new Map<string, Obj[]>();
    const holders: Obj[] = [];
    const load = this.loader();
    for (let i = 0; i < uris.length; i += SLICE) {
      const rows = await recordReads(this.s).getByUris(uris.slice(i, i + SLICE));
      const slice = new Map<string, Obj[]>();
      for (const row of rows) {
        await letEventLoopTurn();
        if (!this.mappingOf(row.type) || row.hidden) continue;
        found.add(row.uri);
        if (!slice.has(row.type)) slice.set(row.type, []);
        slice.get(row.type)!.push(JSON.parse(row.json));
      }
      await this.prepare(slice, load, holders);
      for (const [type, records] of slice) {
        if (!byType.has(type)) byType.set(type, []);
        byType.get(type)!.push(...records);
      }
    }
    return { byType, holders, found };
  }

  /** Adds what documents read besides the stored record: the type hooks' fields and the resolved links. */
  private async prepare(byType: Map<string, Obj[]>, load: UriLoader, holders?: Obj[]): Promise<void> {
    for (const [type, records] of byType) {
      const mapping = this.mappingOf(type)!;
      await decorateRecords(this.s, records);
      await letEventLoopTurn();
      if (mapping.resolve?.length) await resolveLinks(records, mapping.resolve, load, { readOnly: true, shared: holders });
      await letEventLoopTurn();
    }
  }

  /** The documents of records prepared, built one by one with the event loop let turn between them (src/event-loop.ts). */
  async documentsOf(byType: Map<string, Obj[]>): Promise<SearchDoc[]> {
    const { types, records } = flatten(byType);
    const docs: SearchDoc[] = [];
    for (let i = 0; i < records.length; i++) {
      await letEventLoopTurn();
      docs.push(...buildDocuments(this.s.registry, [types[i]], [records[i]]));
    }
    return docs;
  }

  /** The documents of records read by a rebuild (`load` reads their links). */
  async build(byType: Map<string, Obj[]>, load: UriLoader): Promise<SearchDoc[]> {
    // A rebuild's page is prepared at once (SLICE records or fewer: REBUILD_PAGE).
    await this.prepare(byType, load);
    return this.documentsOf(byType);
  }
}
