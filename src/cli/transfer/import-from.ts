/**
 * Copies a running ArchivesSpace (or another Archive Records Backend) into this store over the
 * API, keeping ids and URIs: value lists first (merged by name), then repositories, then every
 * installation-wide type, then every repository's types, tree roots before their nodes. Each type
 * is read as its ids (all_ids) and batches of up to 250 records (id_set); listings without paging
 * (repositories, groups, vocabularies) are read whole, then each record at its uri.
 *
 * Each record is checked as a create would check it and written at the store layer (write.ts),
 * one transaction per batch, one savepoint per record: a record the store refuses is reported and
 * the rest of its batch is kept. A copy that stops can be run again: records already copied with
 * the same lock_version are skipped, changed ones are overwritten.
 */
import { ApiError } from '../../errors';
import type { Services } from '../../records/context';
import { createEnumeration, getEnumerationByName, updateEnumeration } from '../../records/value-lists';
import type { TypeInfo } from '../../registry';
import type { Tx } from '../../store/database';
import { STEP } from '../../store/positions';
import { RecordQueries } from '../../store/records';
import { inNestedTransaction, transactionOnce } from '../../store/transactions';
import { type DanglingLinks, danglingLinks, repositoriesOtherThan } from '../../store/transfers';
import { prepareRecord } from '../../validation';
import type { Obj } from '../../json';
import { GLOBAL_REPO_ID, REPOSITORY_TYPE } from '../../registry';
import { messageOf } from '../context';
import { CliError } from '../output';
import type { RecordLine } from './format';
import { SourceApi, SourceRefused } from './source';
import { installationWide, RecordWriter, WriteRefused } from './write';

/** The most ids one id_set request asks for (the API's page size limit). */
export const BATCH = 250;
/** Refusals listed one by one in the summary; beyond these, only counted. */
const REFUSALS_LISTED = 100;

export interface CopyOptions {
  /** Copy these repositories only (installation-wide records are copied whole either way). */
  repos?: number[];
}

/** One type in one place advancing: `label` is "accession in /repositories/2". */
export interface CopyProgress {
  label: string;
  done: number;
  total: number;
}

export interface CopySummary {
  source: string;
  /** Records written that the store did not hold, by type. */
  copied: Record<string, number>;
  /** Records an earlier run had copied and the source has changed since (lock_version differs), by type. */
  updated: Record<string, number>;
  /** Records an earlier run had copied, unchanged since. */
  unchanged: number;
  /** Installation-wide records this store has of its own (the admin user, the system groups): left as they are. */
  kept: number;
  refused: { count: number; by_type: Record<string, number>; records: Array<{ uri: string; reason: string }> };
  /** Types the source does not list (or refused to), with its answer. */
  skipped: Array<{ type: string; where: string; reason: string }>;
  enumerations: { created: string[]; values_added: number; refused: Array<{ name: string; reason: string }> };
  dangling_links: DanglingLinks;
}

const bump = (counts: Record<string, number>, key: string) => { counts[key] = (counts[key] ?? 0) + 1; };

/** The types a copy reads: every listed record type; value lists go their own way (mergeEnumerations). */
export function copiedTypes(s: Services): { global: TypeInfo[]; repository: TypeInfo[] } {
  const listed = Object.values(s.registry.types)
    .filter((t) => t.kind === 'record' && t.uri && t.listing && t.copied !== false && !['repository', 'enumeration', 'enumeration_value'].includes(t.name))
    // A tree's nodes come after its root: a node is placed under records already written.
    .sort((a, b) => Number(!!a.tree) - Number(!!b.tree) || a.name.localeCompare(b.name));
  return { global: listed.filter((t) => t.scope === 'global'), repository: listed.filter((t) => t.scope === 'repository') };
}

class Copy {
  readonly summary: CopySummary;
  private readonly writer: RecordWriter;

  constructor(private readonly s: Services, private readonly api: SourceApi, private readonly onProgress: (p: CopyProgress) => void) {
    this.writer = new RecordWriter(s, 'refresh');
    this.summary = {
      source: api.base, copied: {}, updated: {}, unchanged: 0, kept: 0,
      refused: { count: 0, by_type: {}, records: [] }, skipped: [],
      enumerations: { created: [], values_added: 0, refused: [] }, dangling_links: { count: 0, examples: [] },
    };
  }

  refuse(type: string, uri: string, reason: string): void {
    this.summary.refused.count++;
    bump(this.summary.refused.by_type, type);
    if (this.summary.refused.records.length < REFUSALS_LISTED) this.summary.refused.records.push({ uri, reason });
  }

