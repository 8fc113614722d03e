/**
 * Writes an export (format.ts) back into a store, keeping every record's id, uri, JSON,
 * lock_version and timestamps. Records are written at the store layer, not through the create
 * operation: that one would give them new timestamps and lock_version 0, would refuse a link to a
 * record further down the file, and would run the types' create rules again (a repository would
 * get a second set of default groups). What the store derives from a record on every save is
 * derived here the same way: unique keys, find_by_id keys, outgoing references, group membership,
 * tree places, and a change-log entry so that the search index picks the record up.
 *
 * One transaction: an import that fails part-way leaves the store as it was. Lines are read one
 * at a time; memory holds only the tree nodes whose parent comes later in the file (usually none).
 */
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { groupHooks } from '../../access/groups';
import type { Services } from '../../operations/context';
import { lookupKeys, uniqueKeys } from '../../operations/keys';
import { GLOBAL_REPO_ID } from '../../operations/records';
import { collectRefs } from '../../operations/refs';
import type { TypeInfo } from '../../registry';
import { RecordQueries, UniqueKeyTaken } from '../../store/records';
import { parentKey } from '../../trees/positions';
import type { Progress } from '../output';
import { ExportHeader, FORMAT, FORMAT_VERSION, RecordLine, TreePlace } from './format';

export interface ImportOptions {
  /** Overwrite records that already exist (by uri) instead of refusing or keeping them. */
  replace?: boolean;
}

export interface ImportSummary {
  /** What the file says it holds. */
  source: { repository?: string; all?: boolean; exported_at: string };
  imported: number;
  replaced: number;
  /** Installation-wide records that existed already and were left as they were. */
  kept: number;
  by_type: Record<string, number>;
  /** Links in the store to records that are in neither the file nor the store. */
  dangling_links: { count: number; examples: Array<{ from: string; to: string }> };
}

/** A problem with the file or with what it would do to the store; `line` is 1-based. */
export class ImportError extends Error {
  constructor(message: string, readonly line?: number) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}

const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

function checkLine(s: Services, raw: unknown, n: number): { line: RecordLine; type: TypeInfo } {
  const line = raw as RecordLine;
  if (typeof line !== 'object' || line === null || Array.isArray(line)) throw new ImportError('not a record line', n);
  const type = s.registry.types[line.type];
  if (!type?.uri) throw new ImportError(`unknown record type ${JSON.stringify(line.type)}`, n);
  if (!Number.isSafeInteger(line.id) || line.id < 1) throw new ImportError(`bad id ${JSON.stringify(line.id)}`, n);
  for (const field of ['repo_id', 'lock_version', 'create_time_ms', 'system_mtime_ms', 'user_mtime_ms'] as const) {
    if (!isCount(line[field])) throw new ImportError(`bad ${field} ${JSON.stringify(line[field])}`, n);
  }
  // The uri is the record's address everywhere (links, the index): it must be the one its type, id and repository give.
  const expected = `${type.uri.replace(':repo_id', String(line.repo_id))}/${line.id}`;
  const repoOk = type.scope === 'repository' ? line.repo_id >= 1 : line.repo_id === 0;
  if (line.uri !== expected || !repoOk) throw new ImportError(`uri ${JSON.stringify(line.uri)} does not match ${line.type} ${line.id} in repository ${line.repo_id}`, n);
  const record = line.record;
  if (typeof record !== 'object' || record === null || Array.isArray(record) || record.uri !== line.uri || record.jsonmodel_type !== line.type) {
    throw new ImportError(`record of ${line.uri} is missing or names another uri or type`, n);
  }
  if (line.tree !== undefined) {
    const t = line.tree as TreePlace;
    if (typeof t?.root !== 'string' || !(t.parent === null || typeof t.parent === 'string') || !Number.isSafeInteger(t.position)) {
      throw new ImportError(`bad tree place of ${line.uri}`, n);
    }
  }
  return { line, type };
}

/** Records every installation has or shares (the global repository, global types): an existing one is kept. */
function installationWide(type: TypeInfo, line: RecordLine): boolean {
  if (type.scope === 'global') return type.name !== 'repository' || line.id === GLOBAL_REPO_ID;
  return line.repo_id === GLOBAL_REPO_ID;
}

async function place(trx: Knex.Transaction, rid: number, tree: TreePlace, parentRid: number | null): Promise<void> {
  await trx('records').where({ rid }).update({
    parent_key: parentKey(tree.root, parentRid), parent_rid: parentRid, position: tree.position, root_uri: tree.root,
  });
}

