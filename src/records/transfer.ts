import type { Tx } from '../store/database';
import { can } from '../access/permissions';
import { ApiError, errors } from '../errors';
import type { Obj } from '../json';
import { GLOBAL_REPO_ID, type TypeInfo } from '../registry';
import { RecordQueries } from '../store/records';
import { noteDeletion } from '../store/transaction-memo';
import {
  linkingRids, linksFrom, membersInTrees, membersLinkedFrom, membersLinkingTo, membersOfRepository, moveRow, type TransferMember as Member,
  transferMemberOf,
} from '../store/transfers';
import type { Actor, Services } from './context';
import { repoint, unlink } from './refs';
import { createRecord, rewriteStored } from './write';
import { writeTransaction } from './context';

/**
 * Moving records to another repository (ArchivesSpace's repository transfers): one record with
 * what belongs to it (POST <uri>/:id/transfer), or every record of a repository
 * (POST /repositories/:repo_id/transfer). What goes along is declared per type (x-archive.transfer):
 * a tree's nodes always; records it links to that only the moved records link to (top containers,
 * digital objects); records that link only to moved records (events, assessments), the others
 * copied into the target. A moved record keeps its id: its URI changes repository, every link to
 * it follows, and the old URI is logged as deleted (search, feeds, OAI-PMH deletions).
 * Links between a moved record and records left in another repository are dropped (a record links
 * only within its repository). All in one transaction: refused as a whole with 409 and what
 * stands in the way under each record's URI.
 */

export interface MovedAnswer {
  status: 'Moved';
  id: number;
  merge_destination: number;
}

type Conflicts = Record<string, Array<{ json_property?: string; message: string }>>;

const CHUNK = 500;

/** The repository a record's URI puts it in; undefined for global records (and repositories themselves). */
function repositoryOf(uri: string): number | undefined {
  const m = /^\/repositories\/(\d+)\/./.exec(uri);
  return m ? Number(m[1]) : undefined;
}

/** target_repo: the URI of another existing repository, which the caller may write to with `permission`. */
async function targetRepository(s: Services, actor: Actor, targetRepo: string, sourceRepoId: number, permission: string): Promise<number> {
  const m = /^\/repositories\/(\d+)$/.exec(targetRepo);
  const targetId = m ? Number(m[1]) : undefined;
  if (targetId === undefined || targetId === GLOBAL_REPO_ID || (await new RecordQueries(s.db.reads).keysAt(targetRepo))?.type !== 'repository') {
    throw errors.repositoryNotFound('target_repo');
  }
  if (targetId === sourceRepoId) throw errors.mustBe('target_repo', `another repository than ${targetRepo}`);
  if (!(await can(s, actor, permission, targetId))) throw errors.transferTargetDenied();
  return targetId;
}

/** POST <uri>/:id/transfer?target_repo=: the record and what belongs to it move to the target repository. */
export async function transferRecord(s: Services, actor: Actor, type: TypeInfo, repoId: number, id: number, targetRepo: string): Promise<MovedAnswer> {
  const targetId = await targetRepository(s, actor, targetRepo, repoId, type.permissions!.update!);
  return writeTransaction(s, async (trx) => {
    const root = await transferMemberOf(trx, type.name, id, repoId);
    if (!root) throw errors.notFound(type.model);
    const { members, copies } = await whatMoves(trx, s, root);
    const newUri = await move(trx, s, actor, members, repoId, targetId, copies);
    if (type.transfer?.event) await recordTransferEvent(trx, s, actor, type.transfer.event, repoId, targetId, newUri(root.uri));
    return { status: 'Moved' as const, id, merge_destination: targetId };
  });
}

/** POST /repositories/:repo_id/transfer?target_repo=: every record of the repository moves, but those of types that stay (groups, preferences). */
export async function transferRepository(s: Services, actor: Actor, repoId: number, targetRepo: string): Promise<{ status: 'OK' }> {
  const targetId = await targetRepository(s, actor, targetRepo, repoId, 'transfer_repository');
  const staying = Object.values(s.registry.types).filter((t) => t.transfer?.stays).map((t) => t.name);
  return writeTransaction(s, async (trx) => {
    const rows = await membersOfRepository(trx, repoId, staying);
    await move(trx, s, actor, new Map(rows.map((m) => [m.rid, m])), repoId, targetId, []);
    return { status: 'OK' as const };
  });
}