  /** Value lists by name: a list this store lacks is created, values it lacks are appended. */
  async mergeEnumerations(): Promise<void> {
    const lists = await this.api.get<Obj[]>('/config/enumerations');
    const e = this.summary.enumerations;
    for (const list of lists) {
      const values: string[] = Array.isArray(list.values) ? list.values.filter((v: unknown) => typeof v === 'string') : [];
      let mine: Obj | undefined;
      try {
        mine = await getEnumerationByName(this.s, list.name);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      }
      if (!mine) {
        await createEnumeration(this.s, { name: list.name, values });
        e.created.push(list.name);
        continue;
      }
      const have = new Set<string>([...mine.values, ...mine.enumeration_values.map((v: Obj) => v.value)]);
      const missing = values.filter((v) => !have.has(v));
      if (!missing.length) continue;
      if (!mine.editable) {
        e.refused.push({ name: list.name, reason: `a protected list here; the source adds ${missing.join(', ')}` });
        continue;
      }
      const id = Number(String(mine.uri).split('/').pop());
      await updateEnumeration(this.s, id, { lock_version: mine.lock_version, values: [...mine.values, ...missing], default_value: mine.default_value });
      e.values_added += missing.length;
    }
  }

  /** Every record of `type` at `path` (a collection URI), in batches; a listing the source refuses skips the type. */
  async copyType(type: TypeInfo, path: string, where: string, listed?: Obj[]): Promise<void> {
    const label = `${type.name} in ${where}`;
    let batches: Array<() => Promise<Obj[]>>;
    let total: number;
    try {
      if (listed || type.listing === 'unlimited') {
        const all = listed ?? await this.api.get<Obj[]>(path);
        total = all.length;
        // Such listings may show less than the record (a group's members): each is read at its uri.
        batches = chunks(all, BATCH).map((summaries) => () => this.readEach(type, summaries));
      } else {
        const ids = await this.api.get<number[]>(path, { all_ids: 'true' });
        total = ids.length;
        batches = chunks(ids, BATCH).map((set) => () => this.api.get<Obj[]>(path, { 'id_set[]': set.map(String) }));
      }
    } catch (err) {
      if (!(err instanceof SourceRefused)) throw err;
      this.summary.skipped.push({ type: type.name, where, reason: err.message });
      return;
    }
    // Tree nodes that came before their parent, by the parent's uri: written when it is.
    const waiting = new Map<string, Obj[]>();
    let done = 0;
    this.onProgress({ label, done, total });
    for (const batch of batches) {
      const records = await batch();
      // The copies keep the source's system_mtimes, which its own touches set: a component copied in
      // a later batch than its resource must not touch the copy of the resource again.
      await transactionOnce(this.s.db, async (trx) => {
        for (const raw of records) await this.copyRecord(trx, type, raw, waiting);
        await this.writer.reserveIds(trx);
      }, { touch: false });
      done += records.length;
      this.onProgress({ label, done, total: Math.max(total, done) });
    }
    for (const [parent, nodes] of waiting) {
      for (const node of nodes) this.refuse(type.name, node.uri, `its parent ${parent} is not in the source's listing, or was refused`);
    }
  }

  private async readEach(type: TypeInfo, summaries: Obj[]): Promise<Obj[]> {
    const records: Obj[] = [];
    for (const summary of summaries) {
      try {
        records.push(await this.api.get<Obj>(String(summary.uri)));
      } catch (err) {
        if (!(err instanceof SourceRefused)) throw err;
        this.refuse(type.name, String(summary.uri), err.message);
      }
    }
    return records;
  }

  private async copyRecord(trx: Tx, type: TypeInfo, raw: Obj, waiting: Map<string, Obj[]>): Promise<void> {
    const uri = typeof raw?.uri === 'string' ? raw.uri : '(no uri)';
    let line: RecordLine;
    try {
      line = lineOf(this.s, type, raw);
    } catch (err) {
      if (!(err instanceof WriteRefused)) throw err;
      return this.refuse(type.name, uri, err.message);
    }
    const q = new RecordQueries(trx);
    const mine = await q.keysAt(uri);
    if (mine && mine.lock_version === line.lock_version && !installationWide(type, line)) {
      this.summary.unchanged++;
      return this.copyWaiting(trx, type, uri, waiting);
    }
    if (line.tree) {
      if (!(await q.keysAt(line.tree.root))) {
        return this.refuse(type.name, uri, `its ${type.tree!.rootProperty} ${line.tree.root} was not copied`);
      }
      const parent = line.tree.parent;
      if (parent && !(await q.keysAt(parent))) {
        waiting.set(parent, [...(waiting.get(parent) ?? []), raw]);
        return;
      }
    }
    try {
      // Checked as a create would check it (schema, rules, value lists); the stored JSON is the source's.
      prepareRecord(this.s.registry, this.s.enums, type.name, structuredClone(line.record));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return this.refuse(type.name, uri, messageOf(err));
    }
    let written;
    try {
      written = await inNestedTransaction(trx, (savepoint) => this.writer.write(savepoint, line, type));
    } catch (err) {
      if (!(err instanceof WriteRefused)) throw err;
      return this.refuse(type.name, uri, err.message);
    }
    if (written === 'kept') this.summary.kept++;
    else if (written === 'unchanged') this.summary.unchanged++;
    else bump(written === 'replaced' ? this.summary.updated : this.summary.copied, type.name);
    await this.copyWaiting(trx, type, uri, waiting);
  }

