/**
 * The CSV templates ArchivesSpace hands out prefilled with a resource's archival objects
 * (GET .../resources/:id/templates/top_container_creation.csv and digital_object_creation.csv):
 * its header rows (a description, the column groups, the field codes, the column names) and one
 * row per archival object in id order, with the reference columns filled and the rest left for
 * the archivist. Filled in, the first goes back as a top_container_linker_job sheet and the second
 * as a bulk_import_job with load_type digital.
 */
import type { Obj } from '../../json';

export interface TemplateColumn {
  code: string;
  title: string;
  group?: string;
  /** Left empty in the data rows: for the archivist to fill. */
  blank?: boolean;
}

/** ArchivesSpace's CSV lines: a field with a comma, quote or line break is quoted, and so is an empty string (a missing value is not). */
function csvLine(cells: Array<string | undefined>): string {
  return `${cells.map((c) => (c === undefined ? '' : c === '' || /[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')}\n`;
}

/** The lines of a template: the header rows, then a row per record with its values by field code. */
export function* templateLines(
  t: { description: string; groupText?: string; codeText: string; titleText: string; columns: TemplateColumn[] },
  rows: Iterable<Record<string, string | undefined>>,
): Generator<string> {
  const n = t.columns.length;
  // ArchivesSpace's description row is one cell shorter than the others; kept so, as its clients read it.
  yield csvLine([t.description, ...Array<string>(n - 1).fill('')]);
  if (t.groupText) yield csvLine([t.groupText, ...t.columns.map((c) => c.group ?? '')]);
  yield csvLine([t.codeText, ...t.columns.map((c) => c.code)]);
  yield csvLine([t.titleText, ...t.columns.map((c) => c.title)]);
  for (const row of rows) yield csvLine(['', ...t.columns.map((c) => (c.blank ? undefined : row[c.code]))]);
}

const ao = 'Archival Object';
export const TOP_CONTAINER_TEMPLATE = {
  description: 'Archival Object Top Container Generation Template',
  groupText: 'Maps to ASpace Type',
  codeText: "ArchivesSpace field code (please don't edit this row)",
  titleText: 'Field Name',
  columns: [
    { code: 'archival_object_id', title: 'Archival Object ID', group: ao },
    { code: 'ref_id', title: 'Ref ID', group: ao },
    { code: 'component_id', title: 'Component ID', group: ao },
    { code: 'archival_object_title', title: 'Title', group: ao },
    { code: 'resource_title', title: 'Resource Title', group: 'Resource' },
    { code: 'ead_id', title: 'EAD ID', group: 'Resource' },
    { code: 'identifier', title: 'Identifier', group: 'Resource' },
    { code: 'instance_type', title: 'Instance Type', group: 'Instance', blank: true },
    { code: 'top_container_id', title: 'Top Container ID (existing top container, leave blank if creating new container)', group: 'Container', blank: true },
    { code: 'top_container_type', title: 'Top Container Type', group: 'Top Container', blank: true },
    { code: 'top_container_indicator', title: 'Top Container Indicator', group: 'Top Container', blank: true },
    { code: 'top_container_barcode', title: 'Top container barcode', group: 'Top Container', blank: true },
    { code: 'container_profile_id', title: 'Container Profile ID', group: 'Top Container', blank: true },
    { code: 'child_type', title: 'Child Type', group: 'Sub Container', blank: true },
    { code: 'child_indicator', title: 'Child Indicator', group: 'Sub Container', blank: true },
    { code: 'child_barcode', title: 'Child Barcode', group: 'Sub Container', blank: true },
    { code: 'location_id', title: 'Location ID', group: 'Location', blank: true },
  ] as TemplateColumn[],
};

/** The field codes of ArchivesSpace's digital-object import template (bulk_import_DO_template), in its order. */
export function digitalObjectCodes(): string[] {
  const each = (stems: string[], suffixes: string[]) => suffixes.flatMap((x) => stems.map((s) => `${s}${x}`));
  const fileParts = ['use_statement', 'xlink_actuate_attribute', 'xlink_show_attribute', 'file_format', 'file_format_version', 'file_size', 'checksum', 'checksum_method', 'caption'];
  const agents = ([['people', 5], ['families', 2], ['corporate_entities', 3]] as const).flatMap(([g, count]) =>
    Array.from({ length: count }, (_, i) => ['record_id', 'header', 'role', 'relator'].map((p) => `${g}_agent_${p}_${i + 1}`)).flat());
  return [
    'collection_id', 'ead', 'ref_id', 'res_uri', 'ao_ref_id', 'ao_uri', 'digital_object_id', 'digital_object_title', 'digital_object_publish',
    'level', 'digital_object_type', 'restrictions',
    ...each(['dates_label', 'begin', 'end', 'date_type', 'expression', 'date_certainty'], ['', '_2']),
    'rep_file_uri', ...fileParts.map((p) => `rep_${p}`), 'nonrep_file_uri', 'nonrep_publish', ...fileParts.map((p) => `nonrep_${p}`),
    ...each(['note_type', 'note_label', 'note_publish', 'note_content'], ['', '_2']),
    ...agents,
    ...[1, 2].flatMap((n) => ['record_id', 'term', 'type', 'source'].map((p) => `subject_${n}_${p}`)),
    ...each(['portion', 'number', 'extent_type', 'container_summary', 'physical_details', 'dimensions'], ['', '_2']),
  ];
}

/** A column name from its field code (begin_2: "Begin 2"); the importer reads only the codes. */
const titleOf = (code: string) => code.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

export const DIGITAL_OBJECT_TEMPLATE = {
  description: 'Archival Object Digital Object Generation Template Prefilled',
  codeText: "ArchivesSpace digital object import field codes (please don't edit this row)",
  titleText: 'Field Name',
  columns: digitalObjectCodes().map((code) => ({ code, title: titleOf(code) })),
};

/** A resource's identifier as the top container template shows it: its parts joined by spaces. */
export const identifierText = (resource: Obj) => ['id_0', 'id_1', 'id_2', 'id_3'].map((k) => resource[k]).filter((v) => typeof v === 'string').join(' ');
