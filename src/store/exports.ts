import type { Tx } from './database';
import type { Queryable } from './dialect';
import { visibleArgs } from './pending';

/** The rows of an export (cli/transfer/export.ts): whole records with their tree place, a page at a time. */

export interface ExportRow {
  rid: number | string;
  type: string;
  id: number | string;
  repo_id: number | string;
  uri: string;
  json: string;
  lock_version: number | string;
  create_time_ms: number | string;
  system_mtime_ms: number | string;
  user_mtime_ms: number | string;
  suppressed: number | boolean;
  hidden: number | boolean;
  parent_key: string | null;
  position: number | string | null;
  root_uri: string | null;
  parent_uri: string | null;
}

/** One part of an export: the next `limit` rows past row id `afterRid`, in row order (keyset paging: each page an index range). */
export type ExportPhase = (afterRid: number, limit: number) => Promise<ExportRow[]>;

const COLUMNS = [
  'r.rid', 'r.type', 'r.id', 'r.repo_id', 'r.uri', 'r.json', 'r.lock_version', 'r.create_time_ms', 'r.system_mtime_ms',
  'r.user_mtime_ms', 'r.suppressed', 'r.hidden', 'r.parent_key', 'r.position', 'r.root_uri', 'p.uri as parent_uri',
];

function rows(db: Queryable) {
  return db('records as r').whereRaw(...visibleArgs(db, 'r')).leftJoin('records as p', 'p.rid', 'r.parent_rid');
}

function phaseOf(query: () => ReturnType<typeof rows>): ExportPhase {
  return (afterRid, limit) => query().where('r.rid', '>', afterRid).orderBy('r.rid').limit(limit).select(COLUMNS);
}

/** Every record in the store: how many, and one phase. */
export async function wholeStoreExport(trx: Tx): Promise<{ total: number; phases: ExportPhase[] }> {
  const total = Number((await trx('records').whereRaw(...visibleArgs(trx)).count({ n: '*' }).first())?.n ?? 0);
  return { total, phases: [phaseOf(() => rows(trx))] };
}

/**
 * A repository's export: its record, its records of the `scoped` types, then the records of the
 * `global` types they link to, followed through global records (a subject's vocabulary, an
 * agent's related agents), never into other repositories' records. Undefined when there is no
 * such repository.
 */
export async function repositoryExport(
  trx: Tx, repoId: number, scoped: string[], global: string[],
): Promise<{ total: number; phases: ExportPhase[] } | undefined> {
  const repository = `/repositories/${repoId}`;
  if (!(await trx('records').where({ uri: repository }).first('rid'))) return undefined;
  const marks = (list: string[]) => list.map(() => '?').join(',');
  const sql = `WITH RECURSIVE linked(uri) AS (
       SELECT x.to_uri FROM record_refs x JOIN records s ON s.rid = x.from_rid
        WHERE (s.repo_id = ? AND s.type IN (${marks(scoped)})) OR s.uri = ?
       UNION
       SELECT x.to_uri FROM linked l JOIN records s ON s.uri = l.uri JOIN record_refs x ON x.from_rid = s.rid
        WHERE s.type IN (${marks(global)})
     ) SELECT uri FROM linked`;
  const bindings = [repoId, ...scoped, repository, ...global];
  const inRepo = () => rows(trx).where('r.repo_id', repoId).whereIn('r.type', scoped);
  const linked = () => rows(trx).whereRaw(`r.uri IN (${sql})`, bindings).whereIn('r.type', global);
  const count = async (q: ReturnType<typeof rows>) => Number((await q.clearSelect().count({ n: '*' }).first())?.n ?? 0);
  const total = 1 + (await count(inRepo())) + (await count(linked()));
  return { total, phases: [phaseOf(() => rows(trx).where('r.uri', repository)), phaseOf(inRepo), phaseOf(linked)] };
}
