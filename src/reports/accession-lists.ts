/**
 * The accession list reports built on the accession's events and extents: deaccessions, unprocessed,
 * rights transferred, and subjects/names/classifications (ArchivesSpace's reports/accessions).
 */
import { errors } from '../errors';
import type { Obj } from '../json';
import { reportCount } from '../store/report-reads';
import type { Column, ReportDefinition, RunParams, SubRow } from './definition';
import { INCLUDE_SUPPRESSED, datesOfType } from './common';
import { deaccessions, eventsOf, names, subjects } from './accessions';
import { extentText, identifier, joined, labelled, list, plain, resolved, yesNo } from './values';

const money = (n: number | null) => (n === null ? null : n.toFixed(2));
const extentSum = (extents: Obj[]): number | null => (extents.length ? extents.reduce((sum, e) => sum + (Number(e.number) || 0), 0) : null);

/** min & max accession date, as ArchivesSpace writes the range its records span. */
function dateRange(dates: string[]): string {
  const sorted = dates.filter(Boolean).sort();
  return `${sorted[0] ?? ''} & ${sorted[sorted.length - 1] ?? ''}`;
}

/** The resources made from the accession (those linking to it as a related accession). */
function linkedResources(r: Obj, run: RunParams): SubRow[] {
  return list(r._linkedBy?.resources).filter((res) => run.includeSuppressed || !res.suppressed).map((res) => ({ identifier: identifier(res), title: plain(res.title) }));
}

/** Each processed event's date ("begin - end", or its expression), or the event's timestamp. */
function processedDates(r: Obj): string | null {
  const dates = eventsOf(r, 'processed').map((e) => {
    const d = e.date as Obj | undefined;
    const text = d ? (d.expression ?? (d.end ? `${d.begin} - ${d.end}` : d.begin)) : undefined;
    return text ?? e.timestamp ?? null;
  }).filter((v) => v !== null && v !== undefined);
  return dates.length ? dates.join(', ') : null;
}

function classifications(r: Obj, run: RunParams): SubRow[] {
  return list(r.classifications).filter((l) => resolved(l) && (run.includeSuppressed || !resolved(l)!.suppressed)).map((l) => {
    const c = resolved(l)!;
    const term = c.jsonmodel_type === 'classification_term';
    return { identifier: term ? null : plain(c.identifier), title: term ? null : plain(c.title), term_identifier: term ? plain(c.identifier) : null, term_title: term ? plain(c.title) : null };
  });
}

const col = (name: string, value: Column['value']): Column => ({ name, value });
const accessionNumber = col('accession_number', identifier);
const recordTitle = col('record_title', (r) => plain(r.title));
const accessionDate = col('accession_date', (r) => plain(r.accession_date));
const containerSummary = col('container_summary', (r) => joined(list(r.extents).map((e) => e.container_summary)));
const extent = col('extent', (r) => extentText(list(r.extents)));
const linkedResourcesColumn: Column = { name: 'linked_resources', sub: ['identifier', 'title'], value: linkedResources };
const restrictionColumns = [
  col('restrictions_apply', (r) => yesNo(r.restrictions_apply ?? false)),
  col('access_restrictions', (r) => yesNo(r.access_restrictions ?? false)),
  col('access_restrictions_note', (r) => plain(r.access_restrictions_note)),
  col('use_restrictions', (r) => yesNo(r.use_restrictions ?? false)),
  col('use_restrictions_note', (r) => plain(r.use_restrictions_note)),
];
const processingColumns = [
  col('accession_processed', (r) => yesNo(eventsOf(r, 'processed').length > 0)),
  col('accession_processed_date', processedDates),
  col('cataloged', (r) => yesNo(eventsOf(r, 'cataloged').length > 0)),
];
const rightsNote = col('rights_transferred_note', (r) => {
  const notes = eventsOf(r, 'copyright_transfer').map((e) => e.outcome_note).filter((n) => n !== undefined && n !== null);
  return notes.length ? notes.join(', ') : null;
});

const DATE_COLUMNS = [
  col('date_expression', (r) => joined(datesOfType(r, 'inclusive').map((d) => d.expression))),
  col('begin_date', (r) => joined(datesOfType(r, 'inclusive').map((d) => d.begin))),
  col('end_date', (r) => joined(datesOfType(r, 'inclusive').map((d) => d.end))),
  col('bulk_begin_date', (r) => joined(datesOfType(r, 'bulk').map((d) => d.begin))),
  col('bulk_end_date', (r) => joined(datesOfType(r, 'bulk').map((d) => d.end))),
];

