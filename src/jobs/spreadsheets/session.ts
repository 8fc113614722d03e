/**
 * What both bulk-import loads share: the sheet's resource, and the records a row links to found or
 * created as ArchivesSpace's handlers do them: agents (by record id, else by heading, else created
 * with source "ingest", name order direct), subjects (by record id, else term, type and source,
 * else created), top containers (by barcode in the repository, else by type and indicator among
 * the resource's containers, else created), digital objects (created; their identifiers unique).
 * Everything is written in the sheet's one transaction.
 */
import crypto from 'node:crypto';
import type { Tx } from '../../store/database';
import type { Obj } from '../../json';
import type { Actor, Services } from '../../records/context';
import { lookupHash, lookupValue } from '../../records/keys';
import { updateRecord } from '../../records/write';
import { prepareRecord } from '../../validation';
import { ImportSession } from '../../exchange/import/session';
import { ImportFailed, type ImportInput, type ImportOutput } from '../../exchange/import/types';
import { hasRecord, jsonOfUri, linksFromTypes, recordQueries } from '../../store/domain-reads';
import { ColumnReader, truthy } from './columns';
import { RowResults } from './row-results';
import type { SheetRow } from './sheet';
import { UriList } from '../../store/uri-list';

/** The agent column groups of the templates and the agent type each names. */
const AGENT_GROUPS = [['people', 'agent_person', 'people'], ['corporate_entities', 'agent_corporate_entity', 'corporate_entities'], ['families', 'agent_family', 'families']] as const;

export interface SheetResource {
  uri: string;
  ead_id?: string;
  /** The archival object the sheet is loaded from (ArchivesSpace's aoid): level 1 rows become its siblings. */
  from?: { uri: string; parent?: string };
}

export class SheetSession extends ImportSession {
  /** Records the sheet created, in the order written (the job's records list): as numbers, not a string each. */
  readonly created = new UriList();
  /** Records the sheet changed (not created): the archival objects a digital load links. */
  readonly updated: string[] = [];
  /** Each row's outcome, for the results file (kept on disk as the rows go). */
  readonly results = new RowResults();
  protected columns!: ColumnReader;
  private readonly containers = new Map<string, string>();

  constructor(
    s: Services, trx: Tx, repoId: number, actor: Actor, input: ImportInput, out: ImportOutput,
    protected readonly resource: SheetResource,
  ) {
    super(s, trx, repoId, actor, input, out);
  }

  protected override noteCreated(uri: string): void {
    this.created.push(uri);
  }

  get counts(): Record<string, number> {
    return this.report.counts;
  }

  protected useHeader(header: readonly string[]): void {
    if (!this.columns) this.columns = new ColumnReader(this.s, (list, raw) => this.value(list, raw, true), header);
  }

  /**
   * A record written for a row; a refusal is the row's error (under `column`), and nothing is
   * returned. `batched`: its row is inserted with others (createInBatch); the refusal of a row
   * held before it, found as they are written, fails the sheet naming that row.
   */
  protected async write(row: SheetRow, column: string | undefined, type: string, body: Obj, batched = false): Promise<string | undefined> {
    const own = `${this.input.name}: row ${row.number}: `;
    try {
      return await (batched ? this.createInBatch(type, body, [`row ${row.number}`]) : this.create(type, body, [`row ${row.number}`]));
    } catch (err) {
      if (!(err instanceof ImportFailed) || (batched && !err.message.startsWith(own))) throw err;
      row.error(column, err.message.replace(own, ''));
      return undefined;
    }
  }

  /** The end of the sheet: what createInBatch holds is written. */
  async finish(): Promise<void> {
    await this.flushCreates();
  }

  /** The row names the sheet's resource by its EAD ID (ead) or URI (res_uri), as ArchivesSpace requires. */
  protected matchesResource(row: SheetRow): boolean {
    const uri = row.get('res_uri');
    const ead = row.get('ead');
    if (uri === undefined && ead === undefined) row.error('ead', "the row names no resource: fill 'ead' (the resource's EAD ID) or 'res_uri'");
    else if (uri !== undefined && uri !== this.resource.uri) row.error('res_uri', `'${uri}' is not the resource of this job (${this.resource.uri})`);
    else if (uri === undefined && this.resource.ead_id === undefined) row.error('ead', `the resource ${this.resource.uri} has no EAD ID: name it by 'res_uri'`);
    else if (uri === undefined && ead !== this.resource.ead_id) row.error('ead', `'${ead}' is not the EAD ID of this job's resource (${this.resource.ead_id})`);
    else return true;
    return false;
  }

