/**
 * make bench rows of issue 47 (in BENCH_PARTS=jobs, after the job rows): a bulk_import_job of
 * BENCH_SHEET_ROWS archival-object rows (default 50,000) in ArchivesSpace's template, each with a
 * date, an extent, a scope note, a top container (20 rows a box) and an agent (50 in all), through
 * jobs_with_files, timed from the job's start to its end, with GETs beside it (bench/jobs.ts); then
 * the bulk archival-object updater's spreadsheet of the resource it made (bench/updater-sheet.ts),
 * and that sheet with every title changed applied by a bulk_archival_object_updater_job.
 * ArchivesSpace's published figure for the same import is about 6 rows/s.
 */
import fs from 'node:fs';
import path from 'node:path';
import { drained, getNote, getsMet, runJob } from './jobs';
import { log, peakRssMb, record, resetPeak, ROOT } from './lib';
import { benchUpdaterJob, benchUpdaterSheet } from './updater-sheet';

export const SHEET_ROWS = Number(process.env.BENCH_SHEET_ROWS ?? 50_000);
const TEMPLATE = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'spreadsheets', 'bulk_import_template.csv'), 'utf8').replace(/\r\n/g, '\n').trimEnd();

/** A CSV of `n` rows under the resource of EAD ID `ead`: series of 10 (a series, 3 subseries, 6 files). */
export function aoSheet(n: number, ead: string): string {
  const codes = TEMPLATE.split('\n')[0].split(',');
  const lines = [TEMPLATE];
  for (let i = 0; i < n; i++) {
    const level = i % 10 === 0 ? 1 : i % 10 < 4 ? 2 : 3;
    const row: Record<string, string> = {
      ead, title: `Component ${i}`, hierarchy: String(level), level: ['series', 'subseries', 'file'][level - 1], begin_1: String(1900 + (i % 100)), date_type_1: 'single',
      number: '1', extent_type: 'cubic_feet', n_scopecontent: `Scope of ${i}`, cont_instance_type: 'text', type_1: 'Box', indicator_1: String(Math.floor(i / 20)),
      people_agent_header_1: `Agent ${i % 50}`,
    };
    lines.push(codes.map((c) => row[c] ?? '').join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** A resource with an EAD ID for a sheet to name. */
export async function sheetResource(call: (method: string, url: string, body?: unknown) => Promise<any>, repo: string, ead: string): Promise<{ id: number; uri: string }> {
  const r = await call('POST', `${repo}/resources`, {
    id_0: ead, ead_id: ead, title: `Bench sheet resource ${ead}`, level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn',
    dates: [{ date_type: 'inclusive', label: 'creation', begin: '1900', end: '2000' }],
    extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng' } }],
  });
  return { id: r.id as number, uri: r.uri as string };
}

export async function benchSheets(base: string, store: string, pid: number | undefined, repo: string, headers: Record<string, string>, call: (method: string, url: string, body?: unknown) => Promise<any>): Promise<void> {
  const n = SHEET_ROWS;
  const ead = `SHEET${Date.now()}`;
  const resource = await sheetResource(call, repo, ead);
  const csv = aoSheet(n, ead);
  const accessionId = ((await call('GET', `${repo}/accessions?all_ids=true`)) as number[])[0];
  log(`sheets: the index caught up in ${(await drained(base)).toFixed(0)} s`);
  // The import's own peak: VmHWM reset to the current RSS before it (where Linux allows it).
  const reset = resetPeak(pid);
  const rssBefore = Math.round(peakRssMb(pid));
  const imported = await runJob(base, repo, headers, { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'ao', content_type: 'csv', filename: 'bench.csv' },
    { 'one accession': `${repo}/accessions/${accessionId}`, search: `${repo}/search?q=letters&page=1` }, { name: 'bench.csv', data: csv });
  const rate = Math.round(n / imported.seconds);
  const rss = Math.round(peakRssMb(pid));
  log(`bulk import: ${n} rows in ${imported.seconds.toFixed(1)} s`);
  record({
    workload: `bulk_import_job of ${n} archival-object rows (CSV; a date, an extent, a note, a top container and an agent each; one transaction)`, store, value: rate, unit: 'rows/s',
    baseline: null, ratio: null, target: '≥ 1,000 rows/s (ArchivesSpace: ~6 rows/s), server peak RSS < 300 MB, GET p95 < 100 ms meanwhile', met: rate >= 1000 && rss < 300 && getsMet(imported),
    note: `${imported.seconds.toFixed(1)} s from the job's start to its end; ${getNote(imported)}; server peak RSS ${rss} MB (${reset ? 'during the import' : 'since the start'}, ${rssBefore} MB before it); load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    detail: { seconds: imported.seconds, gets: imported.gets },
  });
  const root = await call('GET', `${resource.uri}/tree/root`);
  if (root.child_count !== Math.ceil(n / 10)) throw new Error(`the sheet's resource has ${root.child_count} top-level components, not ${Math.ceil(n / 10)}`);
  log(`sheets: the index caught up in ${(await drained(base)).toFixed(0)} s`);
  const sheet = await benchUpdaterSheet(base, store, pid, repo, resource.uri, headers, n);
  await benchUpdaterJob(base, store, repo, headers, sheet, n);
}
