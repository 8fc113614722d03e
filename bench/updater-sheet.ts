/**
 * make bench row: the bulk archival-object updater's spreadsheet (POST
 * /bulk_archival_object_updater/.../generate_spreadsheet) of the bench's tree resource, with the
 * columns an archivist picks most (level, ids, dates, extents, instances, notes): time to the
 * first byte, total time, rows per second, and the server's peak RSS after it (the sheet streams:
 * memory should not grow with the resource). Issue 47's target: 5,000 rows/s, first byte within 1 s.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipWriter } from '../src/jobs/spreadsheets/zip-writer';
import { zipEntries, zipEntryStream } from '../src/jobs/spreadsheets/zip';
import { runJob } from './jobs';
import { log, peakRssMb, record } from './lib';

const COLUMNS = ['level', 'ref_id', 'component_id', 'publish', 'date', 'extent', 'instance', 'langmaterial', 'note_scopecontent', 'note_accessrestrict'];

/**
 * The updater sheet `xlsx` with every data row's title changed ("Changed " before it), as an
 * archivist's edit: its parts copied as they are but the Updates sheet's title cells (column C,
 * the open style 3), re-zipped. exceljs would hold a sheet of 50,000 rows as objects; this holds its XML.
 */
export async function editedUpdaterSheet(xlsx: Buffer): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'updater-edit-'));
  try {
    const file = path.join(dir, 'sheet.xlsx');
    fs.writeFileSync(file, xlsx);
    const out: Buffer[] = [];
    const zip = new ZipWriter(async (chunk) => { out.push(chunk); });
    for (const entry of (await zipEntries(file)).values()) {
      const parts: Buffer[] = [];
      for await (const chunk of await zipEntryStream(file, entry)) parts.push(chunk as Buffer);
      let text = Buffer.concat(parts).toString('utf8');
      if (entry.name === 'xl/worksheets/sheet1.xml') text = text.replace(/(<c r="C\d+" s="3" t="str"><v>)/g, '$1Changed ');
      await zip.file(entry.name, text);
    }
    await zip.end();
    return Buffer.concat(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The bulk_archival_object_updater_job applying the sheet with every title changed: each row a
 * change, timed from the job's start to its end (the rows it changed checked in its output).
 */
export async function benchUpdaterJob(base: string, store: string, repo: string, headers: Record<string, string>, sheet: Buffer, components: number): Promise<void> {
  const edited = await editedUpdaterSheet(sheet);
  const { job, seconds } = await runJob(base, repo, headers, { jsonmodel_type: 'bulk_archival_object_updater_job' }, {}, { name: 'bulk_update.xlsx', data: edited });
  if (job.status !== 'completed') throw new Error(`bulk_archival_object_updater_job: ${job.status}`);
  const rate = Math.round(components / seconds);
  log(`updater job: ${components} rows changed in ${seconds.toFixed(1)} s`);
  record({
    workload: `bulk_archival_object_updater_job of the updater sheet with ${components} rows, every title changed`, store,
    value: rate, unit: 'rows/s', baseline: null, ratio: null, target: 'report (issue 47)', met: true,
    note: `${seconds.toFixed(1)} s from the job's start to its end; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  });
}

/** The updater sheet of `resourceUri` through its route, timed; answers the sheet. */
export async function benchUpdaterSheet(base: string, store: string, pid: number | undefined, repo: string, resourceUri: string, headers: Record<string, string>, components: number): Promise<Buffer> {
  const rssBefore = Math.round(peakRssMb(pid));
  const body = new URLSearchParams({ resource_uri: resourceUri });
  for (const c of COLUMNS) body.append('selected_columns[]', c);
  const started = process.hrtime.bigint();
  const res = await fetch(`${base}/bulk_archival_object_updater${repo}/generate_spreadsheet`, {
    method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body,
  });
  if (res.status !== 200 || !res.body) throw new Error(`updater sheet: ${res.status} ${await res.text()}`);
  let firstByteMs: number | undefined;
  let bytes = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    firstByteMs ??= Number(process.hrtime.bigint() - started) / 1e6;
    bytes += chunk.length;
    chunks.push(Buffer.from(chunk));
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // The zip's end record comes last: a sheet cut short does not end with one.
  if (bytes < 22) throw new Error(`the updater sheet is ${bytes} bytes`);
  const rate = Math.round(components / seconds);
  const rss = Math.round(peakRssMb(pid));
  log(`updater sheet: ${components} rows, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s, first byte after ${firstByteMs?.toFixed(0)} ms`);
  record({
    workload: `bulk archival object updater sheet (XLSX) of a resource with ${components} components (streamed)`, store,
    value: rate, unit: 'rows/s', baseline: null, ratio: null, target: '≥ 5,000 rows/s, first byte < 1 s (issue 47)', met: rate >= 5000 && (firstByteMs ?? 1e9) < 1000,
    note: `${seconds.toFixed(1)} s, ${(bytes / 1e6).toFixed(1)} MB; first byte after ${firstByteMs?.toFixed(0)} ms; server peak RSS ${rssBefore} → ${rss} MB; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  });
  return Buffer.concat(chunks);
}
