/**
 * A pdfkit document's output handed to an async `write`. pdfkit emits a chunk per part of each
 * object and, at the end, one per line of the cross-reference table (145,000 for a 100,000-row
 * report, all at once). The chunks queue here and are written together while the write before
 * them is under way, not as a promise and a write each: a chain of 145,000 held 40 MB at the end
 * of such a report.
 */
import type { EventEmitter } from 'node:events';

export interface PdfOutput {
  /** Waits until every chunk emitted so far is written; throws the write's error if one failed. */
  drain(): Promise<void>;
  /** Resolves when the document has emitted its last chunk (after `doc.end()`). */
  ended: Promise<void>;
}

export function pdfOutput(doc: EventEmitter, write: (chunk: Buffer) => Promise<void>): PdfOutput {
  let queued: Buffer[] = [];
  let queuedBytes = 0;
  let writing: Promise<void> | undefined;
  let failed: unknown;
  const pump = async () => {
    try {
      while (queued.length) {
        const chunk = queued.length === 1 ? queued[0] : Buffer.concat(queued, queuedBytes);
        queued = [];
        queuedBytes = 0;
        await write(chunk);
      }
    } catch (err) {
      failed = err;
      queued = [];
    }
    // No await since the queue was last seen empty: a chunk that comes later starts a new pump.
    writing = undefined;
  };
  doc.on('data', (chunk: Buffer) => {
    if (failed) return;
    queued.push(chunk);
    queuedBytes += chunk.length;
    writing ??= pump();
  });
  return {
    ended: new Promise<void>((resolve) => doc.on('end', () => resolve())),
    async drain() {
      while (writing) await writing;
      if (failed) throw failed;
    },
  };
}
