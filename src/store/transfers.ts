import type { Tx } from './database';
import type { Queryable } from './dialect';

/**
 * The reads and row changes of a transfer of records to another repository (records/transfer.ts):
 * what moves with a record, what links to it, and the columns a move changes.
 */

/** A record taking part in a transfer: its row's columns that the move changes. */
export interface TransferMember {
  rid: number;
  type: string;
  id: number;
  repo_id: number;
  uri: string;
  root_uri: string | null;
  parent_key: string | null;
}

const MEMBER_COLUMNS = ['rid', 'type', 'id', 'repo_id', 'uri', 'root_uri', 'parent_key'];
const IN_R = MEMBER_COLUMNS.map((c) => `r.${c}`);

const member = (row: Record<string, unknown>): TransferMember => ({
  rid: Number(row.rid), type: String(row.type), id: Number(row.id), repo_id: Number(row.repo_id), uri: String(row.uri),
  root_uri: (row.root_uri as string | null) ?? null, parent_key: (row.parent_key as string | null) ?? null,
});

/** The record of `type` and `id` in repository `repoId`, as a member of a transfer. */
export async function transferMemberOf(trx: Tx, type: string, id: number, repoId: number): Promise<TransferMember | undefined> {
  const row = await trx('records').where({ type, id, repo_id: repoId }).first(MEMBER_COLUMNS);
  return row ? member(row) : undefined;
}

/** Every record of a repository but those of the types in `staying`, in row order. */
export async function membersOfRepository(trx: Tx, repoId: number, staying: string[]): Promise<TransferMember[]> {
  return (await trx('records').where({ repo_id: repoId }).whereNotIn('type', staying).orderBy('rid').select(MEMBER_COLUMNS)).map(member);
}

/** The nodes of the trees under the roots at `rootUris`. */
export async function membersInTrees(trx: Tx, rootUris: string[]): Promise<TransferMember[]> {
  return (await trx('records').whereIn('root_uri', rootUris).select(MEMBER_COLUMNS)).map(member);
}

/** Records of `types` in repository `repoId` that the records with row ids `fromRids` link to. */
export async function membersLinkedFrom(trx: Tx, fromRids: number[], types: string[], repoId: number): Promise<TransferMember[]> {
  return (await trx('records as r').join('record_refs as x', 'x.to_uri', 'r.uri')
    .whereIn('x.from_rid', fromRids).whereIn('r.type', types).andWhere('r.repo_id', repoId)
    .distinct(IN_R)).map(member);
}

/** Row ids of the records linking to `uri`, but those of the types in `except`. */
export async function linkingRids(trx: Tx, uri: string, except: string[]): Promise<number[]> {
  return (await trx('records as r').join('record_refs as x', 'x.from_rid', 'r.rid').where('x.to_uri', uri)
    .whereNotIn('r.type', except).distinct('r.rid')).map((r: { rid: number }) => Number(r.rid));
}

/** Records of `types` in repository `repoId` that link to any of `uris`. */
export async function membersLinkingTo(trx: Tx, uris: string[], types: string[], repoId: number): Promise<TransferMember[]> {
  return (await trx('records as r').join('record_refs as x', 'x.from_rid', 'r.rid')
    .whereIn('x.to_uri', uris).whereIn('r.type', types).andWhere('r.repo_id', repoId)
    .distinct(IN_R)).map(member);
}

/** What each of the records with row ids `fromRids` links to, in one statement. */
export async function linksFrom(trx: Tx, fromRids: number[]): Promise<Map<number, string[]>> {
  const targets = new Map<number, string[]>();
  for (const r of await trx('record_refs').whereIn('from_rid', fromRids).select('from_rid', 'to_uri')) {
    const list = targets.get(Number(r.from_rid));
    if (list) list.push(r.to_uri);
    else targets.set(Number(r.from_rid), [r.to_uri]);
  }
  return targets;
}

/** A moved record's row: its repository, URI and tree columns in the target repository. */
export async function moveRow(trx: Tx, rid: number, to: { repo_id: number; uri: string; root_uri: string | null; parent_key: string | null }): Promise<void> {
  await trx('records').where({ rid }).update(to);
}

export type DanglingLinks = {
  count: number;
  examples: Array<{ from: string; to: string }>;
};

/** Links in the store to records it does not hold (tree links aside). */
export async function danglingLinks(db: Queryable): Promise<DanglingLinks> {
  const dangling = db('record_refs as x').leftJoin('records as r', 'r.uri', 'x.to_uri').whereNull('r.rid').andWhere('x.to_uri', 'not like', '%/tree');
  const count = Number((await dangling.clone().count({ n: '*' }).first())?.n ?? 0);
  if (!count) return { count, examples: [] };
  const examples = await dangling.clone().join('records as f', 'f.rid', 'x.from_rid').select('f.uri as from', 'x.to_uri as to').limit(5);
  return { count, examples: examples.map((e: { from: string; to: string }) => ({ from: e.from, to: e.to })) };
}

/** URI and stored JSON of every repository but the one with id `exceptId`. */
export function repositoriesOtherThan(db: Queryable, exceptId: number): Promise<Array<{ uri: string; json: string }>> {
  return db('records').where({ type: 'repository' }).whereNot({ id: exceptId }).select('uri', 'json');
}
