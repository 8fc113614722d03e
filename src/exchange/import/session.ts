/**
 * What every importer does while it writes one file: records through the API's operations inside
 * the file's transaction, values added to editable value lists when a record needs them, agents
 * and subjects matched to existing ones (authority id, then heading) or created once, warnings
 * in the log, and the report of what was created.
 */
import { ApiError } from '../../errors';
import { log } from '../../log';
import { isPlainObject, type Obj } from '../../json';
import type { Actor, Services, Where } from '../../records/context';
import { addEnumerationValues, discardImportedValues } from '../../records/value-lists';
import { lookupHash, lookupValue } from '../../records/keys';
import { CreateBatch } from '../../records/create-batch';
import { createRecord, type WriteResult } from '../../records/write';
import { recordsWithJsonValue } from '../../store/record-finders';
import type { Tx } from '../../store/database';
import { RecordQueries } from '../../store/records';
import { holdDerivedRows } from '../../store/transaction-memo';
import { discardPending, publishPending } from '../../store/pending';
import { openPendingChunk, type PendingChunk } from '../../store/transactions';
import { prepareRecord } from '../../validation';
import { ImportFailed, ImportInput, ImportOutput, ImportReport } from './types';
import { writeTransaction } from '../../records/context';

/** "Mixed Materials" → "mixed_materials": labels and types of a file as value-list values. */
export const slug = (text: string) => text.trim().toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '_').replace(/^_|_$/g, '');

export interface NameAttributes {
  source?: string;
  rules?: string;
  authfilenumber?: string;
}

/**
 * Where an import writes: its one transaction, or the transaction of its current chunk
 * (importInChunks), which `afterRecord` ends once it has held the writer long enough.
 */
export interface ImportWriter {
  readonly trx: Tx;
  afterRecord(): Promise<void>;
}

export class ImportSession {
  protected readonly report: ImportReport;
  private readonly writer: ImportWriter;
  private readonly values = new Map<string, Set<string>>();
  private readonly agents = new Map<string, string>();
  private readonly subjects = new Map<string, string>();
  /** Records createInBatch holds, and the type and path of each in the file. */
  private batch?: CreateBatch;
  private batched: Array<{ typeName: string; path: string[] }> = [];
  /** The file is written in chunks (importInChunks). */
  private readonly chunked: boolean;

  constructor(
    protected readonly s: Services, writer: Tx | ImportWriter, protected readonly repoId: number,
    protected readonly actor: Actor, protected readonly input: ImportInput, protected readonly out: ImportOutput,
  ) {
    this.report = { file: input.name, created: [], counts: {}, warnings: [] };
    this.chunked = 'afterRecord' in writer;
    if ('afterRecord' in writer) this.writer = writer;
    else {
      holdDerivedRows(writer);
      this.writer = { trx: writer, afterRecord: async () => undefined };
    }
  }

  /** The transaction the import writes in now (with chunks, the current chunk's). */
  protected get trx(): Tx {
    return this.writer.trx;
  }

  protected warn(message: string): void {
    this.report.warnings.push(message);
    this.out.log('warning', `${this.input.name}: ${message}`);
  }

  /**
   * A value of an editable list; added to the list before the record that uses it is written. The
   * XML importers make a value of what the file says (`Flat box` is flat_box); ArchivesSpace's
   * spreadsheet importer adds a cell's value as written (`asWritten`).
   */
  protected value(list: string, raw: string, asWritten = false): string {
    const v = asWritten ? raw.trim() : slug(raw);
    if (!this.s.enums.get(list)?.values.includes(v)) {
      if (!this.values.has(list)) this.values.set(list, new Set());
      this.values.get(list)!.add(v);
    }
    return v;
  }

  /** A record the file created, for the report. */
  protected noteCreated(uri: string): void {
    this.report.created.push(uri);
  }

  /** Writes a record as the API would (validation, keys, links, change log); a refusal names the file and the path. */
  protected async create(typeName: string, body: Obj, path: string[]): Promise<string> {
    const where = this.whereOf(typeName);
    // The rows createInBatch holds go first where this record may need them (a link to one of them, a place among them).
    await this.beforeCreate(!this.batch?.mustGoFirst(where, body));
    try {
      const prepared = prepareRecord(this.s.registry, this.s.enums, typeName, body);
      const result = await createRecord(this.s, this.actor, where, prepared.record, prepared.warnings, { trx: this.trx });
      return await this.afterCreate(typeName, result.uri);
    } catch (err) {
      return this.refused(err, typeName, path);
    }
  }

  /**
   * create(), with the record's row inserted later with others (records/write.ts CreateBatch): what
   * refuses the record is thrown here as by create(); its row, keys and links are written by
   * flushCreates(), when a hundred are pending, or before anything else is (another record, the
   * end of a chunk), so that nothing the file writes after it finds it missing. For records of
   * the import's own that nothing reads before the file's end (a sheet's rows).
   */
  protected async createInBatch(typeName: string, body: Obj, path: string[]): Promise<string> {
    await this.beforeCreate(true);
    this.batch ??= new CreateBatch(this.s, this.actor, this.trx);
    try {
      const prepared = prepareRecord(this.s.registry, this.s.enums, typeName, body);
      const uri = await this.batch.add(this.whereOf(typeName), prepared.record, prepared.warnings);
      this.batched.push({ typeName, path });
      if (this.batch.full) await this.flushCreates();
      return await this.afterCreate(typeName, uri);
    } catch (err) {
      return this.refused(err, typeName, path);
    }
  }

