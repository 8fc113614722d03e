/**
 * The reports this installation offers (GET /reports lists them in this order), and a report
 * job's submission checked against them: its report_type, format and parameters.
 */
import { errors } from '../errors';
import type { Obj } from '../json';
import { accessionReport } from './accessions';
import {
  accessionDeaccessionsListReport, accessionInventoryReport, accessionReceiptReport, accessionRightsTransferredReport, accessionSubjectsNamesClassificationsListReport, accessionUnprocessedReport,
} from './accession-lists';
import { REPORT_FORMATS, ReportDefinition, ReportFormat, ReportParam } from './definition';
import {
  digitalObjectListTableReport, resourceDeaccessionsListReport, resourceLocationsListReport, resourceRestrictionsListReport,
} from './resource-lists';
import { agentListReport, locationReport, resourcesListReport, subjectListReport, userGroupsReport } from './lists';

export const REPORTS: ReadonlyMap<string, ReportDefinition> = new Map([
  accessionDeaccessionsListReport,
  accessionInventoryReport,
  accessionReceiptReport,
  accessionReport,
  accessionRightsTransferredReport,
  accessionSubjectsNamesClassificationsListReport,
  accessionUnprocessedReport,
  agentListReport,
  digitalObjectListTableReport,
  locationReport,
  resourceDeaccessionsListReport,
  resourceLocationsListReport,
  resourceRestrictionsListReport,
  resourcesListReport,
  subjectListReport,
  userGroupsReport,
].map((r) => [r.code, r]));

/** GET /reports: each report as ArchivesSpace registers it (its params as [name, kind, label]), and the formats. */
export function reportListing(): Obj {
  const reports: Obj = {};
  for (const r of REPORTS.values()) reports[r.code] = { params: r.params.map((p) => [p.name, p.kind, p.label]), code: r.code, model: r.model };
  return { reports, formats: [...REPORT_FORMATS] };
}

export function reportNamed(code: unknown): ReportDefinition {
  const report = REPORTS.get(String(code ?? ''));
  if (!report) throw errors.mustBeOneOf('report_type', [...REPORTS.keys()], code === undefined ? undefined : String(code));
  return report;
}

/**
 * A job's parameters: `job_params` as ArchivesSpace's staff interface sends it (an object, its
 * JSON, or its JSON quoted once more), over the report job's own properties.
 */
function rawParams(job: Obj): Obj {
  let p: unknown = job.job_params;
  for (let i = 0; i < 2 && typeof p === 'string'; i++) {
    try {
      p = JSON.parse(p);
    } catch {
      throw errors.invalidParam('job_params', 'must be a JSON object of the report\'s parameters');
    }
  }
  if (p !== undefined && p !== null && (typeof p !== 'object' || Array.isArray(p))) throw errors.invalidParam('job_params', 'must be a JSON object of the report\'s parameters');
  return { ...job, ...(p as Obj | undefined) };
}

function checkParam(p: ReportParam | { name: string; kind: 'Boolean' }, value: unknown): string | boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (p.kind === 'IncludeSuppressed' || p.kind === 'Boolean') {
    if (value === true || value === 'true' || value === '1' || value === 1) return true;
    if (value === false || value === 'false' || value === '0' || value === 0) return false;
    throw errors.invalidParam(p.name, `must be true or false but given: ${String(value)}`);
  }
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw errors.invalidParam(p.name, `must be a date (YYYY-MM-DD) but given: ${String(value)}`);
  }
  return value;
}

export interface CheckedReportJob {
  report: ReportDefinition;
  format: ReportFormat;
  values: Record<string, string | boolean | undefined>;
}

/** A submitted report job, checked: 400 naming what is wrong. */
export function checkReportJob(job: Obj): CheckedReportJob {
  const report = reportNamed(job.report_type);
  const format = String(job.format ?? 'pdf');
  if (!(REPORT_FORMATS as readonly string[]).includes(format)) throw errors.mustBeOneOf('format', REPORT_FORMATS, format);
  const raw = rawParams(job);
  const values: Record<string, string | boolean | undefined> = {};
  for (const p of [...report.params, { name: 'csv_show_json', kind: 'Boolean' as const }]) values[p.name] = checkParam(p, raw[p.name]);
  report.check?.(values);
  return { report, format: format as ReportFormat, values };
}
