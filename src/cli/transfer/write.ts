/**
 * Writes records that come with their identity (uri, id, lock_version, timestamps) at the store
 * layer, for `import` (an export file) and `import-from` (a running ArchivesSpace). The create
 * operation cannot: it would give them new timestamps and lock_version 0, refuse a link to a
 * record not written yet, and run the types' create rules again (a repository would get a second
 * set of default groups). What the store derives from a record on every save is derived here the
 * same way: unique keys, find_by_id keys, outgoing references, group membership, tree places, and
 * a change-log entry so that the search index picks the record up.
 */
import type { Knex } from 'knex';
import type { Services } from '../../records/context';
import { lookupKeys, uniqueKeys } from '../../records/keys';
import { GLOBAL_REPO_ID } from '../../registry';
import { collectRefs } from '../../records/refs';
import type { TypeInfo } from '../../registry';
import { RecordQueries } from '../../store/records';
import { parentKey } from '../../store/positions';
import type { RecordLine, TreePlace } from './format';

/** What to do with a record whose uri the store holds already. */
export type OnExisting =
  /** Refuse (installation-wide records excepted: they are kept). */
  | 'refuse'
  /** Overwrite it. */
  | 'replace'
  /** Keep it when its lock_version is the same (a copy resumed), overwrite it otherwise. */
  | 'refresh';

export type Written = 'imported' | 'replaced' | 'kept' | 'unchanged';

/** A record the store cannot take as it is; the message says why. */
export class WriteRefused extends Error {}

/** Records every installation has or shares (the global repository, global types): an existing one is kept. */
export function installationWide(type: TypeInfo, line: RecordLine): boolean {
  if (type.scope === 'global') return type.name !== 'repository' || line.id === GLOBAL_REPO_ID;
  return line.repo_id === GLOBAL_REPO_ID;
}

async function setPlace(trx: Knex.Transaction, rid: number, tree: TreePlace, parentRid: number | null): Promise<void> {
  await trx('records').where({ rid }).update({
    parent_key: parentKey(tree.root, parentRid), parent_rid: parentRid, position: tree.position, root_uri: tree.root,
  });
}

export class RecordWriter {
  /** The highest id written per type: new records get ids above them (reserveIds). */
  private readonly maxIds = new Map<string, number>();
  /** Tree nodes written before their parent, by the parent's uri. */
  private readonly waiting = new Map<string, Array<{ rid: number; tree: TreePlace }>>();
  private readonly nowMs = Date.now();

  constructor(private readonly s: Services, private readonly onExisting: OnExisting) {}

  async write(trx: Knex.Transaction, line: RecordLine, type: TypeInfo): Promise<Written> {
    const q = new RecordQueries(trx);
    const existing = await trx('records').where({ type: line.type, id: line.id }).first('rid', 'uri', 'lock_version');
    if (existing && existing.uri !== line.uri) {
      throw new WriteRefused(`${line.type} ${line.id} is ${existing.uri} in this store, not ${line.uri}: ids must be free in the target store`);
    }
    if (existing && installationWide(type, line) && this.onExisting !== 'replace') return 'kept';
    if (existing && this.onExisting === 'refuse') {
      throw new WriteRefused(`${line.uri} already exists in this store; use --replace to overwrite it, or import into an empty store`);
    }
    if (existing && this.onExisting === 'refresh' && Number(existing.lock_version) === line.lock_version) return 'unchanged';

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
    if (existing) {
      rid = Number(existing.rid);
      await trx('records').where({ rid }).update({ ...fields, parent_key: null, parent_rid: null, position: null, root_uri: null });
    } else {
      rid = await q.insert({ type: line.type, id: line.id, repo_id: line.repo_id, uri: line.uri, ...fields });
    }
    const fresh = !existing;
    const record = line.record;
    await q.setUniqueKeys(rid, line.type, uniqueKeys(type, record, line.repo_id), fresh, async (rule, holderRid) => {
      const holder = holderRid === null ? 'another record' : await q.uriOf(holderRid);
      return new WriteRefused(`${line.uri} has the same ${rule} as ${holder} in this store`);
    });
    await q.setLookupKeys(rid, line.type, line.repo_id, lookupKeys(type, record), fresh);
    await q.setRefs(rid, collectRefs(this.s.registry, line.type, record), fresh);
    // What a type derives from the record alone (a group's members and grants) is derived here too.
    await this.s.hooks[line.type]?.derive?.(trx, this.s, { where: { type, repoId: line.repo_id }, rid, id: line.id, record, created: fresh, actor: { username: 'admin' } });
    if (line.tree) {
      if (line.tree.parent === null) await setPlace(trx, rid, line.tree, null);
      else {
        const parent = await trx('records').where({ uri: line.tree.parent }).first('rid');
        if (parent) await setPlace(trx, rid, line.tree, Number(parent.rid));
        else this.waiting.set(line.tree.parent, [...(this.waiting.get(line.tree.parent) ?? []), { rid, tree: line.tree }]);
      }
    }
    for (const child of this.waiting.get(line.uri) ?? []) await setPlace(trx, child.rid, child.tree, rid);
    this.waiting.delete(line.uri);
    await q.appendChange(line.type, line.uri, 'upsert', this.nowMs);
    this.maxIds.set(line.type, Math.max(this.maxIds.get(line.type) ?? 0, line.id));
    return existing ? 'replaced' : 'imported';
  }

  /** Tree nodes still waiting for a parent that was never written: one example and the count. */
  orphans(): { count: number; parent: string; children: number } | undefined {
    if (!this.waiting.size) return undefined;
    const [parent, children] = this.waiting.entries().next().value!;
    return { count: this.waiting.size, parent, children: children.length };
  }

  /** Moves each type's id sequence past the ids written, so that new records get fresh ids. */
  async reserveIds(trx: Knex.Transaction): Promise<void> {
    const q = new RecordQueries(trx);
    for (const [type, id] of this.maxIds) await q.reserveId(type, id);
  }
}

export type DanglingLinks = {
  count: number;
  examples: Array<{ from: string; to: string }>;
};

/** Links in the store to records it does not hold (tree links aside). */
export async function danglingLinks(db: Knex | Knex.Transaction): Promise<DanglingLinks> {
  const dangling = db('record_refs as x').leftJoin('records as r', 'r.uri', 'x.to_uri').whereNull('r.rid').andWhere('x.to_uri', 'not like', '%/tree');
  const count = Number((await dangling.clone().count({ n: '*' }).first())?.n ?? 0);
  if (!count) return { count, examples: [] };
  const examples = await dangling.clone().join('records as f', 'f.rid', 'x.from_rid').select('f.uri as from', 'x.to_uri as to').limit(5);
  return { count, examples: examples.map((e: { from: string; to: string }) => ({ from: e.from, to: e.to })) };
}
