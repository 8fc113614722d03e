/**
 * The export file: JSON lines. The first line describes the export; every other line is one
 * record with its uri, the store's system columns (so that timestamps and lock_version survive a
 * move) and its place in a tree. `record` is the stored JSON, byte for byte.
 */
export const FORMAT = 'archive-records-export';
export const FORMAT_VERSION = 1;

export interface ExportHeader {
  format: typeof FORMAT;
  version: number;
  /** `/repositories/N` for a repository export; absent with `all`. */
  repository?: string;
  all?: boolean;
  exported_at: string;
  /** How many record lines follow (for progress). */
  records: number;
}

export interface TreePlace {
  root: string;
  /** The parent node's uri; null at the top level of the tree. */
  parent: string | null;
  /** The physical (gapped) position among siblings: the same order is kept on import. */
  position: number;
}

export interface RecordLine {
  uri: string;
  type: string;
  id: number;
  repo_id: number;
  lock_version: number;
  create_time_ms: number;
  system_mtime_ms: number;
  user_mtime_ms: number;
  suppressed: boolean;
  hidden: boolean;
  tree?: TreePlace;
  record: Record<string, unknown>;
}
