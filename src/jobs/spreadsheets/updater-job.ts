/**
 * bulk_archival_object_updater_job (ArchivesSpace's "Bulk Update Archival Objects"): an updater
 * sheet (POST .../generate_spreadsheet), edited, applied back to its archival objects. Its checks
 * are ArchivesSpace's: every row names an archival object that exists, all of one resource; the
 * sheet's version of each record is the record's version now (a record changed by someone else since
 * the sheet was made is reported, not overwritten); a top container is one the resource already
 * has (or is created, with create_missing_top_containers). The whole sheet is applied in ONE
 * transaction: an error anywhere rolls every change back, as ArchivesSpace reverts, and the log
 * lists every error with its row and column path. Only changed cells are applied (updater-apply.ts).
 */
import { ApiError, errors } from '../../errors';
import { log } from '../../log';
import type { Obj } from '../../json';
import { updateRecord } from '../../records/write';
import { prepareRecord } from '../../validation';
import { ImportFailed, type ImportOutput } from '../../exchange/import/types';
import type { Tx } from '../../store/database';
import { jsonOfUri, linksFromTypes } from '../../store/domain-reads';
import type { JobContext, JobEnd, JobType } from '../job-type';
import { errorText } from './columns';
import { SheetSession } from './session';
import { describeProblem, Problems, SheetRow } from './sheet';
import { applyRow, type DigitalObjectCells } from './updater-apply';
import { type Column, columnForPath, pathOf } from './updater-columns';
import { columnLetters, linkedRecords, SHEET_NAME } from './updater-sheet';
import { readXlsx } from './xlsx';
import { writeTransaction } from '../../records/context';

class RollBack extends Error {}

/** The sheet's rows applied in the job's transaction. */
class UpdaterLoad extends SheetSession {
  /** The sheet's columns by their index in row 2 (a gap where row 2 has no path). */
  pathColumns: Column[] = [];
  rows = 0;
  /** The resource of the sheet's archival objects: the first row's. */
  private resourceUri?: string;
  private readonly found = new Map<string, string | undefined>();
  /** The digital objects the sheet named, by identifier: the first row that did, and the cells that agree with it. */
  private readonly digitalObjects = new Map<string, { uri: string; row: number; keys: Set<string> }>();

  constructor(ctx: JobContext, trx: Tx, out: ImportOutput, private readonly createMissing: boolean) {
    // The session's resource is the bulk import's; the updater's comes from its rows (resourceUri).
    super(ctx.s, trx, ctx.repoId, ctx.actor, { path: ctx.inputFiles[0].stored, name: String(ctx.job.filename) }, out, { uri: '' });
  }

  /** Row 2: each column's path. */
  header(cells: string[]): void {
    this.pathColumns = [];
    const paths = new Set<string>();
    cells.forEach((raw, i) => {
      const path = raw.trim();
      if (!path) return;
      const column = columnForPath(path);
      if (!column) throw new ImportFailed(`row 2, column ${columnLetters(i)}: '${path}' is not a column of the updater's sheet; is this sheet made by generate_spreadsheet?`);
      if (paths.has(path)) throw new ImportFailed(`row 2, column ${columnLetters(i)}: the column '${path}' appears twice`);
      paths.add(path);
      this.pathColumns[i] = column;
    });
    for (const needed of ['id', 'lock_version']) {
      if (!paths.has(needed)) throw new ImportFailed(`row 2: the sheet has no '${needed}' column; is this sheet made by generate_spreadsheet?`);
    }
  }

  async row(row: SheetRow): Promise<void> {
    this.rows++;
    const id = row.get('id') ?? '';
    if (!/^\d+$/.test(id)) return row.error('id', `'${id}' is not the id of an archival object`);
    const uri = `/repositories/${this.repoId}/archival_objects/${id}`;
    const json = await jsonOfUri(this.trx, uri);
    if (!json) return row.error('id', `no archival object ${id} in this repository`);
    const before = JSON.parse(json) as Obj;
    const resource = (before.resource as Obj | undefined)?.ref as string | undefined;
    this.resourceUri ??= resource;
    if (resource !== this.resourceUri) return row.error('id', `archival object ${id} belongs to ${resource}, not to ${this.resourceUri}: a sheet updates the archival objects of one resource`);
    const version = row.get('lock_version') ?? '';
    if (version !== String(before.lock_version)) {
      return row.error('lock_version', `archival object ${id} (${String(before.display_string ?? before.title)}) was changed by someone else since the sheet was made (the sheet has version ${version || 'none'}, the record is now at version ${String(before.lock_version)}); it is not overwritten: make a new sheet`);
    }
    const after = structuredClone(before);
    const changed = await applyRow({
      row, columns: this.pathColumns.filter(Boolean), before, after, linked: await linkedRecords(this.s, [before], this.trx),
      values: (list) => this.s.enums.get(list)?.values, container: (t, i, b) => this.container(t, i, b),
      digitalObject: (column, cells) => this.digitalObject(row, column, cells),
    });
    if (!changed || row.failed) return;
    try {
      const prepared = prepareRecord(this.s.registry, this.s.enums, 'archival_object', after);
      await updateRecord(this.s, this.actor, { type: this.s.registry.type('archival_object'), repoId: this.repoId }, Number(id), prepared.record, prepared.warnings, { trx: this.trx });
      this.updated.push(uri);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const e = err.body.error;
      const paths = new Set(this.pathColumns.filter(Boolean).map(pathOf));
      // A property path that is a column of the sheet (dates/0/begin) names that column.
      if (e && typeof e === 'object' && !Array.isArray(e)) {
        for (const [property, messages] of Object.entries(e)) row.error(paths.has(property) ? property : undefined, `${paths.has(property) ? '' : `${property}: `}${Array.isArray(messages) ? messages.join(', ') : String(messages)}`);
      } else row.error(undefined, `the archival object is not valid: ${errorText(err)}`);
    }
  }

