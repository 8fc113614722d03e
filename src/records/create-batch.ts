import type { Tx } from '../store/database';
import type { ErrorMap } from '../errors';
import type { Obj } from '../json';
import { RecordQueries } from '../store/records';
import { transactionMemo } from '../store/transaction-memo';
import { letEventLoopTurn } from '../event-loop';
import type { Actor, Services, Where } from './context';
import { applyGenerated } from './generated';
import { checkRefs, collectRefs } from './refs';
import { checkRepositoryScope, finishCreate, type PendingCreate, prepareCreate, type WriteResult } from './write';

/**
 * Creates records of one type in `trx`, in order, as createRecord does one by one, their rows
 * inserted a hundred a statement (CreateBatch): on MySQL one round trip per record fewer (a batch
 * of children).
 */
export async function createRecords(s: Services, actor: Actor, where: Where, bodies: Obj[], trx: Tx): Promise<WriteResult[]> {
  checkRepositoryScope(where);
  const batch = new CreateBatch(s, actor, trx);
  const results: WriteResult[] = [];
  for (const body of bodies) {
    // A hundred records' validation, keys and derived rows run long: the event loop turns between them (updateRecords).
    await letEventLoopTurn();
    await batch.add(where, body, {});
    if (batch.full) await batch.flush(results);
  }
  return batch.flush(results);
}

/** Rows of records a CreateBatch inserts in one statement at most. */
const INSERTED_TOGETHER = 100;

/**
 * Creates in `trx` whose rows are inserted together, up to a hundred a statement
 * (RecordQueries.insertAll), each as createRecord makes it. A record is prepared when it is added:
 * its id and URI, the type's beforeSave, its place in its tree and its links checked, so that what
 * refuses it is thrown by add() (createRecord's errors); its row, keys, links, hooks after the
 * save and change-log entry are written by flush(), in the order added. A tree node may be placed
 * under a parent added before it (a sheet's row under the row above it): it is placed from the
 * transaction's memo under the parent's stand-in row id (RecordQueries.notePending). Each add
 * reads nothing of the records pending before it but where the memo keeps it; without a memo
 * (a nested transaction) records go one by one. The caller flushes when `full` and at its end.
 */
export class CreateBatch {
  private pending: PendingCreate[] = [];
  /** The URIs of what is pending. */
  private readonly uris = new Set<string>();
  private readonly q: RecordQueries;

  constructor(private readonly s: Services, private readonly actor: Actor, private readonly trx: Tx) {
    this.q = new RecordQueries(trx);
  }

  get full(): boolean {
    return this.pending.length >= (transactionMemo(this.trx) ? INSERTED_TOGETHER : 1);
  }

  get size(): number {
    return this.pending.length;
  }

  /**
   * Whether a create of `body` elsewhere (createRecord) must wait for what is pending: it links
   * to a pending record, or it is a tree node (its place may be among them).
   */
  mustGoFirst(where: Where, body: Obj): boolean {
    return this.pending.length > 0 && (!!where.type.tree || collectRefs(this.s.registry, where.type.name, body).some((r) => this.uris.has(r.uri)));
  }

  /** Prepares a create (throws what createRecord would before its insert); answers its URI. */
  async add(where: Where, body: Obj, warnings: ErrorMap): Promise<string> {
    checkRepositoryScope(where);
    const parent = where.type.tree ? (body[where.type.tree.parentProperty] as Obj | undefined)?.ref : undefined;
    // Placed between siblings pending with it, a node would need their places from the store; and
    // without a memo nothing pending is found: what is pending is inserted first.
    const waiting = parent !== undefined && this.uris.has(parent);
    if (this.pending.length && ((waiting && body.position !== undefined) || !transactionMemo(this.trx))) await this.flush();
    applyGenerated(this.s.registry, where.type.name, body);
    const prepared = await prepareCreate(this.q, this.trx, this.s, this.actor, where, body, warnings, {});
    const uri = prepared.record.uri as string;
    // Links to records pending here are not looked for: they are inserted first.
    const refs = collectRefs(this.s.registry, where.type.name, prepared.record).filter((r) => !this.uris.has(r.uri));
    await checkRefs(this.q, this.s.registry, refs, where.type.scope === 'repository' ? where.repoId : undefined, uri);
    this.q.notePending(prepared.row, prepared.place);
    this.pending.push(prepared);
    this.uris.add(uri);
    return uri;
  }

  /**
   * Inserts what is pending and finishes each create, in order: answers `results` with each one's
   * result added (where a create is refused, those before it are there, as far as they got).
   */
  async flush(results: WriteResult[] = []): Promise<WriteResult[]> {
    const pending = this.pending;
    if (!pending.length) return results;
    this.pending = [];
    this.uris.clear();
    const rids = await this.q.insertAll(pending.map((p) => ({ row: p.row, place: p.place })));
    for (let i = 0; i < pending.length; i++) {
      await letEventLoopTurn();
      results.push(await finishCreate(this.q, this.trx, this.s, this.actor, pending[i], rids[i], true));
    }
    return results;
  }
}
