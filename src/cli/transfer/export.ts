/**
 * Streams records out of the store as JSON lines (format.ts), a page at a time: memory stays
 * the same whatever the size of the repository.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { REPOSITORY_TYPE, type Registry } from '../../registry';
import type { Database, Tx } from '../../store/database';
import { type ExportPhase, type ExportRow, repositoryExport, wholeStoreExport } from '../../store/exports';
import { transactionOnce } from '../../store/transactions';
import type { Progress } from '../output';
import { ExportHeader, FORMAT, FORMAT_VERSION, RecordLine } from './format';

const PAGE = 500;

export type ExportScope = { repoId: number } | { all: true };

/** One line of the file; the stored JSON goes in as it is, not parsed and written again. */
export function exportLine(row: ExportRow): string {
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

/**
 * Writes the export of `scope` to `out`: the repository record, its repository-scoped records,
 * then the global records they link to; or with `all`, every record in the store.
 */
export async function exportRecords(
  db: Database, registry: Registry, scope: ExportScope, out: Writable, onProgress?: (p: Progress) => void,
): Promise<{ records: number }> {
  // One read transaction: a consistent snapshot even while the server keeps writing.
  return transactionOnce(db, (trx) => exportFrom(trx, registry, scope, out, onProgress));
}

async function exportFrom(
  trx: Tx, registry: Registry, scope: ExportScope, out: Writable, onProgress?: (p: Progress) => void,
): Promise<{ records: number }> {
  let phases: ExportPhase[];
  let total: number;
  let repository: string | undefined;
  if ('all' in scope) {
    ({ total, phases } = await wholeStoreExport(trx));
  } else {
    repository = `/repositories/${scope.repoId}`;
    // What the repository needs to make sense: its records, and the global records they link to.
    const scoped = Object.values(registry.types).filter((t) => t.uri && t.scope === 'repository').map((t) => t.name);
    const global = Object.values(registry.types).filter((t) => t.uri && t.scope === 'global' && t.name !== REPOSITORY_TYPE).map((t) => t.name);
    const found = await repositoryExport(trx, scope.repoId, scoped, global);
    if (!found) throw new Error(`there is no repository ${repository} in this store`);
    ({ total, phases } = found);
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
      const page = await phase(after, PAGE);
      for (const row of page) await write(exportLine(row));
      done += page.length;
      onProgress?.({ done, total: Math.max(total, done) });
      if (page.length < PAGE) break;
      after = Number(page[page.length - 1].rid);
    }
  }
  return { records: done };
}
