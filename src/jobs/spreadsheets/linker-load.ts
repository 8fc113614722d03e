/**
 * top_container_linker_job: each data row of ArchivesSpace's top container linker sheet adds a
 * container instance to an archival object of the job's resource (found by ref_id). The top
 * container is an existing one named by its record number (top_container_id), or a new one made
 * from top_container_type, _indicator and _barcode (with its location and container profile),
 * shared by the sheet's rows that name the same type and indicator. The checks are ArchivesSpace's
 * validator's: a new container's type and indicator, or its barcode, must not be taken already,
 * nor a child container's barcode (child_barcode) by a sub-container stored before the sheet; and
 * rows that give one child type and indicator must give it one barcode.
 */
import type { Obj } from '../../json';
import { recordsWithJsonValue } from '../../store/record-finders';
import { SheetSession } from './session';
import type { SheetRow } from './sheet';

export const LINKER_MARKER = /ArchivesSpace field code/;

export class TopContainerLinkerLoad extends SheetSession {
  /** The containers this sheet created, by type and indicator, with their barcode. */
  private readonly made = new Map<string, { uri: string; barcode?: string }>();
  /** The child containers' barcodes this sheet gave, by child type and indicator, and all of them. */
  private readonly childMade = new Map<string, string>();
  private readonly childBarcodes = new Set<string>();

  async onRow(row: SheetRow, header: readonly string[]): Promise<void> {
    this.useHeader(header);
    const ao = await this.archivalObject(row);
    const eadId = row.get('ead_id');
    if (eadId === undefined) row.error('ead_id', "the row names no resource: fill 'ead_id'");
    else if (eadId !== this.resource.ead_id) row.error('ead_id', `'${eadId}' is not the EAD ID of this job's resource (${this.resource.ead_id ?? 'it has none'})`);
    const rawType = row.get('instance_type');
    const instanceType = rawType === undefined ? (row.error('instance_type', 'the instance type is missing'), undefined)
      : this.columns.listValue(row, 'instance_type', 'instance_instance_type', rawType, 'error');
    const container = await this.container(row);
    if (ao && instanceType && container && !row.failed) {
      const sub: Obj = { jsonmodel_type: 'sub_container', top_container: { ref: container } };
      const [childType, childIndicator, childBarcode] = ['child_type', 'child_indicator', 'child_barcode'].map((c) => row.get(c));
      if (childBarcode !== undefined) await this.checkChildBarcode(row, childBarcode, childType, childIndicator);
      if (childType !== undefined && childIndicator !== undefined) {
        const t = this.columns.listValue(row, 'child_type', 'container_type', childType, 'error');
        Object.assign(sub, { type_2: t, indicator_2: childIndicator, ...(childBarcode ? { barcode_2: childBarcode } : {}) });
      }
      if (!row.failed) await this.addInstance(ao.uri, { jsonmodel_type: 'instance', instance_type: instanceType, sub_container: sub });
    }
    this.results.push({ row: row.number, uri: ao?.uri, title: ao?.title, ref_id: row.get('ref_id') });
    this.out.progress(this.results.length);
  }

  private async archivalObject(row: SheetRow): Promise<{ uri: string; title?: string } | undefined> {
    const refId = row.get('ref_id');
    if (refId === undefined) {
      row.error('ref_id', 'the ref_id of the archival object is missing');
      return undefined;
    }
    for (const uri of await this.lookup('archival_object', 'ref_id', refId)) {
      const record = await this.recordAt(uri);
      if ((record?.resource as Obj | undefined)?.ref === this.resource.uri) return { uri, title: record?.title as string | undefined };
    }
    row.error('ref_id', `no archival object of this job's resource has the ref_id '${refId}'`);
    return undefined;
  }

