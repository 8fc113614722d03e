/**
 * Applies the store's change log (written in the same transaction as each record) to a search
 * index, in order, and checkpoints in the index itself. Every step rebuilds documents from the
 * records' current state, so applying an entry twice is harmless: a crash between commit and
 * indexing loses nothing, it is only applied again. One process at a time holds the lease.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Services } from '../records/context';
import { decorateRecords, uriLoader } from '../records/load';
import { resolveLinks, type UriLoader } from '../records/resolve';
import type { TypeInfo } from '../registry';
import { type Obj, stringifySharing } from '../json';
import { log } from '../log';
import { changeLogHead, LINKS_ASKED } from '../store/records';
import { buildDocuments, SearchDoc } from './documents';
import type { SearchMapping } from '../registry';
import type { RecordBatch, SearchIndex } from './port';

const LEASE = 'indexer_lease';

/**
 * Records per page of a rebuild. Small pages cost less than the live indexer's batches: a page's
 * records and documents die young instead of being copied through the young generation (500
 * took 15 % more CPU and 460 MB RSS against 300 MB, measured on 20k records).
 */
const REBUILD_PAGE = 100;

/** Linked records a rebuild keeps between pages. */
const LINKED_CACHE = 20_000;

/** A loader that remembers what it loaded, up to `limit` records (then starts again). */
function cachedLoader(load: UriLoader, limit: number): UriLoader {
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
function recordBatch(byType: Map<string, Obj[]>, holders: Obj[]): RecordBatch {
  const { types, records } = flatten(byType);
  return { types, json: stringifySharing(records, holders, '_resolved') };
}

export interface IndexerOptions {
  batchSize?: number;
  pollMs?: number;
  leaseMs?: number;
  /** How long a hole in the log's sequence may be an uncommitted write before it is passed. */
  gapWaitMs?: number;
  pauseMs?: number;
}

export interface Progress {
  done: number;
  total: number;
}

/**
 * Rounds woken by commits start at most this often (nudge). A round costs the same few statements
 * whether it applies one change or fifty; at 5 ms, creates at 8 connections took rounds of about
 * two changes (write-profile: 25 ms gave MariaDB 3-13 % more creates, SQLite 2-5 % more creates
 * and updates, for at most 20 ms more before a change is found under such load).
 */
const NUDGE_MS = 25;

export class Indexer {
  private readonly holder = crypto.randomBytes(8).toString('hex');
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  /** Until when this process's lease holds, as far as it knows (0: not held). */
  private leaseUntil = 0;
  private readonly gapWaitMs: number;
  private readonly pauseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private again = false;
  /** The store's id: written when the store is made, never changed, so read once (storeId). */
  private knownStoreId: Promise<string> | undefined;
  /** A round woken by a commit is scheduled (nudge): later commits wait for it. */
  private nudged = false;
  /** When the last round started (rounds woken by commits start at most every NUDGE_MS). */
  private lastRoundAt = 0;
  private stopped = true;
  /** Log entries past the checkpoint already applied (the checkpoint waits at a hole). */
  private appliedAbove = new Set<number>();
  lastError: string | undefined;
  /** resolvedProperties of each type met so far (asked for every link of every change). */
  private readonly resolvedByType = new Map<string, Set<string>>();
  /** Types whose documents depend on what links to them (a top container's collections and series). */
  private readonly dependentTypes: Set<string>;
  /** Every guarding permission: linked records are resolved into documents without their guarded properties. */
  private readonly unguarded: ReadonlySet<string>;

  constructor(private readonly s: Services, readonly index: SearchIndex, o: IndexerOptions = {}) {
    this.batchSize = o.batchSize ?? 500;
    this.pollMs = o.pollMs ?? 200;
    this.leaseMs = o.leaseMs ?? 5_000;
    this.gapWaitMs = o.gapWaitMs ?? 30_000;
    this.pauseMs = o.pauseMs ?? 0;
    this.dependentTypes = new Set(Object.keys(s.registry.types).filter((t) => this.mappingOf(t)?.dependsOnReferrers));
    this.unguarded = new Set(s.registry.guardingPermissions());
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

  /** Mapping of each indexed type (types without one are not searched). */
  mappingOf(type: string): SearchMapping | undefined {
    return this.s.registry.types[type]?.search;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    this.leaseUntil = 0;
    await this.s.db.knex('search_state').where({ name: LEASE, value: this.holder }).update({ expires_ms: 0 }).catch(() => undefined);
  }

  /**
   * A write committed: index it now rather than at the next poll, but start rounds at most every
   * NUDGE_MS. A commit after a quiet moment is indexed at once; under load a round takes every
   * commit since the last one (a round costs the same few reads of the store and calls to the
   * index whether it applies one change or fifty).
   */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else if (!this.nudged) {
      this.nudged = true;
      this.schedule(this.untilNextRound());
    }
  }

  private untilNextRound(): number {
    return Math.max(0, this.lastRoundAt + NUDGE_MS - Date.now());
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    this.nudged = false;
    this.lastRoundAt = Date.now();
    if (this.stopped) return;
    try {
      await this.runOnce();
      this.lastError = undefined;
    } catch (err) {
      this.lastError = (err as Error).message;
      log.error('indexer round failed; retrying', { error: this.lastError });
    }
    if (!this.stopped) this.schedule(this.again ? this.untilNextRound() : this.pollMs);
    this.again = false;
  }

  /** Applies everything the log holds past the checkpoint; returns the number of entries applied. */
  runOnce(): Promise<number> {
    if (!this.running) {
      this.running = this.round().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  /** Waits until the index holds every change committed so far (tests, shutdown, doctor). */
  async drain(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await this.runOnce();
      const { checkpoint } = await this.index.state();
      const head = await this.head();
      if (checkpoint >= head) return;
      if (Date.now() > until) throw new Error(`index still behind the change log (${checkpoint} < ${head})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The newest change-log entry. */
  head(): Promise<number> {
    return changeLogHead(this.s.db.knex);
  }

  /** The store's id, read once (a failed read is tried again next time). */
  private storeId(): Promise<string> {
    if (!this.knownStoreId) {
      const read = storeIdOf(this.s.db.knex);
      read.catch(() => { if (this.knownStoreId === read) this.knownStoreId = undefined; });
      this.knownStoreId = read;
    }
    return this.knownStoreId;
  }

  /**
   * Takes or renews the lease. A lease held with more than half its time left is not renewed: a
   * round per API write would otherwise add a write of its own to each (SQLite has one writer).
   */
  private async takeLease(): Promise<boolean> {
    const now = Date.now();
    if (this.leaseUntil - now > this.leaseMs / 2) return true;
    const n = await this.s.db.knex('search_state')
      .where({ name: LEASE })
      .andWhere((w) => w.where('value', this.holder).orWhere('expires_ms', '<', now))
      .update({ value: this.holder, expires_ms: now + this.leaseMs });
    this.leaseUntil = n === 1 ? now + this.leaseMs : 0;
    return n === 1;
  }

  private async round(): Promise<number> {
    if (!(await this.takeLease())) return 0;
    const storeId = await this.storeId();
    let state = await this.index.state();
    if (state.storeId !== storeId) {
      // An index built from another store (or none): rebuild it from this one.
      await this.rebuild();
      state = await this.index.state();
    }
    let applied = 0;
    for (;;) {
      const rows = await this.s.db.knex('change_log')
        .where('seq', '>', state.checkpoint)
        .orderBy('seq')
        .limit(this.batchSize)
        .select('seq', 'uri', 'at_ms');
      if (!rows.length) return applied;
      let checkpoint = state.checkpoint;
      const now = Date.now();
      for (const row of rows) {
        const seq = Number(row.seq);
        // A hole may be a write still committing: wait for it, unless it is old (a rollback).
        if (seq !== checkpoint + 1 && now - Number(row.at_ms) < this.gapWaitMs) break;
        checkpoint = seq;
      }
      const fresh = rows.filter((r) => !this.appliedAbove.has(Number(r.seq)));
      if (fresh.length) await this.apply([...new Set(fresh.map((r) => String(r.uri)))], state.checkpoint, checkpoint, storeId);
      else if (checkpoint > state.checkpoint) await this.index.apply([], [], { checkpoint, storeId });
      for (const r of fresh) if (Number(r.seq) > checkpoint) this.appliedAbove.add(Number(r.seq));
      for (const seq of this.appliedAbove) if (seq <= checkpoint) this.appliedAbove.delete(seq);
      applied += fresh.length;
      // A short read took everything the log held: what committed since woke the indexer again (nudge).
      if (checkpoint === state.checkpoint || rows.length < this.batchSize) return applied;
      state = { checkpoint, storeId };
      await this.takeLease();
    }
  }

  private async pause(): Promise<void> {
    if (this.pauseMs > 0) await new Promise((r) => setTimeout(r, this.pauseMs));
  }

  /**
   * Re-indexes `uris` and the records linking to them, whose documents carry their data; the
   * index's checkpoint moves from `from` to `checkpoint` with the last chunk.
   */
  private async apply(uris: string[], from: number, checkpoint: number, storeId: string): Promise<void> {
    // Only referrers whose documents carry the linked record's data: those that resolve the link
    // (an accession resolves its subjects; an archival object does not copy its resource).
    const referrers: string[] = [];
    for (let i = 0; i < uris.length; i += LINKS_ASKED) {
      const rows = await this.s.db.knex('record_refs as x')
        .join('records as r', 'r.rid', 'x.from_rid')
        .whereIn('x.to_uri', uris.slice(i, i + LINKS_ASKED))
        .distinct('r.uri', 'r.type', 'x.property');
      for (const row of rows as Array<{ uri: string; type: string; property: string }>) {
        if (this.resolvedProperties(row.type).has(row.property)) referrers.push(row.uri);
      }
    }
    // Records whose documents depend on what links to them (a top container's collections and
    // series), among those `uris` link to: their type is known from the URI, and the links are
    // read in two plain steps, rows by URI, then their links by row id. Joined in one statement,
    // filtering on the targets' type made SQLite walk every record of that type and its links
    // (16 ms a question at 20,000 links), and without that filter MariaDB read the whole
    // (to_uri, from_rid) index to answer DISTINCT (seconds a question at 190,000 links).
    const dependsOnReferrers = (uri: string) => this.dependentTypes.has(this.s.registry.typeOfUri(uri)?.name ?? '');
    for (let i = 0; this.dependentTypes.size && i < uris.length; i += LINKS_ASKED) {
      const rids = await this.s.db.knex('records').whereIn('uri', uris.slice(i, i + LINKS_ASKED)).pluck('rid');
      if (!rids.length) continue;
      const linked: string[] = await this.s.db.knex('record_refs').whereIn('from_rid', rids).distinct().pluck('to_uri');
      referrers.push(...linked.filter(dependsOnReferrers));
    }
    const all = [...new Set([...uris, ...referrers])];
    // A chunk's documents are built while the index writes the chunk before (an import's 20,000
    // components: building took 7 s and writing 4 s one after the other). Only the last chunk moves
    // the checkpoint, and only once every chunk before it is written: a chunk that failed fails
    // the round before the checkpoint passes its changes.
    let writing: Promise<void> | undefined;
    try {
      for (let i = 0; i < all.length; i += this.batchSize) {
        const chunk = all.slice(i, i + this.batchSize);
        const { byType, holders, found } = await this.recordsFor(chunk);
        const gone = chunk.filter((u) => !found.has(u));
        const last = i + this.batchSize >= all.length;
        const state = { checkpoint: last ? checkpoint : from, storeId };
        // An index that builds documents itself (the embedded one, in its own thread) gets the
        // records as text: building them here took a tenth of the thread that serves requests
        // under writes, and their garbage more.
        const batch = this.index.applyRecords ? recordBatch(byType, holders) : undefined;
        const docs = batch ? [] : this.documentsOf(byType);
        await writing;
        writing = undefined;
        const written = batch ? this.index.applyRecords!(batch, gone, state) : this.index.apply(docs, gone, state);
        if (last) await written;
        else {
          // Awaited before the next chunk goes, or below when building it failed.
          written.catch(() => undefined);
          writing = written;
        }
        await this.pause();
      }
    } finally {
      await writing;
    }
  }

  /**
   * The indexed records among `uris` as their documents read them (decorated, links resolved:
   * `holders` are the links given a kept record); `found` also holds records not indexed.
   */
  private async recordsFor(uris: string[]): Promise<{ byType: Map<string, Obj[]>; holders: Obj[]; found: Set<string> }> {
    const rows = await this.s.db.knex('records').whereIn('uri', uris).select('type', 'uri', 'json', 'hidden');
    const found = new Set<string>();
    const byType = new Map<string, Obj[]>();
    for (const row of rows) {
      if (!this.mappingOf(row.type) || row.hidden) continue;
      found.add(row.uri);
      if (!byType.has(row.type)) byType.set(row.type, []);
      byType.get(row.type)!.push(JSON.parse(row.json));
    }
    const holders: Obj[] = [];
    await this.prepare(byType, uriLoader(this.s, { impliedPublication: false, withheld: this.unguarded }), holders);
    return { byType, holders, found };
  }

  /** Documents of the indexed records among `uris`, built here (bench baselines); `found` also holds records not indexed. */
  async documentsFor(uris: string[]): Promise<{ docs: SearchDoc[]; found: Set<string> }> {
    const { byType, found } = await this.recordsFor(uris);
    return { docs: this.documentsOf(byType), found };
  }

  /** Adds what documents read besides the stored record: the type hooks' fields and the resolved links. */
  private async prepare(byType: Map<string, Obj[]>, load: UriLoader, holders?: Obj[]): Promise<void> {
    for (const [type, records] of byType) {
      const mapping = this.mappingOf(type)!;
      await decorateRecords(this.s, records);
      if (mapping.resolve?.length) await resolveLinks(records, mapping.resolve, load, { readOnly: true, shared: holders });
    }
  }

  private documentsOf(byType: Map<string, Obj[]>): SearchDoc[] {
    const { types, records } = flatten(byType);
    return buildDocuments(this.s.registry, types, records);
  }

  private async build(byType: Map<string, Obj[]>, load: UriLoader): Promise<SearchDoc[]> {
    await this.prepare(byType, load);
    return this.documentsOf(byType);
  }

  /**
   * Rebuilds the index from the store: every indexed record in pages, then documents of records
   * that no longer exist are dropped. Searches keep answering meanwhile (documents are replaced,
   * not cleared first). Resumes after the last page done when interrupted.
   */
  async rebuild(onProgress?: (p: Progress) => void): Promise<number> {
    const storeId = await this.storeId();
    const before = await this.index.state();
    if (before.storeId !== storeId) await this.index.clear(storeId);
    const resuming = before.storeId === storeId && typeof before.rebuiltTo === 'number';
    // Changes made from here on are applied after the rebuild, from this point of the log; a
    // resumed rebuild keeps the point its first attempt recorded.
    const checkpoint = resuming ? before.checkpoint : await this.head();
    if (!resuming) await this.index.apply([], [], { checkpoint, storeId, rebuiltTo: 0 });
    const types = Object.keys(this.s.registry.types).filter((t) => this.mappingOf(t));
    const total = Number((await this.s.db.knex('records').whereIn('type', types).andWhere('hidden', false).count('* as n').first())?.n ?? 0);
    // An interrupted rebuild goes on after the last page it wrote.
    let lastRid = resuming ? before.rebuiltTo! : 0;
    let done = lastRid ? Number((await this.s.db.knex('records').whereIn('type', types).andWhere('hidden', false).andWhere('rid', '<=', lastRid).count('* as n').first())?.n ?? 0) : 0;
    if (resuming) log.info('reindex resumes', { after_row: lastRid, done, total });
    const page = Math.min(this.batchSize, REBUILD_PAGE);
    // The few records most pages link to (subjects, agents) are read once per rebuild, not once
    // per page: a change to one of them after the rebuild's checkpoint re-indexes its referrers.
    const load = cachedLoader(uriLoader(this.s, { impliedPublication: false, withheld: this.unguarded }), LINKED_CACHE);
    // Pages are written (by the embedded index's own thread) while the next ones are read and
    // built; with more than one in flight neither side idles while the other finishes a page.
    const writing: Array<Promise<void>> = [];
    const indexedTypes = new Set(types);
    // Documents this run wrote: only the others are checked against the store at the end.
    const written = new Set<string>();
    for (;;) {
      // Along the primary key alone: filtering on type in SQL makes the engine walk the type index
      // and sort every remaining row for each page (quadratic in the store's size).
      const rows = await this.s.db.knex('records')
        .where('rid', '>', lastRid)
        .orderBy('rid')
        .limit(page)
        .select('rid', 'type', 'uri', 'json', 'hidden');
      if (!rows.length) break;
      const byType = new Map<string, Obj[]>();
      let taken = 0;
      for (const row of rows) {
        if (!indexedTypes.has(row.type) || row.hidden) continue;
        if (!byType.has(row.type)) byType.set(row.type, []);
        byType.get(row.type)!.push(JSON.parse(row.json));
        written.add(row.uri);
        taken++;
      }
      const docs = await this.build(byType, load);
      if (writing.length >= this.index.pagesInFlight) await writing.shift();
      onProgress?.({ done, total });
      const after = lastRid;
      lastRid = Number(rows[rows.length - 1].rid);
      const pageWritten = this.index.apply(docs, [], { checkpoint, storeId, rebuiltTo: lastRid, rebuiltFrom: after });
      // A failed page fails the rebuild when it is awaited; until then it must not count as unhandled.
      pageWritten.catch(() => undefined);
      writing.push(pageWritten);
      done += taken;
      await this.pause();
      await this.takeLease();
    }
    for (const w of writing) await w;
    onProgress?.({ done, total });
    // Documents of records that no longer exist (or are no longer indexed) go.
    const indexed = (await this.index.uris()).filter((u) => resuming || !written.has(u));
    const present = new Set<string>();
    for (let i = 0; i < indexed.length; i += 1000) {
      const rows = await this.s.db.knex('records').whereIn('uri', indexed.slice(i, i + 1000)).whereIn('type', types).andWhere('hidden', false).pluck('uri');
      for (const uri of rows) present.add(uri);
    }
    await this.index.apply([], indexed.filter((u) => !present.has(u)), { checkpoint, storeId, rebuiltTo: null });
    this.appliedAbove.clear();
    return done;
  }
}

/** The store's identity: an index records the one it was built from. */
export async function storeIdOf(knex: Knex): Promise<string> {
  const row = await knex('search_state').where({ name: 'store_id' }).first('value');
  return String(row.value);
}
