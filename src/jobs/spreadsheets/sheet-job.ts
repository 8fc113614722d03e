/**
 * What every spreadsheet job does around its rows: check the submission (one CSV or XLSX file, a
 * resource of the repository), read the sheet in ONE transaction, collect every problem with its
 * row and column, and roll the transaction back when the sheet has an error, when the job only
 * validates, or when it is canceled. The log is written after the transaction (on SQLite a write
 * from outside it would wait for its end), with a results file as ArchivesSpace writes one.
 */
import { errors } from '../../errors';
import { log } from '../../log';
import type { Obj } from '../../json';
import type { Actor, Services } from '../../records/context';
import { ImportFailed, type ImportInput, type ImportOutput } from '../../exchange/import/types';
import type { Tx } from '../../store/database';
import { jsonOfUri } from '../../store/domain-reads';
import type { JobContext, JobEnd, Upload } from '../job-type';
import type { RowResults } from './row-results';
import type { SheetResource } from './session';
import { describeProblem, Problems, readSheet, SHEET_FORMATS, type SheetRow } from './sheet';
import type { UriList } from '../../store/uri-list';
import { writeTransaction } from '../../records/context';

/** A load: the rows of one kind of sheet, written in the sheet's transaction. */
export interface SheetLoad {
  onRow(row: SheetRow, header: readonly string[]): Promise<void>;
  /** After the last row: what the load holds back is written. */
  finish(): Promise<void>;
  readonly created: UriList;
  readonly updated: string[];
  readonly counts: Record<string, number>;
  readonly results: RowResults;
}

export interface SheetJobKind {
  /** What the log calls the work ("archival objects", "top container links"). */
  what: string;
  /** The first cell of the template's field-code row. */
  marker: RegExp;
  load(s: Services, trx: Tx, repoId: number, actor: Actor, input: ImportInput, out: ImportOutput, resource: SheetResource): SheetLoad;
}

/** Thrown inside the sheet's transaction to roll it back. */
class RollBack extends Error {}

/** Checks a spreadsheet job's submission (400 for a bad one) and answers the job as stored. */
export async function acceptSheetJob(s: Services, repoId: number, job: Obj, files: Upload[], jsonmodelType: string, loadTypes: string[]): Promise<Obj> {
  if (!loadTypes.includes(job.load_type)) throw errors.mustBeOneOf('load_type', loadTypes, job.load_type);
  if (files.length !== 1) throw errors.invalidParam('files', `a spreadsheet job takes one spreadsheet (${files.length} given)`);
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
  const aoid = job.load_type === 'ao' ? await checkedAoid(s, repoId, uri, job) : undefined;
  return {
    jsonmodel_type: jsonmodelType, resource_id: id[2], filename: String(job.filename ?? file.filename), load_type: job.load_type,
    content_type: contentType, format: String(job.format ?? contentType), only_validate: String(job.only_validate ?? 'false'),
    ...(aoid ? { aoid } : {}),
  };
}

/**
 * ArchivesSpace's aoid option (the archival object a sheet is loaded from, in the staff interface):
 * in the job, or in its job_params as ArchivesSpace's form sends them (a JSON object, or that
 * object encoded as a JSON string). It must be an archival object of the job's resource.
 */
async function checkedAoid(s: Services, repoId: number, resourceUri: string, job: Obj): Promise<string | undefined> {
  let params: unknown = job.job_params;
  for (let i = 0; i < 2 && typeof params === 'string'; i++) {
    try {
      params = JSON.parse(params);
    } catch {
      params = undefined;
    }
  }
  const raw = job.aoid ?? (params && typeof params === 'object' ? (params as Obj).aoid : undefined);
  const aoid = raw === undefined || raw === null ? '' : String(raw).trim();
  if (!aoid) return undefined;
  const json = /^\d+$/.test(aoid) ? await jsonOfUri(s.db, `/repositories/${repoId}/archival_objects/${aoid}`) : undefined;
  const record = json ? JSON.parse(json) as Obj : undefined;
  if (!record || (record.resource as Obj | undefined)?.ref !== resourceUri) throw errors.invalidParam('aoid', `'${aoid}' is not an archival object of the resource ${resourceUri}`);
  return aoid;
}

/** csv or xlsx, from the job's content_type (a name or a MIME type, as browsers send it) or else the file's extension. */
function contentTypeOf(given: string, extension?: string): string {
  const t = given.toLowerCase();
  if (t === 'csv' || t.endsWith('/csv')) return 'csv';
  if (t === 'xlsx' || t.includes('spreadsheetml')) return 'xlsx';
  return t && t !== 'application/octet-stream' ? t : extension ?? '';
}

export async function runSheetJob(ctx: JobContext, kind: SheetJobKind): Promise<JobEnd> {
  let load: SheetLoad | undefined;
  try {
    return await runSheet(ctx, kind, (made) => (load = made));
  } finally {
    load?.results.remove();
  }
}