/**
 * The records that move with `root` (its tree's nodes, the records only they link to that follow
 * their linking records, the records linking only to them that follow what they link to) and the
 * records to copy (those that link to moved records and to others as well). Refused with 409 when
 * a record that must follow is linked from a record left behind.
 */
async function whatMoves(trx: Tx, s: Services, root: Member): Promise<{ members: Map<number, Member>; copies: Member[] }> {
  const types = s.registry.types;
  const members = new Map<number, Member>([[root.rid, root]]);
  const treeRoots = new Set(Object.values(types).flatMap((t) => (t.tree ? [t.tree.root] : [])));
  const followers = Object.values(types).filter((t) => t.transfer?.withLinkingRecords).map((t) => t.name);
  let added: Member[] = [root];
  while (added.length) {
    const next: Member[] = [];
    const take = (rows: Member[]) => {
      for (const m of rows) {
        if (!members.has(m.rid)) {
          members.set(m.rid, m);
          next.push(m);
        }
      }
    };
    for (let i = 0; i < added.length; i += CHUNK) {
      const part = added.slice(i, i + CHUNK);
      const roots = part.filter((m) => treeRoots.has(m.type)).map((m) => m.uri);
      if (roots.length) take(await membersInTrees(trx, roots));
      // Records these link to that go with the records linking to them.
      take(await membersLinkedFrom(trx, part.map((m) => m.rid), followers, root.repo_id));
    }
    added = next;
  }
  const conflicts: Conflicts = {};
  const linkedTypes = Object.values(types).filter((t) => t.transfer?.withLinkedRecords).map((t) => t.name);
  const all = [...members.values()];
  for (const m of all) {
    const inUse = types[m.type]?.transfer?.withLinkingRecords;
    if (!inUse) continue;
    if ((await linkingRids(trx, m.uri, linkedTypes)).some((rid) => !members.has(rid))) conflicts[m.uri] = [{ message: inUse }];
  }
  if (Object.keys(conflicts).length) throw errors.transferConflicts(conflicts);
  // Records linking to moved ones: they move when all they link to in a repository moves, else a copy is made.
  const uris = new Set(all.map((m) => m.uri));
  const copies: Member[] = [];
  const copiedRids = new Set<number>();
  for (let i = 0; i < all.length && linkedTypes.length; i += CHUNK) {
    const linking = await membersLinkingTo(trx, all.slice(i, i + CHUNK).map((m) => m.uri), linkedTypes, root.repo_id);
    const candidates = new Map<number, Member>();
    for (const m of linking) {
      if (!members.has(m.rid) && !copiedRids.has(m.rid)) candidates.set(m.rid, m);
    }
    // What each candidate links to, for all of them in one statement.
    const targets = candidates.size ? await linksFrom(trx, [...candidates.keys()]) : new Map<number, string[]>();
    for (const m of candidates.values()) {
      if ((targets.get(m.rid) ?? []).every((uri) => repositoryOf(uri) === undefined || uris.has(uri))) members.set(m.rid, m);
      else {
        copies.push(m);
        copiedRids.add(m.rid);
      }
    }
  }
  return { members, copies };
}

/**
 * Moves `members` from repository `from` to `to`: their rows (URI, repository, tree columns), then
 * their JSON with every link among them following and links to records left behind dropped, then
 * the links other records hold to them; `copies` are copied into the target first, linking only
 * moved records. Answers the old URI → new URI mapping.
 */