  /** Where a record of the type goes: this repository, or nowhere in particular for a global type. */
  private whereOf(typeName: string): Where {
    const type = this.s.registry.type(typeName);
    return { type, repoId: type.scope === 'repository' ? this.repoId : undefined };
  }

  /** Writes the records createInBatch holds (a refusal names the path of the record refused). */
  protected async flushCreates(): Promise<void> {
    if (!this.batch?.size) return;
    const batched = this.batched;
    this.batched = [];
    const done: WriteResult[] = [];
    try {
      await this.batch.flush(done);
    } catch (err) {
      // The records are finished in order: the one refused is the first not answered.
      const refused = batched[done.length] ?? { typeName: 'record', path: [] };
      await this.refused(err, refused.typeName, refused.path);
    }
  }

  /**
   * Before a record is written: a cancel takes effect at the next record, not only between chunks
   * of the file (a small file is one chunk); the values its body needs are added to their lists;
   * the records createInBatch holds are written first unless the record `mayWait`.
   */
  private async beforeCreate(mayWait: boolean): Promise<void> {
    if (this.out.signal?.aborted) throw new ImportFailed(`${this.input.name}: canceled`);
    if (!mayWait) await this.flushCreates();
    const added = await addEnumerationValues(this.trx, this.s, this.values);
    for (const a of added) this.warn(`added the value ${a} to its value list`);
    this.values.clear();
  }

  /** A record written or held for the batch: noted for the report, and the chunk ended where it has run its time. */
  private async afterCreate(typeName: string, uri: string): Promise<string> {
    this.noteCreated(uri);
    this.report.counts[typeName] = (this.report.counts[typeName] ?? 0) + 1;
    // A chunk ends with nothing held for it (its transaction's memo places the held rows).
    if (this.chunked) await this.flushCreates();
    await this.writer.afterRecord();
    return uri;
  }

  /** What a refused write becomes: a subject's or agent's clash links the holder; else the file fails, naming the path. */
  private async refused(err: unknown, typeName: string, path: string[]): Promise<string> {
    // A subject or agent the store already holds under another heading (they are unique): that one is linked.
    const holder = err instanceof ApiError && isPlainObject(err.body.error) ? err.body.error.conflicting_record : undefined;
    if (this.s.registry.types[typeName]?.scope === 'global' && Array.isArray(holder) && typeof holder[0] === 'string') {
      // The holder may be pending for another import job running in chunks (store/pending.ts): it is
      // not there to link until that job publishes it, and goes if that job fails.
      if ((await new RecordQueries(this.trx).existing([holder[0]])).length) return holder[0];
      throw new ImportFailed(`${this.input.name}: ${path.join('/')}: the ${typeName} is being written by another import that has not finished; run this file again once it has`);
    }
    if (err instanceof ApiError) {
      const e = err.body.error;
      const detail = typeof e === 'string' ? e : Object.entries(e as Record<string, string[]>).slice(0, 3)
        .map(([k, v]) => `${k}: ${String(v).slice(0, 160)}`).join('; ');
      throw new ImportFailed(`${this.input.name}: ${path.join('/')}: the ${typeName} is not valid: ${detail}`);
    }
    throw err;
  }

  /** The record of the type in this repository whose find_by_id value `param` is `value` (as GET …/find_by_id finds it). */
  protected async findByLookup(typeName: string, param: string, value: string): Promise<string | undefined> {
    const rule = this.s.registry.type(typeName).lookup?.[param];
    if (!rule) throw new Error(`${typeName} has no find_by_id parameter ${param}`);
    const [uri] = await new RecordQueries(this.trx).findByLookup(typeName, this.repoId, param, [lookupHash(lookupValue(rule.format, [value]))]);
    return uri;
  }

  /** An agent of the type, by authority id, else by heading; created (authorized, as the display name) when none exists. */
  protected async agent(type: string, rawHeading: string, attrs: NameAttributes, detail: { name?: Obj; record?: Obj } = {}): Promise<string> {
    const heading = rawHeading.slice(0, 255) || 'Unnamed';
    const authority = attrs.authfilenumber;
    const key = `${type}|${authority ?? ''}|${heading}`;
    const cached = this.agents.get(key);
    if (cached) return cached;
    const found = await this.findByJson(type, authority ? ['authority_id', authority] : ['sort_name', heading], (r) =>
      (r.names ?? []).some((x: Obj) => (authority ? x.authority_id === authority : x.sort_name === heading)));
    const uri = found ?? await this.create(type, {
      publish: true,
      ...detail.record,
      names: [{
        ...(type === 'agent_person' ? { primary_name: heading, name_order: 'inverted' } : type === 'agent_family' ? { family_name: heading }
          : type === 'agent_software' ? { software_name: heading } : { primary_name: heading }),
        sort_name: heading, sort_name_auto_generate: false, authorized: true, is_display_name: true,
        source: this.value('name_source', attrs.source ?? 'ingest'), ...(attrs.rules ? { rules: this.value('name_rule', attrs.rules) } : {}),
        ...(authority ? { authority_id: authority } : {}),
        ...detail.name,
      }],
    }, [type]);
    this.agents.set(key, uri);
    return uri;
  }