/** The records a job notes at a time (the job's records list). */
const RECORDS_AT_ONCE = 500;

async function runSheet(ctx: JobContext, kind: SheetJobKind, made: (load: SheetLoad) => void): Promise<JobEnd> {
  const { s, job } = ctx;
  const validateOnly = String(job.only_validate) === 'true';
  const file = { path: ctx.inputFiles[0].stored, name: String(job.filename) };
  const resourceUri = `/repositories/${ctx.repoId}/resources/${job.resource_id}`;
  const resourceJson = await jsonOfUri(s.db, resourceUri);
  const lines: string[] = [];
  const problems = new Problems();
  const out: ImportOutput = { signal: ctx.signal, log: (level, message) => lines.push(`${level}: ${message}`), progress: (done) => ctx.rowProgress?.(done) };
  const started = Date.now();
  let outcome: { rows: number; load: SheetLoad } | undefined;
  let failure: string | undefined;
  // A cancel that arrives after the commit (on SQLite the request waits for the sheet's transaction) changes nothing.
  let committed = false;
  if (!resourceJson) failure = `the resource ${resourceUri} no longer exists`;
  else {
    const resource = JSON.parse(resourceJson) as Obj;
    try {
      await writeTransaction(s, async (trx) => {
        const aoid = job.aoid ? await jsonOfUri(trx, `/repositories/${ctx.repoId}/archival_objects/${job.aoid}`) : undefined;
        if (job.aoid && !aoid) throw new ImportFailed(`the archival object ${job.aoid} (aoid) no longer exists`);
        const from = aoid ? JSON.parse(aoid) as Obj : undefined;
        const load = kind.load(s, trx, ctx.repoId, ctx.actor, file, out, {
          uri: resourceUri, ead_id: resource.ead_id as string | undefined,
          ...(from ? { from: { uri: from.uri as string, parent: (from.parent as Obj | undefined)?.ref as string | undefined } } : {}),
        });
        made(load);
        const { rows } = await readSheet(file, String(job.content_type), kind.marker, problems, (row, header) => {
          if (ctx.signal.aborted) throw new RollBack('canceled');
          return load.onRow(row, header);
        }, ctx.signal);
        if (!ctx.signal.aborted) await load.finish();
        outcome = { rows, load };
        if (problems.errors || validateOnly || ctx.signal.aborted) throw new RollBack();
      });
      committed = true;
    } catch (err) {
      if (err instanceof ImportFailed) failure = err.message;
      else if (!(err instanceof RollBack)) {
        log.error('spreadsheet job', { job: ctx.jobId, error: (err as Error).stack });
        failure = `${file.name}: ${(err as Error).message}`;
      }
    }
  }
  const seconds = (Date.now() - started) / 1000;
  await ctx.log(`${file.name}: ${kind.what} for ${resourceUri}${validateOnly ? ' (only validate: nothing is written)' : ''}`);
  for (const line of lines) await ctx.log(line);
  for (const p of problems.all) await ctx.log(`${p.severity === 'error' ? 'error' : 'warning'}: ${describeProblem(p)}`);
  if (ctx.signal.aborted && !committed) {
    await ctx.log(`${file.name}: canceled; nothing of this sheet was written`);
    return 'canceled';
  }
  if (failure || !outcome) {
    await ctx.log(`error: ${failure}; nothing of this sheet was written`);
    return 'failed';
  }
  const { rows, load } = outcome;
  const counts = Object.entries(load.counts).map(([t, n]) => `${n} ${t}`).join(', ') || 'nothing';
  await ctx.addOutputFile(`${file.name.replace(/\.[^.]+$/, '')}-results.csv`, load.results.csv(problems));
  if (problems.errors) {
    await ctx.log(`error: ${problems.errors} row problem(s) in ${rows} row(s)${validateOnly ? '' : '; nothing of this sheet was written'}`);
    return 'failed';
  }
  const changed = load.updated.length ? `; changed ${load.updated.length} archival object(s)` : '';
  if (validateOnly) {
    await ctx.log(`${file.name}: valid: ${rows} row(s) would write ${counts}${changed}; ${problems.all.length} value(s) would be left out; nothing was written`);
    return 'completed';
  }
  for (const uris of load.created.slices(RECORDS_AT_ONCE)) await ctx.addRecords(uris);
  const created = load.created.holding(load.updated);
  const changedOnly = load.updated.filter((u) => !created.has(u));
  if (changedOnly.length) await ctx.addRecords(changedOnly);
  const rate = Math.round(rows / Math.max(seconds, 0.001));
  await ctx.log(`${file.name}: imported ${rows} row(s) in ${seconds.toFixed(1)} s (${rate} rows/s): created ${counts}${changed}; ${problems.all.length} value(s) left out`);
  return 'completed';
}