export async function importRecords(
  s: Services, input: Readable, options: ImportOptions = {}, onProgress?: (p: Progress) => void,
): Promise<ImportSummary> {
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  const iterator = lines[Symbol.asyncIterator]();
  let n = 0;
  const next = async (): Promise<string | undefined> => {
    for (;;) {
      const r = await iterator.next();
      if (r.done) return undefined;
      n++;
      if (r.value.trim()) return r.value;
    }
  };
  const parse = (text: string) => {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ImportError(`not JSON: ${(err as Error).message}`, n);
    }
  };

  const first = await next();
  if (first === undefined) throw new ImportError('the input is empty');
  const header = parse(first) as ExportHeader;
  if (header?.format !== FORMAT) throw new ImportError(`not an ${FORMAT} file (its first line has no "format": "${FORMAT}")`, n);
  if (header.version !== FORMAT_VERSION) throw new ImportError(`export format version ${header.version}; this program reads version ${FORMAT_VERSION}`, n);
  const total = Number(header.records) || 0;

  const summary: ImportSummary = {
    source: { ...(header.repository ? { repository: header.repository } : { all: true }), exported_at: header.exported_at },
    imported: 0, replaced: 0, kept: 0, by_type: {}, dangling_links: { count: 0, examples: [] },
  };
  const maxIds = new Map<string, number>();
  // Tree nodes whose parent is further down the file, by the parent's uri.
  const waiting = new Map<string, Array<{ rid: number; tree: TreePlace }>>();
  const nowMs = Date.now();

  await s.db.knex.transaction(async (trx) => {
    const q = new RecordQueries(trx);
    let done = 0;
    onProgress?.({ done, total });
    for (let text = await next(); text !== undefined; text = await next()) {
      const { line, type } = checkLine(s, parse(text), n);
      const existing = await trx('records').where({ type: line.type, id: line.id }).first('rid', 'uri');
      if (existing && existing.uri !== line.uri) {
        throw new ImportError(`${line.type} ${line.id} is ${existing.uri} in this store, not ${line.uri}: ids must be free in the target store`, n);
      }
      const fields = {
        json: JSON.stringify(line.record),
        lock_version: line.lock_version,
        create_time_ms: line.create_time_ms,
        system_mtime_ms: line.system_mtime_ms,
        user_mtime_ms: line.user_mtime_ms,
        suppressed: line.suppressed === true,
        hidden: line.hidden === true,
      };
      let rid: number;
      if (existing && !options.replace) {
        if (!installationWide(type, line)) {
          throw new ImportError(`${line.uri} already exists in this store; use --replace to overwrite it, or import into an empty store`, n);
        }
        summary.kept++;
        done++;
        onProgress?.({ done, total: Math.max(total, done) });
        continue;
      } else if (existing) {
        rid = Number(existing.rid);
        await trx('records').where({ rid }).update({ ...fields, parent_key: null, parent_rid: null, position: null, root_uri: null });
        summary.replaced++;
      } else {
        rid = await q.insert({ type: line.type, id: line.id, repo_id: line.repo_id, uri: line.uri, ...fields });
        summary.imported++;
      }
      const record = line.record;
      try {
        await q.setUniqueKeys(rid, line.type, uniqueKeys(type, record, line.repo_id));
      } catch (err) {
        if (!(err instanceof UniqueKeyTaken)) throw err;
        const holder = err.holderRid === null ? 'another record' : await q.uriOf(err.holderRid);
        throw new ImportError(`${line.uri} has the same ${err.rule} as ${holder} in this store`, n);
      }
      await q.setLookupKeys(rid, line.type, line.repo_id, lookupKeys(type, record));
      await q.setRefs(rid, collectRefs(s.registry, line.type, record));
      // Group membership and grants are derived from the group record alone (src/access/groups.ts).
      if (line.type === 'group') {
        await groupHooks.afterSave!(trx, s, { where: { type, repoId: line.repo_id }, rid, id: line.id, record, created: !existing, actor: { username: 'admin' } });
      }
      if (line.tree) {
        if (line.tree.parent === null) await place(trx, rid, line.tree, null);
        else {
          const parent = await trx('records').where({ uri: line.tree.parent }).first('rid');
          if (parent) await place(trx, rid, line.tree, Number(parent.rid));
          else waiting.set(line.tree.parent, [...(waiting.get(line.tree.parent) ?? []), { rid, tree: line.tree }]);
        }
      }
      for (const child of waiting.get(line.uri) ?? []) await place(trx, child.rid, child.tree, rid);
      waiting.delete(line.uri);
      await q.appendChange(line.type, line.uri, 'upsert', nowMs);
      maxIds.set(line.type, Math.max(maxIds.get(line.type) ?? 0, line.id));
      summary.by_type[line.type] = (summary.by_type[line.type] ?? 0) + 1;
      done++;
      onProgress?.({ done, total: Math.max(total, done) });
    }
    if (waiting.size) {
      const [parent, children] = waiting.entries().next().value!;
      throw new ImportError(`${waiting.size} tree parent(s) are in neither the file nor the store, e.g. ${parent} (parent of ${children.length} node(s))`);
    }
    // New records get ids above the imported ones.
    for (const [type, id] of maxIds) await q.reserveId(type, id);

    const dangling = trx('record_refs as x').leftJoin('records as r', 'r.uri', 'x.to_uri').whereNull('r.rid').andWhere('x.to_uri', 'not like', '%/tree');
    summary.dangling_links.count = Number((await dangling.clone().count({ n: '*' }).first())?.n ?? 0);
    if (summary.dangling_links.count) {
      const examples = await dangling.clone().join('records as f', 'f.rid', 'x.from_rid').select('f.uri as from', 'x.to_uri as to').limit(5);
      summary.dangling_links.examples = examples.map((e: { from: string; to: string }) => ({ from: e.from, to: e.to }));
    }
  });
  return summary;
}
