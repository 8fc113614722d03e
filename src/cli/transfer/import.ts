/**
 * Writes an export (format.ts) back into a store, keeping every record's id, uri, JSON,
 * lock_version and timestamps (write.ts says how, and what is derived on the way).
 *
 * One transaction: an import that fails part-way leaves the store as it was. Lines are read one
 * at a time; memory holds only the tree nodes whose parent comes later in the file (usually none).
 */
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import type { Services } from '../../records/context';
import type { TypeInfo } from '../../registry';
import type { Progress } from '../output';
import { ExportHeader, FORMAT, FORMAT_VERSION, RecordLine, TreePlace } from './format';
import { type DanglingLinks, danglingLinks } from '../../store/transfers';
import { transactionOnce } from '../../store/transactions';
import { RecordWriter, WriteRefused } from './write';

export interface ImportOptions {
  /** Overwrite records that already exist (by uri) instead of refusing or keeping them. */
  replace?: boolean;
}

export interface ImportSummary {
  /** What the file says it holds. */
  source: { repository?: string; all?: boolean; exported_at: string };
  imported: number;
  replaced: number;
  /** Installation-wide records that existed already and were left as they were. */
  kept: number;
  by_type: Record<string, number>;
  /** Links in the store to records that are in neither the file nor the store. */
  dangling_links: DanglingLinks;
}

/** A problem with the file or with what it would do to the store; `line` is 1-based. */
export class ImportError extends Error {
  constructor(message: string, readonly line?: number) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}

const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

function checkLine(s: Services, raw: unknown, n: number): { line: RecordLine; type: TypeInfo } {
  const line = raw as RecordLine;
  if (typeof line !== 'object' || line === null || Array.isArray(line)) throw new ImportError('not a record line', n);
  const type = s.registry.types[line.type];
  if (!type?.uri) throw new ImportError(`unknown record type ${JSON.stringify(line.type)}`, n);
  if (!Number.isSafeInteger(line.id) || line.id < 1) throw new ImportError(`bad id ${JSON.stringify(line.id)}`, n);
  for (const field of ['repo_id', 'lock_version', 'create_time_ms', 'system_mtime_ms', 'user_mtime_ms'] as const) {
    if (!isCount(line[field])) throw new ImportError(`bad ${field} ${JSON.stringify(line[field])}`, n);
  }
  // The uri is the record's address everywhere (links, the index): it must be the one its type, id and repository give.
  const expected = `${type.uri.replace(':repo_id', String(line.repo_id))}/${line.id}`;
  const repoOk = type.scope === 'repository' ? line.repo_id >= 1 : line.repo_id === 0;
  if (line.uri !== expected || !repoOk) throw new ImportError(`uri ${JSON.stringify(line.uri)} does not match ${line.type} ${line.id} in repository ${line.repo_id}`, n);
  const record = line.record;
  if (typeof record !== 'object' || record === null || Array.isArray(record) || record.uri !== line.uri || record.jsonmodel_type !== line.type) {
    throw new ImportError(`record of ${line.uri} is missing or names another uri or type`, n);
  }
  if (line.tree !== undefined) {
    const t = line.tree as TreePlace;
    if (typeof t?.root !== 'string' || !(t.parent === null || typeof t.parent === 'string') || !Number.isSafeInteger(t.position)) {
      throw new ImportError(`bad tree place of ${line.uri}`, n);
    }
  }
  return { line, type };
}

export async function importRecords(
  s: Services, input: Readable, options: ImportOptions = {}, onProgress?: (p: Progress) => void,
): Promise<ImportSummary> {
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  const iterator = lines[Symbol.asyncIterator]();
  let n = 0;
  const next = async (): Promise<string | undefined> => {
    for (;;) {
      const r = await iterator.next();
      if (r.done) return undefined;
      n++;
      if (r.value.trim()) return r.value;
    }
  };
  const parse = (text: string) => {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ImportError(`not JSON: ${(err as Error).message}`, n);
    }
  };

  const first = await next();
  if (first === undefined) throw new ImportError('the input is empty');
  const header = parse(first) as ExportHeader;
  if (header?.format !== FORMAT) throw new ImportError(`not an ${FORMAT} file (its first line has no "format": "${FORMAT}")`, n);
  if (header.version !== FORMAT_VERSION) throw new ImportError(`export format version ${header.version}; this program reads version ${FORMAT_VERSION}`, n);
  const total = Number(header.records) || 0;

  const summary: ImportSummary = {
    source: { ...(header.repository ? { repository: header.repository } : { all: true }), exported_at: header.exported_at },
    imported: 0, replaced: 0, kept: 0, by_type: {}, dangling_links: { count: 0, examples: [] },
  };
  const writer = new RecordWriter(s, options.replace ? 'replace' : 'refuse');

  await transactionOnce(s.db, async (trx) => {
    let done = 0;
    onProgress?.({ done, total });
    for (let text = await next(); text !== undefined; text = await next()) {
      const { line, type } = checkLine(s, parse(text), n);
      let written;
      try {
        written = await writer.write(trx, line, type);
      } catch (err) {
        throw err instanceof WriteRefused ? new ImportError(err.message, n) : err;
      }
      if (written === 'kept') summary.kept++;
      else {
        summary[written === 'replaced' ? 'replaced' : 'imported']++;
        summary.by_type[line.type] = (summary.by_type[line.type] ?? 0) + 1;
      }
      done++;
      onProgress?.({ done, total: Math.max(total, done) });
    }
    const orphans = writer.orphans();
    if (orphans) {
      throw new ImportError(`${orphans.count} tree parent(s) are in neither the file nor the store, e.g. ${orphans.parent} (parent of ${orphans.children} node(s))`);
    }
    // New records get ids above the imported ones.
    await writer.reserveIds(trx);
    summary.dangling_links = await danglingLinks(trx);
  });
  return summary;
}