const EVENTS = [{ as: 'events', types: ['event'] }];
const EVENTS_AND_RESOURCES = [...EVENTS, { as: 'resources', types: ['resource'] }];

export const accessionDeaccessionsListReport: ReportDefinition = {
  code: 'accession_deaccessions_list_report',
  model: 'AccessionDeaccessionsListReport',
  title: 'Accession Deaccessions List',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['accession'],
  // ArchivesSpace lists the accessions with an extent.
  where: (r) => list(r.extents).length > 0,
  async summary(records) {
    const dates: string[] = [];
    let total: number | null = null;
    let deaccessioned = 0;
    let count = 0;
    for await (const r of records) {
      count++;
      dates.push(r.accession_date);
      total = (total ?? 0) + (extentSum(list(r.extents)) ?? 0);
      for (const d of list(r.deaccessions)) deaccessioned += extentSum(list(d.extents)) ?? 0;
    }
    return { scoped_by_date_range: dateRange(dates), total_extent: money(total), total_deaccessions_extent: money(deaccessioned), total_count: count };
  },
  columns: [accessionNumber, recordTitle, accessionDate, containerSummary, extent,
    { name: 'deaccessions', sub: ['description', 'notification_sent', 'date', 'extent'], value: deaccessions }],
};

export const accessionUnprocessedReport: ReportDefinition = {
  code: 'accession_unprocessed_report',
  model: 'AccessionUnprocessedReport',
  title: 'Unprocessed Accessions',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['accession'],
  linkedBy: EVENTS_AND_RESOURCES,
  where: (r) => eventsOf(r, 'processed').length === 0,
  async summary(records, run) {
    const dates: string[] = [];
    let total: number | null = null;
    let count = 0;
    for await (const r of records) {
      count++;
      dates.push(r.accession_date);
      const sum = extentSum(list(r.extents));
      if (sum !== null) total = (total ?? 0) + sum;
    }
    // ArchivesSpace counts every accession it holds here, of any repository.
    return { total_count: await reportCount(run.s.db, { types: ['accession'], includeSuppressed: true }), total_unprocessed: count, scoped_by_date_range: dateRange(dates), total_extent: money(total) };
  },
  columns: [accessionNumber, recordTitle, accessionDate, containerSummary, processingColumns[2], extent, linkedResourcesColumn],
};

export const accessionRightsTransferredReport: ReportDefinition = {
  code: 'accession_rights_transferred_report',
  model: 'AccessionRightsTransferredReport',
  title: 'Accessions with Rights Transferred',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['accession'],
  linkedBy: EVENTS_AND_RESOURCES,
  where: (r) => eventsOf(r, 'copyright_transfer').length > 0,
  async summary(records) {
    let count = 0;
    for await (const r of records) if (r) count++;
    return { total_transferred: count };
  },
  columns: [accessionNumber, recordTitle, accessionDate, ...restrictionColumns, containerSummary, ...processingColumns,
    col('rights_transferred', () => 'Yes'), rightsNote, extent, linkedResourcesColumn],
};

export const accessionSubjectsNamesClassificationsListReport: ReportDefinition = {
  code: 'accession_subjects_names_classifications_list_report',
  model: 'AccessionSubjectsNamesClassificationsListReport',
  title: 'Accessions with Subjects, Names and Classifications',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['accession'],
  resolve: ['linked_agents.ref', 'subjects.ref', 'classifications.ref'],
  linkedBy: EVENTS,
  columns: [accessionNumber, recordTitle, accessionDate, ...restrictionColumns, containerSummary, ...processingColumns,
    col('rights_transferred', (r) => yesNo(eventsOf(r, 'copyright_transfer').length > 0)), rightsNote, extent,
    { name: 'names', sub: ['name', 'function', 'role'], value: names },
    { name: 'subjects', sub: ['term', 'type', 'source'], value: subjects },
    { name: 'classifications', sub: ['identifier', 'title', 'term_identifier', 'term_title'], value: classifications }],
};

