/**
 * Streams records out of the store as JSON lines (format.ts), a page at a time: memory stays
 * the same whatever the size of the repository.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Knex } from 'knex';
import { REPOSITORY_TYPE, type Registry } from '../../registry';
import type { Database } from '../../store/connect';
import type { Progress } from '../output';
import { ExportHeader, FORMAT, FORMAT_VERSION, RecordLine } from './format';

const PAGE = 500;

export type ExportScope = { repoId: number } | { all: true };

interface Row {
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

const COLUMNS = [
  'r.rid', 'r.type', 'r.id', 'r.repo_id', 'r.uri', 'r.json', 'r.lock_version', 'r.create_time_ms', 'r.system_mtime_ms',
  'r.user_mtime_ms', 'r.suppressed', 'r.hidden', 'r.parent_key', 'r.position', 'r.root_uri', 'p.uri as parent_uri',
];

/** One line of the file; the stored JSON goes in as it is, not parsed and written again. */
export function exportLine(row: Row): string {
  const head: Omit<RecordLine, 'record'> = {
    uri: row.uri,
    type: row.type,
    id: Number(row.id),
    repo_id: Number(row.repo_id),
    lock_version: Number(row.lock_version),
    create_time_ms: Number(row.create_time_ms),
    system_mtime_ms: Number(row.system_mtime_ms),
    user_mtime_ms: Number(row.user_mtime_ms),
    suppressed: !!row.suppressed,
    hidden: !!row.hidden,
  };
  if (row.parent_key !== null && row.root_uri !== null) {
    head.tree = { root: row.root_uri, parent: row.parent_uri ?? null, position: Number(row.position) };
  }
  return `${JSON.stringify(head).slice(0, -1)},"record":${row.json}}\n`;
}

function rows(knex: Knex | Knex.Transaction) {
  return knex('records as r').leftJoin('records as p', 'p.rid', 'r.parent_rid');
}

/**
 * The uris a repository's records link to outside it, followed through global records (a
 * subject's vocabulary, an agent's related agents): what the repository needs to make sense.
 * Other repositories' records are never followed into.
 */
function linkedGlobals(registry: Registry, repoId: number) {
  const scoped = Object.values(registry.types).filter((t) => t.uri && t.scope === 'repository').map((t) => t.name);
  const global = Object.values(registry.types).filter((t) => t.uri && t.scope === 'global' && t.name !== 'repository').map((t) => t.name);
  const marks = (list: string[]) => list.map(() => '?').join(',');
  const sql = `WITH RECURSIVE linked(uri) AS (
       SELECT x.to_uri FROM record_refs x JOIN records s ON s.rid = x.from_rid
        WHERE (s.repo_id = ? AND s.type IN (${marks(scoped)})) OR s.uri = ?
       UNION
       SELECT x.to_uri FROM linked l JOIN records s ON s.uri = l.uri JOIN record_refs x ON x.from_rid = s.rid
        WHERE s.type IN (${marks(global)})
     ) SELECT uri FROM linked`;
  return { global, scoped, sql, bindings: [repoId, ...scoped, `/repositories/${repoId}`, ...global] };
}

/**
 * Writes the export of `scope` to `out`: the repository record, its repository-scoped records,
 * then the global records they link to; or with `all`, every record in the store.
 */
export async function exportRecords(
  db: Database, registry: Registry, scope: ExportScope, out: Writable, onProgress?: (p: Progress) => void,
): Promise<{ records: number }> {
  // One read transaction: a consistent snapshot even while the server keeps writing.
  return db.knex.transaction((trx) => exportFrom(trx, registry, scope, out, onProgress));
}

async function exportFrom(
  knex: Knex.Transaction, registry: Registry, scope: ExportScope, out: Writable, onProgress?: (p: Progress) => void,
): Promise<{ records: number }> {
  const phases: Array<() => Knex.QueryBuilder> = [];
  let total: number;
  let repository: string | undefined;
  if ('all' in scope) {
    total = Number((await knex('records').count({ n: '*' }).first())?.n ?? 0);
    phases.push(() => rows(knex));
  } else {
    repository = `/repositories/${scope.repoId}`;
    const repo = await knex('records').where({ uri: repository, type: REPOSITORY_TYPE }).first('rid');
    if (!repo) throw new Error(`there is no repository ${repository} in this store`);
    const { global, scoped, sql, bindings } = linkedGlobals(registry, scope.repoId);
    const inRepo = () => rows(knex).where('r.repo_id', scope.repoId).whereIn('r.type', scoped);
    const linked = () => rows(knex).whereRaw(`r.uri IN (${sql})`, bindings).whereIn('r.type', global);
    const count = async (q: Knex.QueryBuilder) => Number((await q.clearSelect().count({ n: '*' }).first())?.n ?? 0);
    total = 1 + (await count(inRepo())) + (await count(linked()));
    phases.push(() => rows(knex).where('r.uri', repository!), inRepo, linked);
  }

  const header: ExportHeader = { format: FORMAT, version: FORMAT_VERSION, exported_at: new Date().toISOString(), records: total };
  if (repository) header.repository = repository;
  else header.all = true;
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${JSON.stringify(header)}\n`);

  let done = 0;
  onProgress?.({ done, total });
  for (const phase of phases) {
    // Keyset paging on rid: each page is an index range, however far into the table it is.
    for (let after = 0; ;) {
      const page: Row[] = await phase().where('r.rid', '>', after).orderBy('r.rid').limit(PAGE).select(COLUMNS);
      for (const row of page) await write(exportLine(row));
      done += page.length;
      onProgress?.({ done, total: Math.max(total, done) });
      if (page.length < PAGE) break;
      after = Number(page[page.length - 1].rid);
    }
  }
  return { records: done };
}
