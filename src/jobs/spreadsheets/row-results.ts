/**
 * The rows' outcomes for a spreadsheet job's results file (as ArchivesSpace writes one): each row's
 * record, then each of its problems. A sheet of 50,000 rows has 50,000 outcomes, so they go to a
 * scratch file as the rows are read, not into memory, and the results file is streamed from it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import type { Problems } from './sheet';

/** A row's outcome, for the results file. */
export interface RowResult {
  row: number;
  uri?: string;
  title?: string;
  ref_id?: string;
}

/** Bytes of lines kept before they are written to the scratch file. */
const BUFFERED = 64 * 1024;

const cell = (v: unknown) => {
  const text = v === undefined ? '' : String(v);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export class RowResults {
  private count = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private file?: { dir: string; path: string; fd: number };

  /** How many rows have an outcome. */
  get length(): number {
    return this.count;
  }

  push(result: RowResult): void {
    // One line of the scratch file a row: its number (the results file finds the row's problems by
    // it), then its line of the results file as JSON (a title may hold line breaks).
    const line = `${result.row} ${JSON.stringify([result.row, result.title, result.uri, result.ref_id, ''].map(cell).join(','))}`;
    this.count++;
    this.pending.push(line);
    this.pendingBytes += line.length + 1;
    if (this.pendingBytes >= BUFFERED) this.writePending();
  }

  /** The results file: a header, each row's line followed by its problems, then the problems of rows that have no outcome (in the order found). */
  csv(problems: Problems): Readable {
    this.writePending();
    const byRow = new Map<number, string[]>();
    for (const p of problems.all) {
      const line = [p.row, '', '', '', `${p.severity === 'error' ? 'error' : 'left out'}${p.column ? ` (${p.column})` : ''}: ${p.message}`].map(cell).join(',');
      const list = byRow.get(p.row);
      if (list) list.push(line);
      else byRow.set(p.row, [line]);
    }
    const file = this.file;
    async function* lines(): AsyncGenerator<string> {
      yield `${['row', 'title', 'uri', 'ref_id', 'problem'].join(',')}\r\n`;
      if (file) {
        const input = fs.createReadStream(file.path, { encoding: 'utf8' });
        for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
          const space = line.indexOf(' ');
          const number = Number(line.slice(0, space));
          yield `${JSON.parse(line.slice(space + 1)) as string}\r\n`;
          for (const message of byRow.get(number) ?? []) yield `${message}\r\n`;
          byRow.delete(number);
        }
      }
      for (const messages of byRow.values()) for (const m of messages) yield `${m}\r\n`;
    }
    // Handed on 64 KB at a time: a write (and a turn of the event loop) per line made a file of
    // 50,000 rows take over a minute beside the indexer's work on the sheet's records.
    async function* chunks(): AsyncGenerator<string> {
      let text = '';
      for await (const line of lines()) {
        text += line;
        if (text.length < BUFFERED) continue;
        yield text;
        text = '';
      }
      if (text) yield text;
    }
    return Readable.from(chunks());
  }

  /** Removes the scratch file. */
  remove(): void {
    if (!this.file) return;
    fs.closeSync(this.file.fd);
    fs.rmSync(this.file.dir, { recursive: true, force: true });
    this.file = undefined;
  }

  private writePending(): void {
    if (!this.pending.length) return;
    if (!this.file) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheet-results-'));
      const file = path.join(dir, 'results.csv');
      this.file = { dir, path: file, fd: fs.openSync(file, 'w') };
    }
    fs.writeSync(this.file.fd, `${this.pending.join('\n')}\n`);
    this.pending = [];
    this.pendingBytes = 0;
  }
}