  private async copyWaiting(trx: Tx, type: TypeInfo, uri: string, waiting: Map<string, Obj[]>): Promise<void> {
    const children = waiting.get(uri);
    if (!children) return;
    waiting.delete(uri);
    for (const child of children) await this.copyRecord(trx, type, child, waiting);
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Seconds-precision timestamps as the API gives them, in ms; absent or unreadable ones become now. */
function msOf(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(ms) && ms >= 0 ? ms : Date.now();
}

/** The API's record as the store keeps it: its identity from its uri, without the fields computed at read time. */
export function lineOf(s: Services, type: TypeInfo, raw: Obj): RecordLine {
  if (typeof raw !== 'object' || raw === null || typeof raw.uri !== 'string') throw new WriteRefused('the source gave a record without a uri');
  const pattern = new RegExp(`^${type.uri!.replace(':repo_id', '(\\d+)')}/(\\d+)$`);
  const m = pattern.exec(raw.uri);
  if (!m) throw new WriteRefused(`${raw.uri} is not a ${type.name} uri (${type.uri}/:id)`);
  const id = Number(m[m.length - 1]);
  const repoId = type.scope === 'repository' ? Number(m[1]) : 0;
  const record: Obj = { ...raw, jsonmodel_type: type.name };
  for (const field of s.hooks[type.name]?.derivedFields ?? []) delete record[field];
  const lockVersion = Number(raw.lock_version ?? 0);
  const line: RecordLine = {
    uri: raw.uri, type: type.name, id, repo_id: repoId,
    lock_version: Number.isSafeInteger(lockVersion) && lockVersion >= 0 ? lockVersion : 0,
    create_time_ms: msOf(raw.create_time), system_mtime_ms: msOf(raw.system_mtime), user_mtime_ms: msOf(raw.user_mtime),
    suppressed: raw.suppressed === true, hidden: false, record,
  };
  if (type.tree) {
    const root = raw[type.tree.rootProperty]?.ref;
    if (typeof root !== 'string') throw new WriteRefused(`${raw.uri} names no ${type.tree.rootProperty}`);
    const position = Number(raw.position ?? 0);
    // The source shows logical positions (0, 1, 2...): spread out, they keep the order and leave room for inserts.
    line.tree = { root, parent: raw[type.tree.parentProperty]?.ref ?? null, position: (Number.isSafeInteger(position) && position >= 0 ? position : 0) * STEP };
  }
  return line;
}

/**
 * Ids are kept, so a store with repositories of its own would see them clash. A store that holds
 * the source's repositories (same uri, same code) is an earlier copy being resumed.
 */
async function refuseForeignRepositories(s: Services, listed: Obj[]): Promise<void> {
  const theirs = new Map(listed.map((r) => [r.uri, r.repo_code]));
  const mine = await repositoriesOtherThan(s.db.knex, GLOBAL_REPO_ID);
  const foreign = mine.filter((r) => theirs.get(r.uri) !== JSON.parse(r.json).repo_code).map((r) => r.uri);
  if (foreign.length) {
    throw new CliError(
      `this store has repositories of its own (${foreign.join(', ')}): a copy keeps the source's ids and URIs, which would clash with its records`,
      'copy into an empty store (a new DB_URL); running the same copy again, to resume it or catch up, is fine',
    );
  }
}

export async function importFrom(
  s: Services, api: SourceApi, options: CopyOptions = {}, onProgress: (p: CopyProgress) => void = () => {},
): Promise<CopySummary> {
  const copy = new Copy(s, api, onProgress);
  const types = copiedTypes(s);
  await copy.mergeEnumerations();

  const repositoryType = s.registry.type(REPOSITORY_TYPE);
  const listed = await api.get<Obj[]>(repositoryType.uri!);
  await refuseForeignRepositories(s, listed);
  const repos = listed.filter((r) => !options.repos || options.repos.includes(Number(String(r.uri).split('/').pop())));
  for (const wanted of options.repos ?? []) {
    if (!repos.some((r) => r.uri === `/repositories/${wanted}`)) copy.summary.skipped.push({ type: REPOSITORY_TYPE, where: `/repositories/${wanted}`, reason: 'the source does not list it' });
  }
  await copy.copyType(repositoryType, repositoryType.uri!, 'the installation', repos);

  for (const type of types.global) await copy.copyType(type, type.uri!, 'the installation');
  for (const repo of repos) {
    const repoUri = String(repo.uri);
    const repoId = repoUri.split('/').pop()!;
    for (const type of types.repository) await copy.copyType(type, type.uri!.replace(':repo_id', repoId), repoUri);
  }
  copy.summary.dangling_links = await danglingLinks(s.db.knex);
  return copy.summary;
}
