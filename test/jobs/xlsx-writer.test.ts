import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { readXlsx } from '../../src/jobs/spreadsheets/xlsx';
import { stylesPart, textCell, WorkbookWriter, worksheetEnd, worksheetStart, xmlText } from '../../src/jobs/spreadsheets/xlsx-writer';
import { crc32 } from '../../src/jobs/spreadsheets/zip-writer';
import { zipEntries, zipEntryStream } from '../../src/jobs/spreadsheets/zip';

const DIRECTORY = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

const STYLES = stylesPart(['<sz val="11"/><name val="Calibri"/>'], ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>',
  '<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1" applyProtection="1"><protection locked="0"/></xf>']);

/** A workbook of `rows` (text cells, style 1) written through WorkbookWriter into memory. */
async function workbookOf(rows: string[][], send?: (chunk: Buffer) => Promise<void>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const book = new WorkbookWriter(send ?? (async (c) => { chunks.push(c); }), ['Data', 'Other'], STYLES);
  await book.begin();
  const sheet = await book.sheet(0);
  sheet.write(worksheetStart({ frozen: { columns: 1, rows: 1 }, widths: [20, undefined] }));
  for (let r = 0; r < rows.length; r++) {
    sheet.write(`<row r="${r + 1}">${rows[r].map((v, c) => textCell(`${String.fromCharCode(65 + c)}${r + 1}`, 1, v)).join('')}</row>`);
    if (sheet.full) await sheet.flush();
  }
  sheet.write(worksheetEnd({ protection: 'sort="0"', lists: [{ range: 'A2:A3', formula: 'Other!$A$1:$A$2' }] }));
  await sheet.close();
  const other = await book.sheet(1);
  other.write(worksheetStart({}) + worksheetEnd({}));
  await other.close();
  await book.end();
  return Buffer.concat(chunks);
}

describe('the streaming XLSX writer (xlsx-writer.ts, zip-writer.ts)', function () {
  this.timeout(60_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xlsx-writer-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('computes the ZIP CRC-32 (the check value of "123456789"), in pieces as whole', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32(Buffer.from('6789'), crc32(Buffer.from('12345'))), 0xcbf43926);
  });

  it('writes text XML cannot carry as text it can: markup escaped, control characters and lone surrogates left out', () => {
    assert.equal(xmlText('a < b & "c" > d'), 'a &lt; b &amp; &quot;c&quot; &gt; d');
    assert.equal(xmlText('bell\u0007 tab\t line\nend\ud800'), 'bell tab\t line\nend');
    assert.equal(xmlText('😀'), '😀');
    assert.equal(textCell('A1', 0, undefined), '', 'an empty cell without a style is not written');
    assert.equal(textCell('A1', 2, undefined), '<c r="A1" s="2"/>');
  });

  it('makes a workbook that our reader and exceljs read back cell for cell, over many flushes', async () => {
    const rows = [['Title', 'Note']];
    for (let i = 0; i < 20_000; i++) rows.push([`Row ${i} <&> "quoted"`, i % 3 ? `line one\nline two ${'x'.repeat(i % 50)}` : 'ünïcödé 😀']);
    const file = path.join(dir, 'many.xlsx');
    fs.writeFileSync(file, await workbookOf(rows));
    const read: string[][] = [];
    await readXlsx({ path: file, name: 'many.xlsx' }, async (_n, cells) => { read.push(cells); });
    assert.deepEqual(read, rows);
    // Its parts as a ZIP: the sheet streamed (a data descriptor), the small parts whole.
    const entries = await zipEntries(file);
    assert.deepEqual([...entries.keys()].sort(), ['[Content_Types].xml', '_rels/.rels', 'xl/_rels/workbook.xml.rels', 'xl/styles.xml', 'xl/workbook.xml',
      'xl/worksheets/sheet1.xml', 'xl/worksheets/sheet2.xml']);
    assert.equal(entries.get('xl/worksheets/sheet1.xml')!.flags & 8, 8);
    // Each entry's CRC in the table of contents is its content's.
    const archive = fs.readFileSync(file);
    for (let at = archive.indexOf(DIRECTORY); at >= 0; at = archive.indexOf(DIRECTORY, at + 4)) {
      const name = archive.toString('utf8', at + 46, at + 46 + archive.readUInt16LE(at + 28));
      const parts: Buffer[] = [];
      for await (const chunk of await zipEntryStream(file, entries.get(name)!)) parts.push(chunk as Buffer);
      const content = Buffer.concat(parts);
      assert.equal(archive.readUInt32LE(at + 16), crc32(content), name);
      assert.equal(archive.readUInt32LE(at + 24), content.length, name);
    }
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(file);
    const sheet = book.getWorksheet('Data')!;
    assert.equal(sheet.rowCount, rows.length);
    assert.equal(sheet.getRow(20_001).getCell(1).value, 'Row 19999 <&> "quoted"');
    assert.equal(sheet.getRow(2).getCell(1).protection?.locked, false);
    assert.equal(sheet.getColumn(1).width, 20);
    assert.deepEqual(book.worksheets.map((w) => w.name), ['Data', 'Other']);
  });

  it('fails when the reply fails, and stops writing', async () => {
    let sent = 0;
    const failing = async () => {
      if (++sent > 3) throw new Error('the client went away');
    };
    await assert.rejects(workbookOf([['a'], ['b']], failing), /the client went away/);
    assert.equal(sent, 4, 'nothing is sent after the failure');
  });
});
