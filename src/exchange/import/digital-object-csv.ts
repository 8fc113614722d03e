/**
 * Digital object CSV import (`digital_object_csv`): ArchivesSpace's digital object template (its
 * DigitalObjectConverter), one digital object, or one component of a digital object above it in
 * the file, per row; all rows of a file in one transaction.
 *
 * column → record:
 *   digital_object_title, _id, _level, _type, _publish, _restrictions → the digital object's fields
 *   digital_object_is_component (true) → the row is a digital_object_component of the digital object
 *     whose digital_object_id the row names (one above it in the file, else one the repository holds);
 *     digital_object_component_id → its component_id
 *   digital_object_language / _script → lang_materials
 *   digital_object_processing_* , _processors, _rights_determined → collection_management (objects only)
 *   date_1_*, date_2_* → dates (label "other", type "single" when not given)
 *   extent_number, _type, _container_summary, _physical_details, _dimensions, _portion ("whole") → extents
 *   agent_*, subject_*, user_defined_* and the event columns → as in the accession template (row-csv.ts)
 *   file_version_<field> or file_version_<field>_<n> → one file version per group whose file_uri is
 *     neither empty nor NULL; NULL in another field leaves that field unset
 */
import type { Obj } from '../../json';
import { importFile } from './session';
import { Columns, eventColumns, Parts, readRows, RowCsvImport, SHARED_COLUMNS, SHARED_PART_TYPES, truthy } from './row-csv';
import { ImportFailed, Importer } from './types';

/** Template columns whose fields neither ArchivesSpace's schemas nor ours hold (its converter drops them too). */
const DROPPED = ['digital_object_processing_started_date', 'digital_object_cataloged_note', 'digital_object_rights_transferred',
  'digital_object_rights_transferred_date', 'digital_object_rights_transferred_note', 'agent_name_description_type'];

const COLUMNS: Columns = {
  ...Object.fromEntries([['title', 'title'], ['id', 'digital_object_id'], ['is_component', 'is_component'], ['component_id', 'component_id'],
    ['level', 'level'], ['publish', 'publish'], ['type', 'digital_object_type'], ['restrictions', 'restrictions']]
    .map(([column, field]) => [`digital_object_${column}`, ['d', field]])),
  digital_object_language: ['lang_material', 'language'],
  digital_object_script: ['lang_material', 'script'],
  ...Object.fromEntries([['processing_estimate', 'processing_hours_per_foot_estimate'], ...['processing_hours_total', 'processing_plan',
    'processing_priority', 'processing_status', 'processing_total_extent', 'processing_total_extent_type', 'processors', 'rights_determined']
    .map((f) => [f, f])].map(([column, field]) => [`digital_object_${column}`, ['collection_management', field]])),
  ...SHARED_COLUMNS,
  extent_physical_details: ['extent', 'physical_details'],
  extent_portion: ['extent', 'portion'],
  extent_dimensions: ['extent', 'dimensions'],
  ...eventColumns('digital_object_'),
  ...Object.fromEntries(DROPPED.map((c) => [c, ['dropped', c]])),
};
const FILE_VERSION = /^file_version_([a-z_]+?)(_\d+)?$/;

class DigitalObjectCsvImport extends RowCsvImport {
  protected readonly columns = COLUMNS;
  protected readonly partTypes = { ...SHARED_PART_TYPES, d: 'digital_object', collection_management: 'collection_management', lang_material: 'language_and_script' };
  protected readonly recordType = 'digital_object';
  /** digital_object_id → URI of the objects this file made, for the components below them. */
  private readonly objects = new Map<string, string>();

  protected override otherColumn(column: string): boolean {
    return FILE_VERSION.test(column);
  }

  protected override async readHeader(line: number, cells: string[]): Promise<void> {
    const groups = cells.map((c) => c.trim()).filter((c) => FILE_VERSION.test(c));
    const twice = [...new Set(groups.filter((c, i) => groups.indexOf(c) !== i))];
    if (twice.length) throw new ImportFailed(`${this.input.name}: line ${line}: the header names ${twice.join(', ')} more than once; number each file version's columns (_1, _2…)`);
    await super.readHeader(line, cells);
  }

