import type { Database } from './database';
import type { Queryable } from './dialect';
import { showingClause, showingRecordsAs } from './connect';
import type { TreeColumns } from './visibility';

/** What the implied publication of linked records (records/implied-publication.ts) asks the store. */

/** Ids of the repositories whose record is marked unpublished. */
export async function unpublishedRepositoryIds(db: Queryable): Promise<number[]> {
  return (await db('records').where('type', 'repository').select('id', 'json'))
    .filter((repo: { json: string }) => JSON.parse(repo.json).publish === false)
    .map((repo: { id: number }) => Number(repo.id));
}

/**
 * For each `[uri, after]` of `open`, the next `limit` records linking to `uri` past row id `after`,
 * in rid order along the (to_uri, from_rid) index: those of the `publishable` types, published
 * and unsuppressed, outside the `hiddenRepos`. One statement per 50 URIs.
 */
export async function publishedLinkers(
  db: Queryable, database: Database, open: Array<[string, number]>, publishable: string[], hiddenRepos: number[], limit: number,
): Promise<Array<{ to_uri: string; rid: number }>> {
  const page: Array<{ to_uri: string; rid: number }> = [];
  for (let i = 0; i < open.length; i += 50) {
    const next = (uri: string, from: number) => db('record_refs as x').join(showingRecordsAs(database, 'r'), 'r.rid', 'x.from_rid')
      .where('x.to_uri', uri).andWhere('x.from_rid', '>', from).whereIn('r.type', publishable).where('r.suppressed', false)
      .whereNotIn('r.repo_id', hiddenRepos)
      // Published ones only, decided by the store: an agent linked by thousands of unpublished
      // records costs one index range read there, not their JSON parsed here.
      .andWhereRaw(showingClause(database, 'r'))
      .orderBy('x.from_rid').limit(limit).select('x.to_uri', 'x.from_rid as rid');
    const [first, ...rest] = open.slice(i, i + 50);
    const query = db.select('*').from(next(...first).as('p0'));
    rest.forEach(([uri, from], k) => query.unionAll(db.select('*').from(next(uri, from).as(`p${k + 1}`))));
    page.push(...(await query));
  }
  return page;
}

/** The tree columns of the records with row ids `rids`. */
export function treeColumnsOf(db: Queryable, rids: number[]): Promise<Array<TreeColumns & { rid: number }>> {
  return db('records').whereIn('rid', rids).select('rid', 'parent_rid', 'root_uri');
}
