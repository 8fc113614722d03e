import type { Actor, Services } from '../../records/context';

/**
 * The contract between the importers (one per format) and what runs them: the job runner
 * (src/jobs) and the `archive-records import-file` verb. An importer reads one file and writes
 * everything it holds all or nothing (session.ts importFile: one transaction, or chunks published
 * together): a file that fails writes nothing.
 */

/** One uploaded or named file, already on disk. */
export interface ImportInput {
  path: string;
  /** The name the user gave the file (for the log and the report). */
  name: string;
  /**
   * The job's import options: ArchivesSpace's import_events and import_subjects ("1" when chosen;
   * marcxml_auth_agent reads them) and untitled_components (ead_xml).
   */
  options?: Record<string, unknown>;
}

/** Where an importer reports as it goes. */
export interface ImportOutput {
  /** A line of the job's log (a warning names a tolerance: what was odd and what was done about it). */
  log(level: 'info' | 'warning' | 'error', message: string): void;
  /** Records written so far, out of an estimate when the importer knows one. */
  progress(done: number, total?: number): void;
  /** Aborted when the job is canceled: the importer stops and its transaction rolls back. */
  signal?: AbortSignal;
  /**
   * Where the importer may write in chunks (importInChunks): the job the records are pending for
   * until they are published together, and how long one chunk holds the writer. Absent: one transaction.
   */
  chunks?: { job: number; chunkMs: number };
}

export interface ImportReport {
  file: string;
  /** URIs of the records the file created, in the order written. */
  created: string[];
  /** How many records of each type were created (resource, archival_object, top_container, subject, agent_person...). */
  counts: Record<string, number>;
  warnings: string[];
}

export interface Importer {
  /** The `import_type` of the job (ArchivesSpace's names: ead_xml, marcxml, eac_xml, accession_csv...). */
  type: string;
  /** ArchivesSpace's description of the type: GET /repositories/:repo_id/jobs/import_types answers it as `description`. */
  label: string;
  run(s: Services, repoId: number, actor: Actor, input: ImportInput, out: ImportOutput): Promise<ImportReport>;
}

/** A file that cannot be imported; the message names the file and the element path or CSV line. */
export class ImportFailed extends Error {}
