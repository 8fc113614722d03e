/**
 * bulk_import_job (ArchivesSpace's "Load via spreadsheet"): one CSV sheet in ArchivesSpace's
 * archival-object (load_type "ao") or digital-object ("digital") template, written all or nothing
 * in one transaction. Every problem is collected with its row and column: a problem ArchivesSpace
 * answers by dropping a value keeps the row (logged); one that stops a row fails the sheet, after
 * the whole sheet has been read so that the log lists every problem. only_validate reads and
 * checks the sheet the same way, writes it in the transaction and rolls it back.
 */
import { errors } from '../../errors';
import { log } from '../../log';
import type { Obj } from '../../json';
import { ImportFailed, type ImportOutput } from '../../exchange/import/types';
import { jsonOfUri } from '../../store/domain-reads';
import type { JobContext, JobEnd, JobType } from '../job-type';
import { AO_MARKER, ArchivalObjectLoad, type RowResult } from './ao-load';
import { DIGITAL_MARKER, DigitalObjectLoad } from './digital-load';
import { describeProblem, Problems, readSheet, SHEET_FORMATS } from './sheet';

const LOAD_TYPES = ['ao', 'digital'];

/** Thrown inside the sheet's transaction to roll it back (a dry run, a sheet with errors, a cancel). */
class RollBack extends Error {}

export const bulkImportJob: JobType = {
  name: 'bulk_import_job',
  createPermissions: ['import_records'],
  cancelPermissions: ['cancel_importer_job'],

  async accept(s, repoId, job, files) {
    if (!LOAD_TYPES.includes(job.load_type)) throw errors.mustBeOneOf('load_type', LOAD_TYPES, job.load_type);
    if (files.length !== 1) throw errors.invalidParam('files', `a bulk import takes one spreadsheet (${files.length} given)`);
    const [file] = files;
    const extension = /\.([a-z0-9]+)$/i.exec(file.filename)?.[1]?.toLowerCase();
    const contentType = contentTypeOf(String(job.content_type ?? ''), extension);
    if (!SHEET_FORMATS.includes(contentType)) throw errors.invalidParam('content_type', `'${contentType || file.filename}' is not a spreadsheet this server reads (${SHEET_FORMATS.join(', ')})`);
    if (file.data.length > s.config.jobs.importMaxBytes) throw errors.invalidParam('files', `${file.filename} is larger than IMPORT_MAX_BYTES (${s.config.jobs.importMaxBytes} bytes)`);
    const rid = String(job.resource_id ?? '');
    const id = /^(?:\/repositories\/(\d+)\/resources\/)?(\d+)$/.exec(rid);
    if (!id || (id[1] && Number(id[1]) !== repoId)) throw errors.invalidParam('resource_id', `'${rid}' is not a resource of this repository (its id or URI)`);
    const uri = `/repositories/${repoId}/resources/${id[2]}`;
    const resource = await jsonOfUri(s.db, uri);
    if (!resource || JSON.parse(resource).jsonmodel_type !== 'resource') throw errors.invalidParam('resource_id', `no resource ${uri}`);
    return {
      jsonmodel_type: 'bulk_import_job', resource_id: id[2], filename: String(job.filename ?? file.filename), load_type: job.load_type,
      content_type: contentType, format: String(job.format ?? contentType), only_validate: String(job.only_validate ?? 'false'),
    };
  },

  async run(ctx) {
    return runBulkImport(ctx);
  },
};

