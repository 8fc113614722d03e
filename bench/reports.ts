/**
 * make bench rows of issue 48 (BENCH_PARTS=reports runs only these): the accession report over
 * BENCH_REPORT_RECORDS accessions and the shelflist over as many components (each in a box on a
 * shelf), in CSV and PDF, each a report_job through the HTTP jobs API timed from its start to its
 * end, with GETs beside it (bench/jobs.ts's runJob) and the server's peak RSS during it.
 */
import type { Obj } from '../src/json';
import { childBody, resourceBody } from './data';
import { type Call, drained, getNote, getsMet, runJob } from './jobs';
import { log, peakRssMb, record, resetPeak, residentMb } from './lib';

export const REPORT_RECORDS = Number(process.env.BENCH_REPORT_RECORDS ?? 100_000);
/** Components per top container, and top containers per location: the shelflist's locations are its rows, few next to the components they list. */
const PER_BOX = 100;
const BOXES_PER_LOCATION = 2;

/**
 * The shelflist's data through the API: locations, top containers at them (container_locations)
 * and a resource of `n` components, each with an instance in one of the boxes, 500 per batch
 * children request.
 */
export async function buildShelves(call: Call, repo: string, n: number): Promise<{ locations: number; boxes: number }> {
  const boxes = Math.ceil(n / PER_BOX);
  const locationCount = Math.ceil(boxes / BOXES_PER_LOCATION);
  const locations: string[] = [];
  // A few requests at a time: each is small, and one at a time would wait on round trips.
  const inParallel = async <T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> => {
    const out: T[] = [];
    for (let i = 0; i < count; i += 8) out.push(...(await Promise.all(Array.from({ length: Math.min(8, count - i) }, (_, k) => make(i + k)))));
    return out;
  };
  locations.push(...(await inParallel(locationCount, async (i) => (await call('POST', '/locations', {
    building: `Building ${i % 3}`, floor: String(1 + (i % 4)), room: String(100 + (i % 20)), barcode: `L-${i}`,
    coordinate_1_label: 'Shelf', coordinate_1_indicator: String(i),
  })).uri as string)));
  const tops = await inParallel(boxes, async (i) => (await call('POST', `${repo}/top_containers`, {
    type: 'box', indicator: String(i + 1), barcode: `B-${i}`,
    container_locations: [{ ref: locations[Math.floor(i / BOXES_PER_LOCATION)], status: 'current', start_date: '2020-01-01' }],
  })).uri as string);
  const resource = await call('POST', `${repo}/resources`, resourceBody(`SHELF-${Date.now()}`, 'Papers on the shelves'));
  for (let s = 0; s < n; s += 500) {
    const children: Obj[] = [];
    for (let i = s; i < Math.min(n, s + 500); i++) {
      children.push({ ...childBody(i, resource.uri), instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: tops[Math.floor(i / PER_BOX)] }, type_2: 'folder', indicator_2: String(i % PER_BOX + 1) } }] });
    }
    await call('POST', `${resource.uri}/children`, { jsonmodel_type: 'archival_record_children', children });
  }
  return { locations: locationCount, boxes };
}

/**
 * The four report rows. `accessions` accessions and `components` components (buildShelves) are
 * in the store; `getUrls` are the GETs beside each job.
 */
export async function benchReports(base: string, store: string, pid: number | undefined, repo: string, headers: Record<string, string>, call: Call,
  data: { accessions: number; components: number; locations: number }): Promise<void> {
  const accessionId = ((await call('GET', `${repo}/accessions?all_ids=true`)) as number[])[0];
  const getUrls = { 'one accession': `${repo}/accessions/${accessionId}` };
  log(`reports: the index caught up in ${(await drained(base)).toFixed(0)} s`);
  // The accession report's PDF last: the heap it grows stays with the server, and would be counted in any report after it.
  const runs: Array<[string, string, number, string]> = [
    ['shelflist_report', 'csv', data.components, 'components'], ['shelflist_report', 'pdf', data.components, 'components'],
    ['accession_report', 'csv', data.accessions, 'accessions'], ['accession_report', 'pdf', data.accessions, 'accessions'],
  ];
  // Every job first, then the downloads: a file read back into the server (GET output_files reads it whole) would count in the next job's peak.
  const done: Array<{ ended: Awaited<ReturnType<typeof runJob>>; rss: number; before: number; reset: boolean }> = [];
  for (const [reportType, format] of runs) {
    const reset = resetPeak(pid);
    const before = Math.round(residentMb(pid, 'VmRSS'));
    const ended = await runJob(base, repo, headers, { jsonmodel_type: 'report_job', report_type: reportType, format }, getUrls);
    done.push({ ended, rss: Math.round(peakRssMb(pid)), before, reset });
    log(`${reportType} ${format}: ${ended.seconds.toFixed(1)} s`);
  }
  for (const [i, [reportType, format, rows, unit]] of runs.entries()) {
    const { ended, rss, before, reset } = done[i];
    const files = (await call('GET', `${ended.job.uri}/output_files`)) as number[];
    const file = await fetch(`${base}${ended.job.uri}/output_files/${files[0]}`, { headers });
    const bytes = (await file.arrayBuffer()).byteLength;
    const rate = Math.round(rows / ended.seconds);
    const goal = format === 'csv' ? 10_000 : 2_000;
    const shelves = reportType === 'shelflist_report' ? ` (${data.locations} locations, ${PER_BOX} components per box, ${BOXES_PER_LOCATION} boxes per location; rows/s counts the components listed)` : '';
    record({
      workload: `${reportType} as ${format.toUpperCase()} over ${rows} ${unit}${shelves}`, store, value: rate, unit: `${unit}/s`,
      baseline: null, ratio: null, target: `≥ ${goal.toLocaleString('en')} rows/s, server peak RSS < 300 MB, GET p95 < 100 ms meanwhile`,
      met: rate >= goal && rss < 300 && getsMet(ended),
      note: `${ended.seconds.toFixed(1)} s from the job's start to its end, a ${(bytes / 1e6).toFixed(1)} MB file; server peak RSS ${rss} MB during it (${before} MB when it was submitted)${reset ? '' : ' (over the server\'s life: VmHWM could not be reset)'}; ${getNote(ended)}`,
      detail: { seconds: ended.seconds, bytes, rss_mb: rss, rss_before_mb: before, gets: ended.gets } as any,
    });
  }
}