export const accessionInventoryReport: ReportDefinition = {
  code: 'accession_inventory_report',
  model: 'AccessionInventoryReport',
  title: 'Accession Inventory',
  params: [INCLUDE_SUPPRESSED],
  scope: 'repository',
  types: ['accession'],
  linkedBy: [{ as: 'resources', types: ['resource'] }],
  where: (r) => r.inventory !== undefined && r.inventory !== null,
  async summary(records, run) {
    let count = 0;
    for await (const r of records) if (r) count++;
    // ArchivesSpace counts the repository's accessions here, suppressed ones too.
    return { total_count: await reportCount(run.s.db, { types: ['accession'], repoId: run.repoId, includeSuppressed: true }), number_with_inventories: count };
  },
  columns: [accessionNumber, recordTitle, accessionDate, col('inventory', (r) => plain(r.inventory)), ...DATE_COLUMNS, containerSummary, extent, linkedResourcesColumn],
};

/** A date parameter as ArchivesSpace writes it in the info ("2020-01-01 00:00:00"). */
const dateTime = (v: unknown) => `${String(v)} 00:00:00`;

export const accessionReceiptReport: ReportDefinition = {
  code: 'accession_receipt_report',
  model: 'AccessionReceiptReport',
  title: 'Accession Receipt',
  params: [
    { name: 'scope_by_date', kind: 'Boolean', label: 'Scope records by a date range' },
    INCLUDE_SUPPRESSED,
    { name: 'from', kind: 'Date', label: 'The start of report range' },
    { name: 'to', kind: 'Date', label: 'The start of report range' },
  ],
  check(values) {
    if (values.scope_by_date === true && (!values.from || !values.to)) throw errors.invalidParam(values.from ? 'to' : 'from', 'Date range not specified.');
  },
  scope: 'repository',
  types: ['accession'],
  resolve: ['linked_agents.ref'],
  // Strictly between the two dates, as ArchivesSpace compares them.
  where: (r, run) => run.values.scope_by_date !== true || (String(r.accession_date ?? '') > String(run.values.from) && String(r.accession_date ?? '') < String(run.values.to)),
  async summary(_records, run): Promise<Record<string, string>> {
    return run.values.scope_by_date === true ? { scoped_by_date_range: `${dateTime(run.values.from)} & ${dateTime(run.values.to)}` } : {};
  },
  columns: [accessionNumber, recordTitle, accessionDate, containerSummary, extent,
    { name: 'names', sub: ['name', 'function', 'role'], value: names },
    {
      name: 'rights_statements',
      sub: ['rights_type', 'statute_citation', 'jurisdiction', 'status', 'begin_date', 'end_date', 'determination_date', 'license_terms', 'other_rights_basis'],
      value: (r) => list(r.rights_statements).map((s) => ({
        rights_type: labelled('rights_statement_rights_type', s.rights_type), statute_citation: plain(s.statute_citation),
        jurisdiction: labelled('country_iso_3166', s.jurisdiction), status: labelled('rights_statement_ip_status', s.status),
        begin_date: plain(s.start_date), end_date: plain(s.end_date), determination_date: plain(s.determination_date), license_terms: plain(s.license_terms),
        other_rights_basis: labelled('rights_statement_other_rights_basis', s.other_rights_basis),
      })),
    }],
};

/** Now as ArchivesSpace writes a missing date of a range ("2026-01-31 14:05:00"). */
const now = () => new Date().toISOString().slice(0, 19).replace('T', ' ');
const rangeEnd = (v: unknown) => (typeof v === 'string' ? dateTime(v) : now());

export const createdAccessionsReport: ReportDefinition = {
  code: 'created_accessions_report',
  model: 'CreatedAccessionsReport',
  title: 'Created Accessions',
  params: [
    { name: 'from', kind: 'Date', label: 'The start of report range' },
    { name: 'to', kind: 'Date', label: 'The start of report range' },
    INCLUDE_SUPPRESSED,
  ],
  scope: 'repository',
  types: ['accession'],
  order: ['accession_date'],
  // Strictly between the two dates (today where one is not given), as ArchivesSpace compares them.
  where: (r, run) => {
    const date = String(r.accession_date ?? '');
    return date > rangeEnd(run.values.from).slice(0, 10) && date < rangeEnd(run.values.to).slice(0, 10);
  },
  async summary(records, run) {
    let count = 0;
    for await (const r of records) if (r) count++;
    return { scoped_by_date_range: `${rangeEnd(run.values.from)} & ${rangeEnd(run.values.to)}`, total_count: count };
  },
  columns: [accessionNumber, recordTitle, accessionDate],
};