  /**
   * The digital object of the repository with the cells' identifier, as ArchivesSpace's updater does
   * it: one that exists is linked, and changed when a title, publish or file version cell says
   * otherwise (emptying the file version's URI and caption removes its first file version); one
   * that does not is created. Rows of one sheet that name the same digital object must agree.
   */
  private async digitalObject(row: SheetRow, column: string, cells: DigitalObjectCells): Promise<string | undefined> {
    const id = cells.digital_object_id!;
    const key = JSON.stringify(cells);
    const seen = this.digitalObjects.get(id);
    if (seen) {
      if (seen.keys.has(key)) return seen.uri;
      row.error(column, `row ${seen.row} gave the digital object '${id}' other values; rows that name one digital object must agree`);
      return undefined;
    }
    const [uri] = await this.lookup('digital_object', 'digital_object_id', id);
    const hasFile = cells.file_version_file_uri !== undefined || cells.file_version_caption !== undefined;
    const file = (current: Obj = {}): Obj => ({
      ...current, jsonmodel_type: 'file_version', file_uri: cells.file_version_file_uri,
      ...(cells.file_version_caption === undefined ? {} : { caption: cells.file_version_caption }),
      ...(cells.file_version_publish === undefined ? {} : { publish: cells.file_version_publish }),
    });
    if (!uri) {
      if (cells.digital_object_title === undefined) {
        row.error(column, `there is no digital object '${id}' in this repository; to create one, give its title too`);
        return undefined;
      }
      const created = await this.write(row, column, 'digital_object', {
        digital_object_id: id, title: cells.digital_object_title,
        ...(cells.digital_object_publish === undefined ? {} : { publish: cells.digital_object_publish }),
        ...(hasFile ? { file_versions: [file()] } : {}),
      });
      if (created) this.digitalObjects.set(id, { uri: created, row: row.number, keys: new Set([key]) });
      return created;
    }
    const before = (await this.recordAt(uri))!;
    const after = structuredClone(before);
    const untouched: DigitalObjectCells = { digital_object_id: id, digital_object_title: before.title as string | undefined, digital_object_publish: before.publish === true };
    const files = Array.isArray(after.file_versions) ? after.file_versions as Obj[] : [];
    if (files[0]) Object.assign(untouched, { file_version_file_uri: files[0].file_uri, file_version_caption: files[0].caption, file_version_publish: files[0].publish === true });
    this.digitalObjects.set(id, { uri, row: row.number, keys: new Set([key, JSON.stringify(untouched)]) });
    // Only the identifier given: a link to the digital object as it is.
    if (Object.entries(cells).every(([k, v]) => k === 'digital_object_id' || v === undefined)) return uri;
    if (cells.digital_object_title !== undefined) after.title = cells.digital_object_title;
    if (cells.digital_object_publish !== undefined) after.publish = cells.digital_object_publish;
    if (hasFile) after.file_versions = [file(files[0]), ...files.slice(1)];
    else if (files[0]) after.file_versions = files.slice(1);
    if (JSON.stringify(after) === JSON.stringify(before)) return uri;
    try {
      const prepared = prepareRecord(this.s.registry, this.s.enums, 'digital_object', after);
      await updateRecord(this.s, this.actor, { type: this.s.registry.type('digital_object'), repoId: this.repoId }, Number(uri.split('/').pop()), prepared.record, prepared.warnings, { trx: this.trx });
      this.updated.push(uri);
      return uri;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      row.error(column, `the digital object '${id}' is not valid: ${errorText(err)}`);
      return undefined;
    }
  }

  /** The resource's top container of this type, indicator and barcode; created when the job allows it. */
  private async container(type: string, indicator: string, barcode: string | undefined): Promise<string | undefined> {
    const key = `${type}|${indicator}|${barcode ?? ''}`;
    if (this.found.has(key)) return this.found.get(key);
    let uri: string | undefined;
    for (const candidate of await this.lookup('top_container', 'indicator', indicator)) {
      const record = await this.recordAt(candidate);
      if (!record || record.type !== type || (record.barcode ?? '') !== (barcode ?? '')) continue;
      const links = await linksFromTypes(this.trx, [candidate], ['archival_object']);
      if (links.some((l) => l.root_uri === this.resourceUri)) {
        uri = candidate;
        break;
      }
    }
    if (!uri && this.createMissing) {
      uri = await this.create('top_container', { type, indicator, ...(barcode ? { barcode } : {}) }, ['top_container']);
      this.out.log('info', `created the top container ${type} ${indicator}${barcode ? ` [${barcode}]` : ''}`);
    }
    this.found.set(key, uri);
    return uri;
  }
}

