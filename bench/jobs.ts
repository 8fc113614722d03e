/**
 * make bench rows (issue 49, BENCH_PARTS=jobs runs only these): find_and_replace_job and
 * resource_duplicate_job through the HTTP jobs API over a resource of BENCH_JOB_COMPONENTS
 * components (default 50,000: series of 100, built through the batch children routes), timed from
 * the job's start to its end, while GET one archival object runs beside it at a steady rate
 * (BENCH_JOB_GET_RATE requests/s over 4 connections): its p95 says whether a long job's one
 * transaction keeps readers waiting.
 */
import type { Obj } from '../src/json';
import { childBody } from './data';
import { log, peakRssMb, record } from './lib';

export const JOB_COMPONENTS = Number(process.env.BENCH_JOB_COMPONENTS ?? 50_000);
/** Requests per second of the GETs beside a job (half to an accession, half to a component of the tree): a reading room's staff, not a load test that starves the job of the cores. */
const GET_RATE = Number(process.env.BENCH_JOB_GET_RATE ?? 100);
const GET_CONNECTIONS = 4;
const SERIES = 100;

export type Call = (method: string, url: string, body?: unknown) => Promise<any>;

/** A resource of `n` components: series of SERIES (the series, then each one's files), 500 or fewer per request. */
async function buildResource(call: Call, repo: string, n: number): Promise<{ uri: string; aoUri: string }> {
  const resource = await call('POST', `${repo}/resources`, {
    id_0: `JOBS-${Date.now()}`, title: 'Bench jobs resource', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn', publish: true,
    dates: [{ date_type: 'inclusive', label: 'creation', begin: '1850', end: '1900' }],
    extents: [{ portion: 'whole', number: '40', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng' } }],
  });
  const uri = resource.uri as string;
  const seriesCount = Math.ceil(n / SERIES);
  const before = new Set<number>(await call('GET', `${repo}/archival_objects?all_ids=true`));
  for (let s = 0; s < seriesCount; s += 500) {
    const children: Obj[] = [];
    for (let k = s; k < Math.min(seriesCount, s + 500); k++) children.push({ ...childBody(k, uri), level: 'series', title: `Series ${k}: letters of the society` });
    await call('POST', `${uri}/children`, { jsonmodel_type: 'archival_record_children', children });
  }
  const series = ((await call('GET', `${repo}/archival_objects?all_ids=true`)) as number[]).filter((id) => !before.has(id)).sort((a, b) => a - b);
  let made = seriesCount;
  for (const id of series) {
    const files = Math.min(SERIES - 1, n - made);
    if (files <= 0) break;
    const children = Array.from({ length: files }, (_, f) => childBody(made + f, uri));
    await call('POST', `${repo}/archival_objects/${id}/children`, { jsonmodel_type: 'archival_record_children', children });
    made += files;
  }
  return { uri, aoUri: `${repo}/archival_objects/${series[0]}` };
}

interface Gets { p50: number; p95: number; answered: number; failed: number }
export interface Ended { job: any; seconds: number; gets: Record<string, Gets> }

/** Closed loops of GETs beside a job: GET_CONNECTIONS / 2 per URL. */
const readerLoops = (urls: number): number => urls * Math.max(1, Math.floor(GET_CONNECTIONS / 2));

/** The GETs beside a job, for a row's note. */
export const getNote = (e: Ended): string => `GETs beside it (${GET_RATE} req/s in all, ${readerLoops(Object.keys(e.gets).length)} loops): ${Object.entries(e.gets)
  .map(([what, g]) => `${what} p50 ${g.p50} ms, p95 ${g.p95} ms, ${g.answered} answered${g.failed ? `, ${g.failed} FAILED` : ''}`).join('; ')}`;
/** The issues' goal for the GETs beside a job: p95 under 100 ms, none failed. */
export const getsMet = (e: Ended): boolean => Object.values(e.gets).every((g) => g.p95 < 100 && !g.failed);

/**
 * Submits `job` and waits for its end, with GETs beside it from submission to end: of each of
 * `getUrls` (what it is → its URL), GET_CONNECTIONS / 2 closed loops, each a GET then a pause
 * (GET_RATE in all while answers are quick): a GET the job keeps waiting counts with all the time
 * it waited, however long.
 */
export async function runJob(base: string, repo: string, headers: Record<string, string>, job: Obj, getUrls: Record<string, string>, file?: { name: string; data: string | Buffer }): Promise<Ended> {
  let stop = false;
  const loops = readerLoops(Object.keys(getUrls).length);
  const pause = (1000 * loops) / GET_RATE;
  const measured = Object.fromEntries(Object.keys(getUrls).map((what) => [what, { latencies: [] as number[], failed: 0 }]));
  const reader = async (what: string) => {
    while (!stop) {
      const t = process.hrtime.bigint();
      const res = await fetch(base + getUrls[what], { headers });
      await res.arrayBuffer();
      if (res.ok) measured[what].latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      else measured[what].failed++;
      await new Promise((r) => setTimeout(r, pause));
    }
  };
  const readers = Object.keys(getUrls).flatMap((what) => Array.from({ length: loops / Object.keys(getUrls).length }, () => reader(what)));
  let ended: any;
  let seconds: number;
  try {
    const envelope = JSON.stringify({ jsonmodel_type: 'job', job_type: job.jsonmodel_type, job });
    let res: Response;
    if (file) {
      // A job with its file, as the staff interface sends it (jobs_with_files, multipart).
      const form = new FormData();
      form.append('job', envelope);
      form.append('files[]', new Blob([file.data]), file.name);
      res = await fetch(`${base}${repo}/jobs_with_files`, { method: 'POST', headers, body: form });
    } else res = await fetch(`${base}${repo}/jobs`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: envelope });
    if (res.status !== 200) throw new Error(`${job.jsonmodel_type}: ${res.status} ${await res.text()}`);
    const uri = (await res.json()).uri as string;
    let started: bigint | undefined;
    for (;;) {
      const now = process.hrtime.bigint();
      ended = await (await fetch(`${base}${uri}`, { headers })).json();
      if (ended.status !== 'queued') started ??= now;
      if (['completed', 'failed', 'canceled'].includes(ended.status)) {
        if (ended.status !== 'completed') throw new Error(`${job.jsonmodel_type} ${ended.status}: ${await (await fetch(`${base}${uri}/log`, { headers })).text()}`);
        seconds = Number(process.hrtime.bigint() - started!) / 1e9;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    stop = true;
    // The GETs in flight when the job ended count: a job that holds the server keeps them waiting.
    await Promise.all(readers);
  }
  const gets: Record<string, Gets> = {};
  for (const [what, { latencies, failed }] of Object.entries(measured)) {
    latencies.sort((x, y) => x - y);
    const at = (p: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN) * 10) / 10;
    gets[what] = { p50: at(50), p95: at(95), answered: latencies.length, failed };
  }
  return { job: ended, seconds, gets };
}

/** Waits (up to `timeoutS`) until the index has applied every change-log entry: a job is not timed against the catch-up of the writes before it. */
export async function drained(base: string, timeoutS = 300): Promise<number> {
  const t = Date.now();
  for (;;) {
    const health = (await (await fetch(`${base}/health`)).json()) as { queue?: { pending?: number } };
    if (!Number(health.queue?.pending ?? 0) || Date.now() - t > timeoutS * 1000) return (Date.now() - t) / 1000;
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function benchJobs(base: string, store: string, pid: number | undefined, repo: string, headers: Record<string, string>, call: Call): Promise<void> {
  const n = JOB_COMPONENTS;
  const t = process.hrtime.bigint();
  const { uri, aoUri } = await buildResource(call, repo, n);
  log(`jobs: a resource of ${n} components built in ${(Number(process.hrtime.bigint() - t) / 1e9).toFixed(1)} s`);
  // The bench's GET one (an accession: no tree fields to compute) and a component of the tree the job works on.
  const accessionId = ((await call('GET', `${repo}/accessions?all_ids=true`)) as number[])[0];
  const getUrls = { 'one accession': `${repo}/accessions/${accessionId}`, 'one archival object': aoUri };

  log(`jobs: the index caught up in ${(await drained(base)).toFixed(0)} s`);
  const replaced = await runJob(base, repo, headers, {
    jsonmodel_type: 'find_and_replace_job', find: 'letters', replace: 'papers', record_type: 'archival_object', property: 'title', base_record_uri: uri,
  }, getUrls);
  const replacedRate = Math.round(n / replaced.seconds);
  log(`find and replace: ${n} components in ${replaced.seconds.toFixed(1)} s`);
  record({
    workload: `find_and_replace_job over a resource of ${n} components (every title changed, one transaction)`, store, value: replacedRate, unit: 'records/s',
    baseline: null, ratio: null, target: '≥ 2,000 records/s, GET p95 < 100 ms meanwhile', met: replacedRate >= 2000 && getsMet(replaced),
    note: `${replaced.seconds.toFixed(1)} s from the job's start to its end; ${getNote(replaced)}; server peak RSS ${Math.round(peakRssMb(pid))} MB`,
    detail: { seconds: replaced.seconds, gets: replaced.gets },
  });
  const title = (await call('GET', aoUri)).title as string;
  if (!title.includes('papers')) throw new Error(`find and replace left ${aoUri} titled "${title}"`);

  log(`jobs: the index caught up in ${(await drained(base)).toFixed(0)} s`);
  const duplicated = await runJob(base, repo, headers, { jsonmodel_type: 'resource_duplicate_job', source: uri }, getUrls);
  const duplicatedRate = Math.round(n / duplicated.seconds);
  log(`resource duplicate: ${n} components in ${duplicated.seconds.toFixed(1)} s`);
  record({
    workload: `resource_duplicate_job of a resource of ${n} components (one transaction)`, store, value: duplicatedRate, unit: 'components/s',
    baseline: null, ratio: null, target: '≥ 2,000 components/s, GET p95 < 100 ms meanwhile', met: duplicatedRate >= 2000 && getsMet(duplicated),
    note: `${duplicated.seconds.toFixed(1)} s from the job's start to its end; ${getNote(duplicated)}; server peak RSS ${Math.round(peakRssMb(pid))} MB`,
    detail: { seconds: duplicated.seconds, gets: duplicated.gets },
  });
  const copy = await call('GET', `${duplicated.job.uri}/records?page=1`);
  const copyUri = String(copy.results?.[0]?.record?.ref ?? '');
  const copied = await call('GET', `${copyUri}/tree/root`);
  if (copied.child_count !== Math.ceil(n / SERIES)) throw new Error(`the copy ${copyUri} has ${copied.child_count} top-level components, not ${Math.ceil(n / SERIES)}`);
}