async function move(
  trx: Tx, s: Services, actor: Actor, members: Map<number, Member>, from: number, to: number, copies: Member[],
): Promise<(uri: string) => string> {
  const q = new RecordQueries(trx);
  const prefix = `/repositories/${from}/`;
  const moved = new Map([...members.values()].map((m) => [m.uri, `/repositories/${to}/${m.uri.slice(prefix.length)}`]));
  const newUri = (uri: string) => moved.get(uri) ?? uri;
  const staysLinked = (uri: string) => moved.has(uri) || repositoryOf(uri) === undefined || repositoryOf(uri) === to;
  const rehome = (record: Obj): boolean => {
    const dropped = new Set<string>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') {
        for (const [key, v] of Object.entries(value as Obj)) {
          if (key === 'ref' && typeof v === 'string') {
            if (moved.has(v)) (value as Obj).ref = moved.get(v);
            else if (!staysLinked(v)) dropped.add(v);
          } else if (key === 'uri' && value !== record && typeof v === 'string' && v.startsWith(prefix)) {
            // A subrecord with an address of its own (collection_management) moves with its record.
            (value as Obj).uri = `/repositories/${to}/${v.slice(prefix.length)}`;
          } else if (key !== 'uri' && key !== 'repository' && key !== '_resolved') visit(v);
        }
      }
    };
    visit(record);
    for (const uri of dropped) unlink(record, uri);
    record.uri = newUri(record.uri);
    if (record.repository) record.repository = { ref: `/repositories/${to}` };
    return true;
  };

  const copied: Array<{ type: string; record: Obj }> = [];
  for (const copy of copies) {
    const record = JSON.parse((await q.get(copy.type, copy.id))!.json);
    rehome(record);
    copied.push({ type: copy.type, record });
  }

  const nowMs = Date.now();
  for (const m of members.values()) {
    const parentKey = m.parent_key?.startsWith('root:') ? `root:${newUri(m.parent_key.slice(5))}` : m.parent_key;
    await moveRow(trx, m.rid, { repo_id: to, uri: newUri(m.uri), root_uri: m.root_uri === null ? null : newUri(m.root_uri), parent_key: parentKey });
    await q.appendChange(m.type, m.uri, 'delete', nowMs);
  }
  // Transactions no longer trust what they found to exist by URI.
  noteDeletion();

  const conflicts: Conflicts = {};
  for (const m of members.values()) {
    try {
      await rewriteStored(q, s, m, rehome);
    } catch (err) {
      // A key that must be unique in the target repository (an identifier, a barcode) is taken there.
      if (!(err instanceof ApiError) || err.status !== 400 || typeof err.body.error !== 'object') throw err;
      conflicts[m.uri] = Object.entries(err.body.error as Record<string, string[]>)
        .filter(([path]) => path !== 'conflicting_record')
        .map(([path, messages]) => ({ json_property: path, message: messages[0] }));
    }
  }
  if (Object.keys(conflicts).length) throw errors.transferConflicts(conflicts);

  for (const { type, record } of copied) {
    await createRecord(s, actor, { type: s.registry.type(type), repoId: to }, record, {}, { trx });
  }
  // Links others hold to moved records: followed where the linking record may still link to
  // them (a global record, or one in the target repository), dropped where it may not.
  // Members' own links were rewritten above, so only others' remain.
  for (const link of await q.linksTo([...moved.keys()])) {
    if (members.has(link.rid)) continue;
    const keeps = repositoryOf(link.uri) === undefined || link.repo_id === to;
    await rewriteStored(q, s, link, (record) => (keeps ? repoint(record, link.to_uri, newUri(link.to_uri)) : unlink(record, link.to_uri)));
  }
  return newUri;
}

/** The event of a transfer by the route (ArchivesSpace's custody transfer), when either repository has an agent to name on it. */
async function recordTransferEvent(
  trx: Tx, s: Services, actor: Actor, event: { type: string; event_type: string }, from: number, to: number, uri: string,
): Promise<void> {
  const agentOf = async (repoId: number): Promise<string | undefined> => {
    const json = await new RecordQueries(trx).jsonAt(`/repositories/${repoId}`);
    return json ? JSON.parse(json).agent_representation?.ref : undefined;
  };
  const agents = [{ role: 'transmitter', ref: await agentOf(from) }, { role: 'recipient', ref: await agentOf(to) }].filter((a) => a.ref);
  if (!agents.length) return;
  await createRecord(s, actor, { type: s.registry.type(event.type), repoId: to }, {
    event_type: event.event_type,
    timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    linked_records: [{ role: 'transfer', ref: uri }],
    linked_agents: agents,
  }, {}, { trx });
}