  /** Agent links of the row: <group>_agent_record_id_N, _header_N, _role_N (creator when empty), _relator_N. */
  protected async agentLinks(row: SheetRow): Promise<Obj[]> {
    const links: Obj[] = [];
    for (const [group, type, path] of AGENT_GROUPS) {
      for (let n = 1; ; n++) {
        const idColumn = `${group}_agent_record_id_${n}`;
        const id = row.get(idColumn);
        const header = row.get(`${group}_agent_header_${n}`);
        if (id === undefined && header === undefined && !this.columns.has(`${group}_agent_header_${n + 1}`)) break;
        if (id === undefined && header === undefined) continue;
        const role = this.columns.listValue(row, `${group}_agent_role_${n}`, 'linked_agent_role', row.get(`${group}_agent_role_${n}`) ?? 'creator');
        const relatorRaw = row.get(`${group}_agent_relator_${n}`);
        const relator = relatorRaw === undefined ? undefined : this.columns.listValue(row, `${group}_agent_relator_${n}`, 'linked_agent_archival_record_relators', relatorRaw);
        if (!role || (relatorRaw !== undefined && !relator)) continue;
        let ref: string | undefined;
        if (id !== undefined) {
          const uri = `/agents/${path}/${id}`;
          if (/^\d+$/.test(id) && await hasRecord(this.trx, { uri })) ref = uri;
          else if (header === undefined) {
            row.dropped(idColumn, `no ${type} has the record id '${id}'; the agent is not linked`);
            continue;
          }
        }
        ref ??= await this.agent(type, header!, {}, { name: type === 'agent_person' ? { name_order: 'direct' } : {} });
        links.push({ ref, role, ...(relator ? { relator } : {}) });
      }
    }
    return links;
  }

  /** Subject links of the row: subject_N_record_id, _term, _type (topical when empty), _source (ingest when empty). */
  protected async subjectLinks(row: SheetRow): Promise<Obj[]> {
    const links: Obj[] = [];
    for (let n = 1; this.columns.matching(`subject ${n}`, (h) => h.startsWith(`subject_${n}_`)).length; n++) {
      const id = row.get(`subject_${n}_record_id`);
      const term = row.get(`subject_${n}_term`);
      if (id === undefined && term === undefined) continue;
      if (id !== undefined) {
        const uri = `/subjects/${id}`;
        if (/^\d+$/.test(id) && await hasRecord(this.trx, { uri })) {
          links.push({ ref: uri });
          continue;
        }
        if (term === undefined) {
          row.dropped(`subject_${n}_record_id`, `no subject has the record id '${id}'; it is not linked`);
          continue;
        }
      }
      const type = this.columns.listValue(row, `subject_${n}_type`, 'subject_term_type', row.get(`subject_${n}_type`) ?? 'topical');
      const source = this.columns.listValue(row, `subject_${n}_source`, 'subject_source', row.get(`subject_${n}_source`) ?? 'ingest');
      if (!type || !source) continue;
      links.push({ ref: await this.subject(type, term!, { source }) });
    }
    return links;
  }

  /**
   * Container instances: cont_instance_type, type_1, indicator_1, barcode (the top container),
   * type_2, indicator_2, type_3, indicator_3 (its child and grandchild), unnumbered or _2, _3...
   */
  protected async containerInstances(row: SheetRow): Promise<Obj[]> {
    const instances: Obj[] = [];
    for (let n = 1; n === 1 || this.columns.has(`cont_instance_type_${n}`); n++) {
      const x = n === 1 ? '' : `_${n}`;
      const instanceType = row.get(`cont_instance_type${x}`);
      const type1 = row.get(`type_1${x}`);
      const barcode = row.get(`barcode${x}`);
      if (instanceType === undefined && type1 === undefined && barcode === undefined) continue;
      if (instanceType === undefined) {
        row.dropped(`cont_instance_type${x}`, 'a container instance needs its instance type; the instance is left out');
        continue;
      }
      const itype = this.columns.listValue(row, `cont_instance_type${x}`, 'instance_instance_type', instanceType);
      const ctype = this.columns.listValue(row, `type_1${x}`, 'container_type', type1 ?? 'Box');
      if (!itype || !ctype) continue;
      const sub: Obj = { top_container: { ref: await this.topContainer(row, ctype, row.get(`indicator_1${x}`) ?? 'Unknown', barcode) } };
      for (const level of ['2', '3']) {
        const t = row.get(`type_${level}${x}`);
        if (t === undefined) continue;
        const v = this.columns.listValue(row, `type_${level}${x}`, 'container_type', t);
        if (v) Object.assign(sub, { [`type_${level}`]: v, [`indicator_${level}`]: row.get(`indicator_${level}${x}`) ?? 'Unknown' });
      }
      instances.push({ jsonmodel_type: 'instance', instance_type: itype, sub_container: { jsonmodel_type: 'sub_container', ...sub } });
    }
    return instances;
  }

