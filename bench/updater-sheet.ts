/**
 * make bench row: the bulk archival-object updater's spreadsheet (POST
 * /bulk_archival_object_updater/.../generate_spreadsheet) of the bench's tree resource, with the
 * columns an archivist picks most (level, ids, dates, extents, instances, notes): time to the
 * first byte, total time, rows per second, and the server's peak RSS after it (the sheet streams:
 * memory should not grow with the resource). Issue 47's target: 5,000 rows/s, first byte within 1 s.
 */
import { log, peakRssMb, record } from './lib';

const COLUMNS = ['level', 'ref_id', 'component_id', 'publish', 'date', 'extent', 'instance', 'langmaterial', 'note_scopecontent', 'note_accessrestrict'];

export async function benchUpdaterSheet(base: string, store: string, pid: number | undefined, repo: string, resourceUri: string, headers: Record<string, string>, components: number): Promise<void> {
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
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    firstByteMs ??= Number(process.hrtime.bigint() - started) / 1e6;
    bytes += chunk.length;
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
    note: `${seconds.toFixed(1)} s, ${(bytes / 1e6).toFixed(1)} MB; first byte after ${firstByteMs?.toFixed(0)} ms; server peak RSS ${rssBefore} → ${rss} MB`,
  });
}
