import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { TestApp } from '../helpers';

/** The text of a PDF as pdftotext reads it. */
export const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString();

/** A CSV document as rows of cells (quoted cells with commas, quotes and line breaks read back). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false; else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(cell); cell = ''; } else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; } else cell += ch;
  }
  return rows;
}

export interface ReportFile { body: Buffer; text: string; contentType: string }

/** Submits a report job in a repository, waits for it, and answers its job and output file (none when it did not complete). */
export async function runReport(t: TestApp, H: Record<string, string>, base: string, reportType: string, format: string, jobParams?: object): Promise<{ job: Record<string, unknown>; log: string; file?: ReportFile }> {
  const res = await t.http.post(`${base}/jobs`).set(H)
    .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: reportType, format }, job_params: jobParams ? JSON.stringify(JSON.stringify(jobParams)) : undefined });
  assert.equal(res.status, 200, res.text);
  return jobOutcome(t, H, res.body.uri);
}

/** A submitted job once the runner is done with it: the job, its log, its output file. */
export async function jobOutcome(t: TestApp, H: Record<string, string>, uri: string): Promise<{ job: Record<string, unknown>; log: string; file?: ReportFile }> {
  await t.services.jobs!.idle();
  const job = (await t.http.get(uri).set(H)).body;
  const log = (await t.http.get(`${uri}/log`).set(H)).text;
  if (job.status !== 'completed') return { job, log };
  const ids = (await t.http.get(`${uri}/output_files`).set(H)).body;
  assert.equal(ids.length, 1);
  const file = await t.http.get(`${uri}/output_files/${ids[0]}`).set(H).buffer(true).parse((r, cb) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => cb(null, Buffer.concat(chunks)));
  });
  return { job, log, file: { body: file.body as Buffer, text: (file.body as Buffer).toString('utf8'), contentType: String(file.headers['content-type']) } };
}

/** A report that must complete: its output file. */
export async function reportFile(t: TestApp, H: Record<string, string>, base: string, reportType: string, format: string, jobParams?: object): Promise<ReportFile> {
  const out = await runReport(t, H, base, reportType, format, jobParams);
  assert.equal(out.job.status, 'completed', `${JSON.stringify(out.job)}\n${out.log}`);
  return out.file!;
}

/** Each format of a report renders: CSV rows past the info, an HTML section per record, PDF text with `pdfPattern`. */
export async function rendersEveryFormat(t: TestApp, H: Record<string, string>, base: string, code: string, pdfPattern: RegExp, jobParams?: object): Promise<void> {
  assert.ok(parseCsv((await reportFile(t, H, base, code, 'csv', jobParams)).text).length > 3, code);
  assert.match((await reportFile(t, H, base, code, 'html', jobParams)).text, /<section class="record">/, code);
  assert.match(pdfText((await reportFile(t, H, base, code, 'pdf', jobParams)).body), pdfPattern, code);
}

/**
 * A custom report job submitted (with the runner stopped, so it waits) on template `id`, whose
 * data is then changed to `data`: the job runs on the changed template. Answers its outcome.
 */
export async function runAfterTemplateEdit(
  t: TestApp, H: Record<string, string>, base: string, id: number, submit: (id: number) => Promise<{ status: number; text: string; body: any }>, data: object,
): Promise<{ job: Record<string, unknown>; log: string; file?: ReportFile }> {
  await t.services.jobs!.stop();
  let uri: string;
  try {
    const res = await submit(id);
    assert.equal(res.status, 200, res.text);
    uri = res.body.uri;
    const current = (await t.http.get(`${base}/custom_report_templates/${id}`).set(H).expect(200)).body;
    await t.http.post(`${base}/custom_report_templates/${id}`).set(H).send({ ...current, data: JSON.stringify(data) }).expect(200);
  } finally {
    t.services.jobs!.start();
  }
  return jobOutcome(t, H, uri);
}