  /** The row's top container: an existing one by record number, or one this sheet makes. */
  private async container(row: SheetRow): Promise<string | undefined> {
    const id = row.get('top_container_id');
    const indicator = row.get('top_container_indicator');
    if (id === undefined && indicator === undefined) {
      row.error('top_container_indicator', 'fill either top_container_indicator (a new container) or top_container_id (an existing one)');
      return undefined;
    }
    if (id !== undefined && indicator !== undefined) {
      row.error('top_container_id', 'fill either top_container_indicator (a new container) or top_container_id (an existing one), not both');
      return undefined;
    }
    if (id !== undefined) {
      const uri = `/repositories/${this.repoId}/top_containers/${id}`;
      if (/^\d+$/.test(id) && await this.exists(uri, 'top_container')) return uri;
      row.error('top_container_id', `no top container ${id} in this repository`);
      return undefined;
    }
    const rawType = row.get('top_container_type');
    if (rawType === undefined) {
      row.error('top_container_type', 'a new top container needs its type');
      return undefined;
    }
    const type = this.columns.listValue(row, 'top_container_type', 'container_type', rawType, 'error');
    if (!type) return undefined;
    const barcode = row.get('top_container_barcode');
    const key = `${type}|${indicator}`;
    const made = this.made.get(key);
    if (made) {
      if (barcode !== undefined && barcode !== made.barcode) row.error('top_container_barcode', `an earlier row gave ${rawType} ${indicator} the barcode '${made.barcode ?? ''}'`);
      return made.uri;
    }
    if (await this.resourceContainer(type, indicator!)) {
      row.error('top_container_indicator', `the resource already has a top container ${rawType} ${indicator}: name it by top_container_id`);
      return undefined;
    }
    if (barcode !== undefined && (await this.lookup('top_container', 'barcode', barcode)).length) {
      row.error('top_container_barcode', `a top container with the barcode '${barcode}' already exists`);
      return undefined;
    }
    const body: Obj = { type, indicator, ...(barcode ? { barcode } : {}) };
    const location = await this.linked(row, 'location_id', 'location', (n) => `/locations/${n}`);
    if (location) body.container_locations = [{ jsonmodel_type: 'container_location', ref: location, status: 'current', start_date: new Date().toISOString().slice(0, 10) }];
    const profile = await this.linked(row, 'container_profile_id', 'container_profile', (n) => `/container_profiles/${n}`);
    if (profile) body.container_profile = { ref: profile };
    if (row.failed) return undefined;
    const uri = await this.write(row, 'top_container_indicator', 'top_container', body);
    if (uri) this.made.set(key, { uri, barcode });
    return uri;
  }

  /**
   * As ArchivesSpace's validator: a child barcode a sub-container stored before the sheet already
   * has fails the row; so does one that differs from the barcode an earlier row gave the same
   * child type and indicator.
   */
  private async checkChildBarcode(row: SheetRow, barcode: string, type?: string, indicator?: string): Promise<void> {
    if (!this.childBarcodes.has(barcode) && await this.subContainerBarcodeTaken(barcode)) {
      row.error('child_barcode', `a child container with the barcode '${barcode}' already exists`);
      return;
    }
    if (type === undefined || indicator === undefined) return;
    const key = `${type}|${indicator}`;
    const earlier = this.childMade.get(key);
    if (earlier !== undefined && earlier !== barcode) row.error('child_barcode', `an earlier row gave the child container ${type} ${indicator} the barcode '${earlier}'`);
    else {
      this.childMade.set(key, barcode);
      this.childBarcodes.add(barcode);
    }
  }

  /** Whether a record of the repository (of any type with instances) has a sub-container with this barcode_2. */
  private async subContainerBarcodeTaken(barcode: string): Promise<boolean> {
    const withInstances = Object.keys(this.s.registry.types).filter((t) => (this.s.registry.schemas[t]?.properties as Obj | undefined)?.instances);
    for (const type of withInstances) {
      const found = await recordsWithJsonValue(this.trx, { type, repoId: this.repoId }, 'barcode_2', barcode, 20);
      if (found.some((r) => (r.record.instances as Obj[] | undefined ?? []).some((i) => (i.sub_container as Obj | undefined)?.barcode_2 === barcode))) return true;
    }
    return false;
  }

  /** The record a column names by its record number; the row's error when there is none. */
  private async linked(row: SheetRow, column: string, type: string, uriOf: (n: string) => string): Promise<string | undefined> {
    const n = row.get(column);
    if (n === undefined) return undefined;
    if (/^\d+$/.test(n) && await this.exists(uriOf(n), type)) return uriOf(n);
    row.error(column, `no ${type.replace('_', ' ')} ${n}`);
    return undefined;
  }
}