  /** A subject from a heading ("Railroads -- Ohio"), the first term of `termType`, by authority id, else by heading and source. */
  protected async subject(termType: string, heading: string, attrs: NameAttributes): Promise<string> {
    const source = this.value('subject_source', attrs.source ?? 'ingest');
    const authority = attrs.authfilenumber;
    const terms = heading.split(/\s*--\s*/).filter(Boolean).map((term, i) => ({ term, term_type: i === 0 ? termType : 'topical', vocabulary: '/vocabularies/1' }));
    const title = terms.map((t) => t.term).join(' -- ');
    const key = `${authority ?? ''}|${source}|${title}`;
    const cached = this.subjects.get(key);
    if (cached) return cached;
    const found = await this.findByJson('subject', authority ? ['authority_id', authority] : ['title', title], (r) =>
      (authority ? r.authority_id === authority : r.title === title && r.source === source));
    const uri = found ?? await this.create('subject', { source, vocabulary: '/vocabularies/1', terms, ...(authority ? { authority_id: authority } : {}) }, ['subject']);
    this.subjects.set(key, uri);
    return uri;
  }

  /** An existing record of the type whose JSON has `key: value`, confirmed by `matches`. */
  private async findByJson(type: string, [key, value]: [string, string], matches: (r: Obj) => boolean): Promise<string | undefined> {
    return (await recordsWithJsonValue(this.trx, { type }, key, value, 20)).find((r) => matches(r.record))?.uri;
  }
}

/**
 * One file's transaction. Values an import adds to value lists are in the catalogue as soon as
 * they are written (so the file's next records validate against them); when the file fails, its
 * transaction takes them back out of the store, and the catalogue is read again so that it does
 * not keep them either (the next file would otherwise be validated against values that are gone).
 */
async function importTransaction<T>(s: Services, write: (trx: Tx) => Promise<T>): Promise<T> {
  try {
    return await writeTransaction(s, write);
  } catch (err) {
    await s.enums.refresh(s.db.knex);
    throw err;
  }
}

/** The crash tests' pauses (IMPORT_PAUSE_BETWEEN_CHUNKS_MS, IMPORT_PAUSE_PUBLISHING_MS; 0 in use): said in the log, then waited. */
async function pause(where: string, ms: number): Promise<void> {
  if (!ms) return;
  log.info(`import paused ${where}`, { ms });
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The one place an importer's file is written from: in chunks pending for the job where the job
 * allows it (`out.chunks`: import jobs on SQLite), else in one transaction. Every import type
 * goes through here, so each is all or nothing in the same way and none holds the writer longer.
 */
export function importFile<T>(s: Services, out: ImportOutput, write: (writer: Tx | ImportWriter) => Promise<T>): Promise<T> {
  return out.chunks ? importInChunks(s, out.chunks.job, out.chunks.chunkMs, write) : importTransaction(s, write);
}

/**
 * One file's records written in chunks pending for `job` (store/pending.ts): each chunk a
 * transaction of its own, ended once it held the writer `chunkMs`, so other clients' writes run
 * between chunks; no reader sees the file's records until they are published together at the end,
 * in one short transaction. When the file fails or the job is canceled, what its chunks wrote is
 * removed, with the values it added to value lists that nothing else uses (and the value-list
 * catalogue read again, as importTransaction does).
 */
async function importInChunks<T>(s: Services, job: number, chunkMs: number, write: (writer: ImportWriter) => Promise<T>): Promise<T> {
  const uris = new Set<string>();
  let chunk: PendingChunk | undefined = await openPendingChunk(s.db, job, uris, s.writeSource);
  let started = Date.now();
  const writer: ImportWriter = {
    get trx() {
      return chunk!.trx;
    },
    async afterRecord() {
      if (Date.now() - started < chunkMs) return;
      const ending = chunk!;
      chunk = undefined;
      await ending.commit();
      await pause('between chunks', s.config.jobs.importPauses.betweenChunksMs);
      chunk = await openPendingChunk(s.db, job, uris, s.writeSource);
      started = Date.now();
    },
  };
  try {
    const answer = await write(writer);
    const last = chunk!;
    chunk = undefined;
    await last.commit();
    await publishPending(s.db, job, () => pause('publishing', s.config.jobs.importPauses.publishingMs));
    return answer;
  } catch (err) {
    await chunk?.rollback(err);
    await discardPending(s.db, job);
    await discardImportedValues(s, job);
    await s.enums.refresh(s.db.knex);
    throw err;
  }
}
