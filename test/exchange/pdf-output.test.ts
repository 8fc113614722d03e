import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { pdfOutput } from '../../src/exchange/export/pdf-output';

describe('PDF output (pdfkit chunks to an async write)', () => {
  it('writes every chunk in order, gathered while a write is under way, and the PDF reads back', async () => {
    const doc = new PDFDocument({ size: 'LETTER' });
    const written: Buffer[] = [];
    // A slow writer, as a file or a socket under load: the chunks emitted meanwhile wait in the queue.
    const write = async (chunk: Buffer) => {
      await new Promise((r) => setTimeout(r, 1));
      written.push(chunk);
    };
    const { drain, ended } = pdfOutput(doc, write);
    let emitted = 0;
    doc.on('data', () => emitted++);
    for (let page = 0; page < 60; page++) {
      if (page) doc.addPage();
      doc.text(`Page ${page + 1}: ${'Accession '.repeat(40)}`);
    }
    doc.end();
    await ended;
    await drain();
    // The end alone emits a chunk per cross-reference line (a few per page): far fewer writes than chunks.
    assert.ok(emitted > 200, `${emitted} chunks`);
    assert.ok(written.length < emitted / 10, `${written.length} writes for ${emitted} chunks`);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-output-')), 'out.pdf');
    fs.writeFileSync(file, Buffer.concat(written));
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    assert.match(text, /Page 1: Accession/);
    assert.match(text, /Page 60: Accession/);
    assert.equal(execFileSync('pdfinfo', [file], { encoding: 'utf8' }).match(/Pages:\s+(\d+)/)?.[1], '60');
  });

  it('answers a failed write at drain, and writes nothing after it', async () => {
    const doc = new PDFDocument();
    let writes = 0;
    const { drain, ended } = pdfOutput(doc, async () => {
      writes++;
      await new Promise((r) => setTimeout(r, 1));
      throw new Error('disk full');
    });
    for (let page = 0; page < 20; page++) doc.addPage().text(`Page ${page}`);
    doc.end();
    await ended;
    await assert.rejects(drain(), /disk full/);
    await assert.rejects(drain(), /disk full/);
    assert.equal(writes, 1);
  });
});
