/**
 * load_type "ao": each data row of ArchivesSpace's archival-object template becomes an archival
 * object of the job's resource, placed by its `hierarchy` column as ArchivesSpace places it: a row
 * of level 1 is a top-level component of the resource, a row of level n the last child of the
 * nearest row above it of level n-1. A row may go deeper by one level at most. With aoid, level 1
 * is the chosen archival object's level instead of the resource's top.
 */
import type { Obj } from '../../json';
import type { Actor, Services } from '../../records/context';
import type { ImportInput, ImportOutput } from '../../exchange/import/types';
import type { Tx } from '../../store/database';
import { holdDerivedRows } from '../../store/transaction-memo';
import { truthy } from './columns';
import { SheetSession, type SheetResource } from './session';
import type { SheetRow } from './sheet';

export const AO_MARKER = /ArchivesSpace field code/;

export class ArchivalObjectLoad extends SheetSession {
  /** The record written at each level on the way down to the current row (level 0: the resource). */
  private readonly parents = new Map<number, string | undefined>([[0, undefined]]);
  private level = 0;
  /** The level of a row that was not written: the rows below it (deeper) cannot be placed. */
  private failedLevel?: number;
  private failedRow = 0;
  private placedFrom = false;
  /**
   * The ref_ids of the rows written: a row's ref_id taken by a row above it is found here (the rows
   * are inserted in hundreds, so the store need not hold the row above yet).
   */
  private readonly refIds = new Set<string>();

  constructor(s: Services, trx: Tx, repoId: number, actor: Actor, input: ImportInput, out: ImportOutput, resource: SheetResource) {
    super(s, trx, repoId, actor, input, out, resource);
    // The rows' unique keys (their ref_id in the resource) are written a thousand at a time, not one
    // statement a row: a row's ref_id is looked for before it is written (in the store and the
    // sheet's rows above it), so the clash is reported on its row and column as before.
    holdDerivedRows(trx, { uniqueKeys: ['archival_object'] });
  }

  async onRow(row: SheetRow, header: readonly string[]): Promise<void> {
    this.useHeader(header);
    // Loaded from an archival object (aoid), as ArchivesSpace places it: level 1 rows go beside it
    // under its parent, and rows of level 2 before any row of level 1 go under it.
    if (this.resource.from && !this.placedFrom) {
      this.placedFrom = true;
      this.parents.set(0, this.resource.from.parent);
      this.parents.set(1, this.resource.from.uri);
      this.level = 1;
    }
    const level = this.placeRow(row);
    const before = row.number;
    if (level === undefined) return;
    this.matchesResource(row);
    const title = row.get('title');
    const dates = this.columns.dates(row);
    if (title === undefined && !dates.length) row.error('title', 'a row needs a title or a valid date');
    const rawLevel = row.get('level');
    const recordLevel = rawLevel === undefined ? (row.error('level', 'the description level is missing'), undefined)
      : this.columns.listValue(row, 'level', 'archival_record_level', rawLevel, 'error');
    // An empty publish cell is false, for the row and for its notes and languages (as ArchivesSpace's own sample sheets expect).
    const publish = truthy(row.get('publish')) ?? false;
    const restrictions = truthy(row.get('restrictions_flag'));
    const body: Obj = {
      resource: { ref: this.resource.uri },
      ...(this.parents.get(level - 1) ? { parent: { ref: this.parents.get(level - 1) } } : {}),
      ...(title === undefined ? {} : { title }),
      ...(recordLevel ? { level: recordLevel } : {}),
      ...(recordLevel === 'otherlevel' ? { other_level: row.get('other_level') ?? 'unspecified' } : {}),
      publish,
      ...(restrictions === undefined ? {} : { restrictions_apply: restrictions }),
      dates,
    };
    for (const [field, column] of [['ref_id', 'ref_id'], ['component_id', 'unit_id'], ['repository_processing_note', 'processing_note']]) {
      if (row.get(column) !== undefined) body[field] = row.get(column);
    }
    const refId = row.get('ref_id');
    if (refId !== undefined && (this.refIds.has(refId) || (await this.lookup('archival_object', 'ref_id', refId)).length)) {
      row.error('ref_id', `an archival object with the ref_id '${refId}' already exists (was this sheet imported before?)`);
    }
    body.lang_materials = this.columns.langs(row, publish);
    body.extents = this.columns.extents(row);
    body.notes = this.columns.notes(row, publish);
    body.instances = await this.containerInstances(row);
    if (['digital_object_title', 'rep_file_uri', 'nonrep_file_uri', 'digital_object_id'].some((c) => row.get(c) !== undefined)) {
      const instance = await this.digitalObjectInstance(row, title ?? 'Digital object');
      if (instance) (body.instances as Obj[]).push(instance);
    }
    body.subjects = await this.subjectLinks(row);
    body.linked_agents = await this.agentLinks(row);
    body.accession_links = await this.accessionLinks(row);
    // Its row is inserted with the rows after it, a hundred a statement (a round trip each on MySQL).
    const uri = !row.failed ? await this.write(row, undefined, 'archival_object', body, true) : undefined;
    if (uri && refId !== undefined) this.refIds.add(refId);
    if (!uri) {
      this.failedLevel = level;
      this.failedRow = before;
    }
    this.parents.set(level, uri);
    for (const deeper of [...this.parents.keys()].filter((k) => k > level)) this.parents.delete(deeper);
    this.results.push({ row: row.number, uri, title: title ?? (dates[0]?.expression as string | undefined), ref_id: refId });
    this.out.progress(this.results.length);
  }

  /** The row's level in the tree; undefined (the row's error given) when it cannot be placed. */
  private placeRow(row: SheetRow): number | undefined {
    const raw = row.get('hierarchy');
    const level = raw === undefined ? NaN : Number(raw);
    if (this.failedLevel !== undefined && level > this.failedLevel) {
      row.error('hierarchy', `the row above it at level ${this.failedLevel} (row ${this.failedRow}) was not written, so this row has no parent`);
      return undefined;
    }
    this.failedLevel = undefined;
    if (raw === undefined) row.error('hierarchy', 'the hierarchy level is missing');
    else if (!Number.isInteger(level) || level < 1) row.error('hierarchy', `'${raw}' is not a level (1 for the resource's top components, 2 below them...)`);
    else if (level - 1 > this.level) row.error('hierarchy', `the row goes from level ${this.level} to level ${level}; a row may go one level deeper at most`);
    else {
      this.level = level;
      return level;
    }
    this.failedLevel = Number.isInteger(level) && level >= 1 ? level : this.level;
    this.failedRow = row.number;
    return undefined;
  }

  private async accessionLinks(row: SheetRow): Promise<Obj[]> {
    const links: Obj[] = [];
    for (const column of this.columns.matching('accession links', (h) => /^accession_uri_\d+$/.test(h))) {
      const raw = row.get(column);
      if (raw === undefined) continue;
      const uri = /^\d+$/.test(raw) ? `/repositories/${this.repoId}/accessions/${raw}` : raw;
      if (await this.exists(uri, 'accession')) links.push({ ref: uri });
      else row.dropped(column, `no accession ${raw} in this repository; it is not linked`);
    }
    return links;
  }
}
