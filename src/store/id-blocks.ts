import type { Knex } from 'knex';

/**
 * Ids a process holds for the creates it runs on MySQL (issue 51 item 2): taken from a type's
 * sequence PROCESS_ID_BLOCK at a time, one autocommitted statement per block instead of one per
 * create (a round trip of every create before). Each process (WORKERS, each node of a Galera
 * cluster) takes blocks of its own from the one sequence row, so two never hold the same id; ids
 * are increasing within a process, not across processes, and those a process held when it
 * stopped are never used (ids need not be contiguous, as with AUTO_INCREMENT's gaps). A record
 * created with a fixed id (an import with identity) may take one a process holds: the create
 * given it then fails on the records' unique key and runs again with an id taken inside its
 * transaction, and the process drops the block (records/write.ts createRecord).
 */
export const PROCESS_ID_BLOCK = 100;

interface Block {
  next: number;
  last: number;
}

class ProcessIds {
  private blocks = new Map<string, Block>();

  /** The next id of `type`; `take(n)` takes n more from the sequence and answers the last of them. */
  async next(type: string, take: (n: number) => Promise<number>): Promise<number> {
    const held = this.blocks.get(type);
    if (held && held.next <= held.last) return held.next++;
    const last = await take(PROCESS_ID_BLOCK);
    const first = last - PROCESS_ID_BLOCK + 1;
    // Two creates that found the block used up take a block each: the rest of the one that comes
    // back second is kept only if the first's is used up already (else left unused: a gap).
    const now = this.blocks.get(type);
    if (!now || now.next > now.last) this.blocks.set(type, { next: first + 1, last });
    return first;
  }

  drop(type: string): void {
    this.blocks.delete(type);
  }
}

/** Per store, by its Knex client's config (a transaction's client shares it: what the store's transactions take is known where they take it). */
const perStore = new WeakMap<object, ProcessIds>();

/** The ids this process holds for creates on a store (one set per store: a test's fresh store starts with none). */
export function processIds(knex: Knex | Knex.Transaction): ProcessIds {
  let ids = perStore.get(knex.client.config);
  if (!ids) perStore.set(knex.client.config, (ids = new ProcessIds()));
  return ids;
}

/**
 * A transaction of this process took ids of `type` from the sequence itself (an import, a batch, a
 * fixed id): the block held is dropped, so that the next create's id comes after them, as before
 * blocks (ids of one process keep increasing; those of the block dropped are never used).
 */
export function idsTakenInTransaction(trx: Knex | Knex.Transaction, type: string): void {
  perStore.get(trx.client.config)?.drop(type);
}