async function runBulkImport(ctx: JobContext): Promise<JobEnd> {
  const { s, job } = ctx;
  const validateOnly = String(job.only_validate) === 'true';
  const file = { path: ctx.inputFiles[0].stored, name: String(job.filename) };
  const resourceUri = `/repositories/${ctx.repoId}/resources/${job.resource_id}`;
  const resourceJson = await jsonOfUri(s.db, resourceUri);
  // Lines wait here while the sheet's transaction is open: on SQLite a write from outside it would wait for its end.
  const lines: string[] = [];
  const problems = new Problems();
  const out: ImportOutput = { signal: ctx.signal, log: (level, message) => lines.push(`${level}: ${message}`), progress: () => undefined };
  const started = Date.now();
  let outcome: { rows: number; created: string[]; updated: string[]; counts: Record<string, number>; results: RowResult[] } | undefined;
  let failure: string | undefined;
  if (!resourceJson) failure = `the resource ${resourceUri} no longer exists`;
  else {
    const resource = JSON.parse(resourceJson) as Obj;
    try {
      await s.db.transaction(async (trx) => {
        const load = job.load_type === 'digital'
          ? new DigitalObjectLoad(s, trx, ctx.repoId, ctx.actor, file, out, { uri: resourceUri, ead_id: resource.ead_id as string | undefined })
          : new ArchivalObjectLoad(s, trx, ctx.repoId, ctx.actor, file, out, { uri: resourceUri, ead_id: resource.ead_id as string | undefined });
        const marker = job.load_type === 'digital' ? DIGITAL_MARKER : AO_MARKER;
        const { rows } = await readSheet(file, String(job.content_type), marker, problems, (row, header) => {
          if (ctx.signal.aborted) throw new RollBack('canceled');
          return load.onRow(row, header);
        }, ctx.signal);
        outcome = { rows, created: load.created, updated: load.updated, counts: load.counts, results: load.results };
        if (problems.errors || validateOnly || ctx.signal.aborted) throw new RollBack();
      });
    } catch (err) {
      if (err instanceof ImportFailed) failure = err.message;
      else if (!(err instanceof RollBack)) {
        log.error('bulk import job', { job: ctx.jobId, error: (err as Error).stack });
        failure = `${file.name}: ${(err as Error).message}`;
      }
    }
  }
  const seconds = (Date.now() - started) / 1000;
  await ctx.log(`${file.name}: bulk import of ${job.load_type === 'digital' ? 'digital objects' : 'archival objects'} into ${resourceUri}${validateOnly ? ' (only validate: nothing is written)' : ''}`);
  for (const line of lines) await ctx.log(line);
  for (const p of problems.all) await ctx.log(`${p.severity === 'error' ? 'error' : 'warning'}: ${describeProblem(p)}`);
  if (ctx.signal.aborted) {
    await ctx.log(`${file.name}: canceled; nothing of this sheet was written`);
    return 'canceled';
  }
  if (failure) {
    await ctx.log(`error: ${failure}; nothing of this sheet was written`);
    return 'failed';
  }
  const o = outcome!;
  const counts = Object.entries(o.counts).map(([t, n]) => `${n} ${t}`).join(', ') || 'nothing';
  await ctx.addOutputFile(`${file.name.replace(/\.[^.]+$/, '')}-results.csv`, resultsCsv(o.results, problems));
  if (problems.errors) {
    await ctx.log(`error: ${problems.errors} row problem(s) in ${o.rows} row(s)${validateOnly ? '' : '; nothing of this sheet was written'}`);
    return 'failed';
  }
  const rate = Math.round(o.rows / Math.max(seconds, 0.001));
  if (validateOnly) {
    await ctx.log(`${file.name}: valid: ${o.rows} row(s) would write ${counts}; ${problems.all.length} value(s) would be left out; nothing was written`);
    return 'completed';
  }
  await ctx.addRecords([...o.created, ...o.updated.filter((u) => !o.created.includes(u))]);
  await ctx.log(`${file.name}: imported ${o.rows} row(s) in ${seconds.toFixed(1)} s (${rate} rows/s): created ${counts}${o.updated.length ? `; linked ${o.updated.length} archival object(s)` : ''}; ${problems.all.length} value(s) left out`);
  return 'completed';
}

/** csv or xlsx, from the job's content_type (a name or a MIME type, as browsers send it) or else the file's extension. */
function contentTypeOf(given: string, extension?: string): string {
  const t = given.toLowerCase();
  if (t === 'csv' || t.endsWith('/csv')) return 'csv';
  if (t === 'xlsx' || t.includes('spreadsheetml')) return 'xlsx';
  return t && t !== 'application/octet-stream' ? t : extension ?? '';
}

/** The results file (as ArchivesSpace's): each row's record, then each of its problems. */
function resultsCsv(results: RowResult[], problems: Problems): string {
  const cell = (v: unknown) => {
    const text = v === undefined ? '' : String(v);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const byRow = new Map<number, string[]>();
  for (const p of problems.all) byRow.set(p.row, [...byRow.get(p.row) ?? [], `${p.severity === 'error' ? 'error' : 'left out'}${p.column ? ` (${p.column})` : ''}: ${p.message}`]);
  const lines = [['row', 'title', 'uri', 'ref_id', 'problem'].join(',')];
  for (const r of results) {
    lines.push([r.row, r.title, r.uri, r.ref_id, ''].map(cell).join(','));
    for (const message of byRow.get(r.row) ?? []) lines.push([r.row, '', '', '', message].map(cell).join(','));
    byRow.delete(r.row);
  }
  for (const [row, messages] of byRow) for (const m of messages) lines.push([row, '', '', '', m].map(cell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
