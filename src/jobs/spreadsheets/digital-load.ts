/**
 * load_type "digital": each data row of ArchivesSpace's digital-object template creates a digital
 * object and links it, as a digital-object instance, to an archival object of the job's resource
 * that already exists (named by ao_uri, else by ao_ref_id).
 */
import type { Obj } from '../../json';
import { jsonOfUri } from '../../store/domain-reads';
import { truthy } from './columns';
import { SheetSession } from './session';
import { SheetRow } from './sheet';

export const DIGITAL_MARKER = /ArchivesSpace digital object import field codes/;

export class DigitalObjectLoad extends SheetSession {

  async onRow(row: SheetRow, header: readonly string[]): Promise<void> {
    this.useHeader(header);
    this.matchesResource(row);
    const ao = await this.archivalObject(row);
    const extra: Obj = {
      dates: this.columns.dates(row),
      extents: this.columns.extents(row),
      notes: this.notes(row),
      subjects: await this.subjectLinks(row),
      linked_agents: await this.agentLinks(row),
    };
    const restrictions = truthy(row.get('restrictions'));
    if (restrictions !== undefined) extra.restrictions = restrictions;
    for (const [column, list, field] of [['level', 'digital_object_level', 'level'], ['digital_object_type', 'digital_object_digital_object_type', 'digital_object_type']]) {
      const raw = row.get(column);
      const v = raw === undefined ? undefined : this.columns.listValue(row, column, list, raw);
      if (v) extra[field] = v;
    }
    const instance = ao ? await this.digitalObjectInstance(row, String(ao.record.title ?? ao.record.display_string ?? 'Digital object'), extra) : undefined;
    if (ao && instance && !row.failed) await this.addInstance(ao.uri, instance);
    this.results.push({ row: row.number, uri: ao?.uri, title: ao?.record.title as string | undefined, ref_id: ao?.record.ref_id as string | undefined });
    this.out.progress(this.results.length);
  }

  /** The archival object the row names, in this job's resource. */
  private async archivalObject(row: SheetRow): Promise<{ uri: string; record: Obj } | undefined> {
    const uriCell = row.get('ao_uri');
    const refId = row.get('ao_ref_id');
    let uri: string | undefined;
    let column = 'ao_uri';
    if (uriCell !== undefined) uri = /^\d+$/.test(uriCell) ? `/repositories/${this.repoId}/archival_objects/${uriCell}` : uriCell;
    else if (refId !== undefined) {
      column = 'ao_ref_id';
      const found = await this.lookup('archival_object', 'ref_id', refId);
      if (found.length > 1) {
        row.error(column, `more than one archival object has the ref_id '${refId}'`);
        return undefined;
      }
      uri = found[0];
    } else {
      row.error('ao_ref_id', "the row names no archival object: fill 'ao_ref_id' or 'ao_uri'");
      return undefined;
    }
    const json = uri ? await jsonOfUri(this.trx, uri) : undefined;
    const record = json ? JSON.parse(json) as Obj : undefined;
    if (!record || record.jsonmodel_type !== 'archival_object') {
      row.error(column, `no archival object '${uriCell ?? refId}' in this repository`);
      return undefined;
    }
    if ((record.resource as Obj | undefined)?.ref !== this.resource.uri) {
      row.error(column, `the archival object ${uri} is not part of this job's resource (${this.resource.uri})`);
      return undefined;
    }
    return { uri: uri!, record };
  }

  /** Digital object notes: note_type, note_label, note_content, note_publish, unnumbered or _2... */
  private notes(row: SheetRow): Obj[] {
    const notes: Obj[] = [];
    const types = this.s.enums.get('note_digital_object_type')?.values ?? [];
    for (const n of this.columns.suffixes(/^note_type(_\d+)?$/)) {
      const type = row.get(`note_type${n}`);
      const content = row.get(`note_content${n}`);
      if (type === undefined && content === undefined) continue;
      const t = type === undefined ? undefined : this.columns.listValue(row, `note_type${n}`, 'note_digital_object_type', type);
      if (!t || !types.includes(t)) {
        if (type === undefined) row.dropped(`note_type${n}`, 'a note needs its type; the note is left out');
        continue;
      }
      if (content === undefined || !this.columns.wellFormed(row, `note_content${n}`, content)) continue;
      const publish = truthy(row.get(`note_publish${n}`));
      const label = row.get(`note_label${n}`);
      notes.push({ jsonmodel_type: 'note_digital_object', type: t, content: [content], ...(label ? { label } : {}), ...(publish === undefined ? {} : { publish }) });
    }
    return notes;
  }
}
