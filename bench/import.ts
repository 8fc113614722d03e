/**
 * make bench row: an EAD 2002 file of BENCH_IMPORT_COMPONENTS components (default 20,000; the
 * issue's 100k with BENCH_IMPORT_COMPONENTS=100000) imported through POST …/jobs_with_files as an
 * archive brings its finding aids: components per second from the job's own start and end, and
 * the server's peak RSS before and after (the importer streams: memory should not follow the file).
 */
import { log, peakRssMb, record } from './lib';

export const IMPORT_COMPONENTS = Number(process.env.BENCH_IMPORT_COMPONENTS ?? 20_000);

/** A finding aid of `n` components: series of 100 files, each with a date, an extent and a container. */
export function generatedEad(n: number, unitid = 'BENCH-IMPORT'): string {
  const parts: string[] = [];
  for (let s = 0; s * 100 < n; s++) {
    const files = Math.min(100, n - s * 100 - 1);
    parts.push(`<c01 level="series"><did><unittitle>Series ${s + 1}</unittitle><unitdate normal="1900/1950">1900-1950</unitdate></did>`);
    for (let f = 0; f < files; f++) {
      parts.push(`<c02 level="file"><did><unittitle>Correspondence ${s + 1}.${f + 1}</unittitle><unitdate normal="19${10 + (f % 80)}">19${10 + (f % 80)}</unitdate>`
        + `<container type="box">${s + 1}</container><container type="folder">${f + 1}</container></did>`
        + `<scopecontent><p>Letters about item ${f + 1} of series ${s + 1}.</p></scopecontent></c02>`);
    }
    parts.push('</c01>');
  }
  return `<?xml version="1.0" encoding="UTF-8"?><ead xmlns="urn:isbn:1-931666-22-9"><eadheader><eadid>${unitid.toLowerCase()}</eadid><filedesc><titlestmt><titleproper>Bench import</titleproper></titlestmt></filedesc></eadheader>`
    + `<archdesc level="collection"><did><unittitle>Bench import</unittitle><unitid>${unitid}</unitid><unitdate normal="1900/1990">1900-1990</unitdate>`
    + `<physdesc><extent>${Math.ceil(n / 100)} linear feet</extent></physdesc><langmaterial><language langcode="eng">English</language></langmaterial></did>`
    + `<dsc>${parts.join('')}</dsc></archdesc></ead>`;
}

/** Submits `xml` as an EAD import job of `repo` (its URI) and waits for it to end; the ended job and its URI. */
export async function runImportJob(base: string, repo: string, headers: Record<string, string>, xml: string): Promise<{ job: any; uri: string }> {
  const form = new FormData();
  form.append('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['bench.xml'] } }));
  form.append('files[]', new Blob([xml], { type: 'application/xml' }), 'bench.xml');
  const submitted = await fetch(`${base}${repo}/jobs_with_files`, { method: 'POST', headers, body: form });
  if (submitted.status !== 200) throw new Error(`import job: ${submitted.status} ${await submitted.text()}`);
  const uri = (await submitted.json()).uri as string;
  for (;;) {
    const job = await (await fetch(`${base}${uri}`, { headers })).json();
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'canceled') return { job, uri };
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function benchImport(base: string, store: string, pid: number | undefined, repo: string, headers: Record<string, string>, unitid?: string): Promise<void> {
  const xml = generatedEad(IMPORT_COMPONENTS, unitid);
  const rssBefore = Math.round(peakRssMb(pid));
  const { job, uri } = await runImportJob(base, repo, headers, xml);
  if (job.status !== 'completed') throw new Error(`the bench import ${job.status}: ${await (await fetch(`${base}${uri}/log`, { headers })).text()}`);
  const seconds = (Date.parse(job.time_finished) - Date.parse(job.time_started)) / 1000 || 1;
  const rate = Math.round(IMPORT_COMPONENTS / seconds);
  const rss = Math.round(peakRssMb(pid));
  log(`EAD import: ${IMPORT_COMPONENTS} components (${(xml.length / 1e6).toFixed(1)} MB) in ${seconds.toFixed(0)} s`);
  record({
    workload: `EAD import through a job: ${IMPORT_COMPONENTS} components (${(xml.length / 1e6).toFixed(1)} MB, one transaction)`, store,
    value: rate, unit: 'components/s', baseline: null, ratio: null, target: '≥ 1,000 components/s, < 200 MB over resting',
    met: rate >= 1000 && rss - rssBefore < 200,
    note: `${seconds.toFixed(0)} s by the job's start and end (whole seconds); server peak RSS ${rssBefore} → ${rss} MB`,
  });
}