  private async topContainer(row: SheetRow, type: string, indicator: string, barcode?: string): Promise<string> {
    const key = `${type}|${indicator}|${barcode ?? ''}`;
    const known = this.containers.get(key);
    if (known) return known;
    const uri = (barcode ? (await this.lookup('top_container', 'barcode', barcode))[0] : await this.resourceContainer(type, indicator))
      ?? await this.create('top_container', { type: this.value('container_type', type, true), indicator, ...(barcode ? { barcode } : {}) }, [`row ${row.number}`, 'top_container']);
    this.containers.set(key, uri);
    return uri;
  }

  /** A top container of the type and indicator already holding something of this job's resource. */
  protected async resourceContainer(type: string, indicator: string): Promise<string | undefined> {
    const candidates = await this.lookup('top_container', 'indicator', indicator);
    // The links of the rows held for a statement of their own are read with the others.
    if (candidates.length) await this.flushCreates();
    for (const uri of candidates) {
      const json = await jsonOfUri(this.trx, uri);
      if (!json || JSON.parse(json).type !== type) continue;
      const links = await linksFromTypes(this.trx, [uri], ['archival_object']);
      if (links.some((l) => l.root_uri === this.resource.uri)) return uri;
    }
    return undefined;
  }

  /** Adds an instance to an archival object (a new version of it, as the API would write it). */
  protected async addInstance(aoUri: string, instance: Obj): Promise<void> {
    const current = JSON.parse((await jsonOfUri(this.trx, aoUri))!) as Obj;
    const body = { ...current, instances: [...(current.instances as Obj[] | undefined ?? []), instance] };
    const prepared = prepareRecord(this.s.registry, this.s.enums, 'archival_object', body);
    const where = { type: this.s.registry.type('archival_object'), repoId: this.repoId };
    await updateRecord(this.s, this.actor, where, Number(aoUri.split('/').pop()), prepared.record, prepared.warnings, { trx: this.trx });
    if (!this.updated.includes(aoUri)) this.updated.push(aoUri);
  }

  protected async recordAt(uri: string): Promise<Obj | undefined> {
    const json = await jsonOfUri(this.trx, uri);
    return json ? JSON.parse(json) as Obj : undefined;
  }

  protected async exists(uri: string, type: string): Promise<boolean> {
    return hasRecord(this.trx, { uri, type });
  }

  protected async lookup(type: string, param: string, value: string): Promise<string[]> {
    const rule = this.s.registry.type(type).lookup?.[param];
    if (!rule) throw new Error(`${type} has no find_by_id parameter ${param}`);
    return recordQueries(this.trx).findByLookup(type, this.repoId, param, [lookupHash(lookupValue(rule.format, [value]))]);
  }

  /**
   * A digital object from digital_object_id (random when empty), digital_object_title (the
   * archival object's title when empty), digital_object_publish and the rep_/nonrep_ file versions;
   * answers its instance. `extra` is what the digital load's own columns add.
   */
  protected async digitalObjectInstance(row: SheetRow, title: string, extra: Obj = {}): Promise<Obj | undefined> {
    const id = row.get('digital_object_id') ?? crypto.randomUUID().replace(/-/g, '');
    if ((await this.lookup('digital_object', 'digital_object_id', id)).length) {
      row.error('digital_object_id', `a digital object with the identifier '${id}' already exists`);
      return undefined;
    }
    const files = [this.columns.fileVersion(row, 'rep'), this.columns.fileVersion(row, 'nonrep')].filter((f): f is Obj => !!f);
    const publish = truthy(row.get('digital_object_publish'));
    const uri = await this.write(row, 'digital_object_id', 'digital_object', {
      title: row.get('digital_object_title') ?? title, digital_object_id: id,
      ...(publish === undefined ? {} : { publish }), ...(files.length ? { file_versions: files } : {}), ...extra,
    });
    return uri ? { jsonmodel_type: 'instance', instance_type: 'digital_object', digital_object: { ref: uri } } : undefined;
  }
}