  protected async writeRow(line: number, parts: Parts, cells: Record<string, string>): Promise<void> {
    const where = `line ${line}`;
    const d = parts.d ?? {};
    const isComponent = truthy(String(d.is_component ?? ''));
    const body: Obj = { title: d.title, publish: d.publish };
    const dates = this.rowDates(parts, { label: 'other', date_type: 'single' });
    if (dates.length) body.dates = dates;
    if (parts.extent) body.extents = [{ portion: 'whole', ...parts.extent }];
    if (parts.lang_material) body.lang_materials = [{ language_and_script: parts.lang_material }];
    const versions = this.fileVersions(line, cells);
    if (versions.length) body.file_versions = versions;
    if (isComponent) {
      const ignored = ['agent', 'agent_name', 'subject', 'user_defined', 'collection_management', 'event'].filter((p) => parts[p]);
      if (ignored.length) this.warn(`${where}: a component holds no ${ignored.join(', ')}; those columns are ignored`);
      body.digital_object = { ref: await this.parentObject(line, d.digital_object_id) };
      if (d.component_id) body.component_id = d.component_id;
      await this.translate(() => this.create('digital_object_component', body, [where]));
      return;
    }
    Object.assign(body, { digital_object_id: d.digital_object_id, level: d.level, digital_object_type: d.digital_object_type, restrictions: d.restrictions });
    if (parts.collection_management) body.collection_management = parts.collection_management;
    if (parts.user_defined) body.user_defined = this.userDefined(parts.user_defined);
    const agent = await this.rowAgentLink(line, parts);
    if (agent) body.linked_agents = [agent];
    const subject = await this.rowSubject(line, parts);
    if (subject) body.subjects = [subject];
    const uri = await this.translate(() => this.create('digital_object', body, [where]));
    if (typeof d.digital_object_id === 'string') this.objects.set(d.digital_object_id, uri);
    await this.rowEvents(line, parts, uri, 'digital_object_');
  }

  private async parentObject(line: number, id: unknown): Promise<string> {
    if (typeof id !== 'string') {
      throw new ImportFailed(`${this.input.name}: line ${line}, column digital_object_id: a component names the digital_object_id of its digital object`);
    }
    const uri = this.objects.get(id) ?? await this.findByLookup('digital_object', 'digital_object_id', id);
    if (!uri) throw new ImportFailed(`${this.input.name}: line ${line}, column digital_object_id: no digital object ${id} above this row or in the repository; put its row before its components`);
    return uri;
  }

  /** Integers and reals as ArchivesSpace's converter writes them (whole numbers; two decimals); dates as ISO. */
  private userDefined(fields: Obj): Obj {
    const out: Obj = { ...fields };
    for (const [k, v] of Object.entries(fields)) {
      if (/^integer_/.test(k)) out[k] = String(Math.trunc(Number(v)) || 0);
      else if (/^real_/.test(k)) out[k] = (Number(v) || 0).toFixed(2);
    }
    return out;
  }

  /** The row's file version groups, in the order of their number (an unnumbered group first). */
  private fileVersions(line: number, cells: Record<string, string>): Obj[] {
    const schema = (this.s.registry.schemas.file_version?.properties ?? {}) as Record<string, Obj>;
    const suffixes = Object.keys(cells).map((c) => /^file_version_file_uri(_\d+)?$/.exec(c)).filter((m) => m)
      .map((m) => m![1] ?? '').sort((a, b) => Number(a.slice(1) || 0) - Number(b.slice(1) || 0));
    const versions: Obj[] = [];
    for (const suffix of suffixes) {
      const uri = cells[`file_version_file_uri${suffix}`];
      if (!uri || uri === 'NULL') continue;
      const version: Obj = { file_uri: uri };
      for (const [field, def] of Object.entries(schema)) {
        const value = cells[`file_version_${field}${suffix}`];
        if (field === 'file_uri' || def.readOnly || value === undefined || value === 'NULL') continue;
        const list = this.s.registry.types.file_version?.props[field]?.enumName;
        const column = `file_version_${field}${suffix}`;
        if (def.type === 'boolean') version[field] = truthy(value);
        else if (def.type === 'integer') {
          if (!/^\d+$/.test(value)) throw new ImportFailed(`${this.input.name}: line ${line}, column ${column}: "${value}" is not a whole number`);
          version[field] = Number(value);
        } else version[field] = list ? this.listValue(line, column, list, value) : value;
      }
      versions.push(version);
    }
    return versions;
  }
}

export const digitalObjectCsvImporter: Importer = {
  type: 'digital_object_csv',
  label: 'Import Digital Object records from a CSV file',
  async run(s, repoId, actor, input, out) {
    return importFile(s, out, (writer) => readRows(new DigitalObjectCsvImport(s, writer, repoId, actor, input, out), input.path, input.name, out.signal));
  },
};