async function runUpdater(ctx: JobContext): Promise<JobEnd> {
  const { s, job } = ctx;
  const file = { path: ctx.inputFiles[0].stored, name: String(job.filename) };
  const lines: string[] = [];
  const problems = new Problems();
  const out: ImportOutput = { signal: ctx.signal, log: (level, message) => lines.push(`${level}: ${message}`), progress: () => undefined };
  const createMissing = job.create_missing_top_containers === true || job.create_missing_top_containers === 'true';
  let load: UpdaterLoad | undefined;
  let failure: string | undefined;
  let committed = false;
  const started = Date.now();
  try {
    await writeTransaction(s, async (trx) => {
      const l = new UpdaterLoad(ctx, trx, out, createMissing);
      load = l;
      let header = false;
      await readXlsx(file, async (number, cells) => {
        if (ctx.signal.aborted) throw new RollBack();
        if (number === 1) return;
        if (number === 2) {
          l.header(cells);
          header = true;
          return;
        }
        if (!header) throw new ImportFailed('row 2 (the column paths) is missing; is this sheet made by generate_spreadsheet?');
        if (cells.every((c) => c.trim() === '')) return;
        const byPath = new Map<string, string>();
        cells.forEach((c, i) => {
          const column = l.pathColumns[i];
          if (column && c.trim() !== '') byPath.set(pathOf(column), c.trim());
        });
        await l.row(new SheetRow(number, byPath, problems));
        ctx.rowProgress?.(l.rows);
      }, ctx.signal);
      if (!header) throw new ImportFailed('the sheet has no column paths (row 2); is this sheet made by generate_spreadsheet?');
      if (!l.rows) throw new ImportFailed('the sheet has no rows of archival objects');
      if (problems.errors || ctx.signal.aborted) throw new RollBack();
    });
    committed = true;
  } catch (err) {
    if (err instanceof ImportFailed) failure = `${file.name}: ${err.message.replace(`${file.name}: `, '')}`;
    else if (!(err instanceof RollBack)) {
      log.error('bulk archival object updater job', { job: ctx.jobId, error: (err as Error).stack });
      failure = `${file.name}: ${(err as Error).message}`;
    }
  }
  await ctx.log(`${file.name}: bulk update of archival objects (sheet '${SHEET_NAME}')`);
  for (const line of lines) await ctx.log(line);
  for (const p of problems.all) await ctx.log(`error: sheet '${SHEET_NAME}', ${describeProblem(p)}`);
  if (ctx.signal.aborted && !committed) {
    await ctx.log(`${file.name}: canceled; all changes have been reverted`);
    return 'canceled';
  }
  if (failure || !committed || !load) {
    await ctx.log(`error: ${failure ?? `${problems.errors} error(s) in ${load?.rows ?? 0} row(s)`}; all changes have been reverted: nothing of this sheet was written. Correct the sheet and submit it again`);
    return 'failed';
  }
  await ctx.addRecords([...load.created, ...load.updated]);
  const seconds = (Date.now() - started) / 1000;
  await ctx.log(`${file.name}: bulk update completed in ${seconds.toFixed(1)} s: ${load.updated.length} record(s) of ${load.rows} row(s) were updated${load.created.length ? `; ${load.created.length} top container(s) created` : ''}`);
  return 'completed';
}

export const bulkArchivalObjectUpdaterJob: JobType = {
  name: 'bulk_archival_object_updater_job',
  createPermissions: ['update_resource_record'],
  cancelPermissions: [],
  accept: (s, _repoId, job, files) => {
    if (files.length !== 1) throw errors.invalidParam('files', `the updater takes one spreadsheet (${files.length} given)`);
    const [file] = files;
    if (!/\.xlsx$/i.test(file.filename) && !String(job.content_type ?? '').includes('spreadsheetml')) {
      throw errors.invalidParam('files', `${file.filename}: the updater reads the XLSX sheet that generate_spreadsheet makes`);
    }
    if (file.data.length > s.config.jobs.importMaxBytes) throw errors.invalidParam('files', `${file.filename} is larger than IMPORT_MAX_BYTES (${s.config.jobs.importMaxBytes} bytes)`);
    const create = job.create_missing_top_containers;
    if (create !== undefined && ![true, false, 'true', 'false'].includes(create as never)) throw errors.mustBe('create_missing_top_containers', 'a boolean');
    return {
      jsonmodel_type: 'bulk_archival_object_updater_job', filename: String(job.filename ?? file.filename),
      ...(create === undefined ? {} : { create_missing_top_containers: create === true || create === 'true' }),
    };
  },
  run: runUpdater,
};
