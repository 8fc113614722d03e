/**
 * Writes records that come with their identity (uri, id, lock_version, timestamps) at the store
 * layer, for `import` (an export file) and `import-from` (a running ArchivesSpace). The create
 * operation cannot: it would give them new timestamps and lock_version 0, refuse a link to a
 * record not written yet, and run the types' create rules again (a repository would get a second
 * set of default groups). What the store derives from a record on every save is derived by the
 * engine's writer of such records (records/write.ts writeWithIdentity): unique keys, find_by_id
 * keys, outgoing references, group membership, tree places, and a change-log entry so that the
 * search index picks the record up.
 */
import type { Services } from '../../records/context';
import { writeWithIdentity } from '../../records/write';
import { GLOBAL_REPO_ID } from '../../registry';
import type { TypeInfo } from '../../registry';
import type { Tx } from '../../store/database';
import { RecordQueries } from '../../store/records';
import { setTreePlace } from '../../store/trees';
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

function setPlace(trx: Tx, rid: number, tree: TreePlace, parentRid: number | null): Promise<void> {
  return setTreePlace(trx, rid, tree.root, parentRid, tree.position);
}

export class RecordWriter {
  /** The highest id written per type: new records get ids above them (reserveIds). */
  private readonly maxIds = new Map<string, number>();
  /** Tree nodes written before their parent, by the parent's uri. */
  private readonly waiting = new Map<string, Array<{ rid: number; tree: TreePlace }>>();
  private readonly nowMs = Date.now();

  constructor(private readonly s: Services, private readonly onExisting: OnExisting) {}

  async write(trx: Tx, line: RecordLine, type: TypeInfo): Promise<Written> {
    const q = new RecordQueries(trx);
    const existing = await q.keysOf(line.type, line.id);
    if (existing && existing.uri !== line.uri) {
      throw new WriteRefused(`${line.type} ${line.id} is ${existing.uri} in this store, not ${line.uri}: ids must be free in the target store`);
    }
    if (existing && installationWide(type, line) && this.onExisting !== 'replace') return 'kept';
    if (existing && this.onExisting === 'refuse') {
      throw new WriteRefused(`${line.uri} already exists in this store; use --replace to overwrite it, or import into an empty store`);
    }
    if (existing && this.onExisting === 'refresh' && existing.lock_version === line.lock_version) return 'unchanged';

    const row = {
      type: line.type,
      id: line.id,
      repo_id: line.repo_id,
      uri: line.uri,
      json: JSON.stringify(line.record),
      lock_version: line.lock_version,
      create_time_ms: line.create_time_ms,
      system_mtime_ms: line.system_mtime_ms,
      user_mtime_ms: line.user_mtime_ms,
      suppressed: line.suppressed === true,
      hidden: line.hidden === true,
    };
    await writeWithIdentity(trx, this.s, row, line.record, {
      replaceRid: existing?.rid,
      changedAtMs: this.nowMs,
      explain: async (rule, holderRid) => {
        const holder = holderRid === null ? 'another record' : await q.uriOf(holderRid);
        return new WriteRefused(`${line.uri} has the same ${rule} as ${holder} in this store`);
      },
      place: async (rid) => {
        if (line.tree) {
          if (line.tree.parent === null) await setPlace(trx, rid, line.tree, null);
          else {
            const parent = await q.keysAt(line.tree.parent);
            if (parent) await setPlace(trx, rid, line.tree, parent.rid);
            else this.waiting.set(line.tree.parent, [...(this.waiting.get(line.tree.parent) ?? []), { rid, tree: line.tree }]);
          }
        }
        for (const child of this.waiting.get(line.uri) ?? []) await setPlace(trx, child.rid, child.tree, rid);
        this.waiting.delete(line.uri);
      },
    });
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
  async reserveIds(trx: Tx): Promise<void> {
    const q = new RecordQueries(trx);
    for (const [type, id] of this.maxIds) await q.reserveId(type, id);
  }
}
