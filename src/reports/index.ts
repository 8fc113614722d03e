/**
 * The reports this installation offers (GET /reports lists them in this order), and a report
 * job's submission checked against them: its report_type, format and parameters.
 */
import { errors } from '../errors';
import type { Obj } from '../json';
import { accessionReport } from './accessions';
import {
  accessionDeaccessionsListReport, accessionInventoryReport, accessionReceiptReport, accessionRightsTransferredReport, accessionSubjectsNamesClassificationsListReport, accessionUnprocessedReport,
  createdAccessionsReport,
} from './accession-lists';
import { assessmentListReport, assessmentRatingReport } from './assessments';
import { customReport } from './custom-report';
import { digitalObjectFileVersionsReport, resourceInstancesListReport } from './instances';
import { locationHoldingsReport, shelflistReport } from './locations';
import { type ParamValue, REPORT_FORMATS, ReportDefinition, ReportFormat, ReportParam } from './definition';
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
  assessmentListReport,
  assessmentRatingReport,
  createdAccessionsReport,
  customReport,
  digitalObjectFileVersionsReport,
  digitalObjectListTableReport,
  locationHoldingsReport,
  locationReport,
  resourceDeaccessionsListReport,
  resourceInstancesListReport,
  resourceLocationsListReport,
  resourceRestrictionsListReport,
  resourcesListReport,
  shelflistReport,
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

const LOCATION = /^\/locations\/\d+$/;
const refOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : v && typeof v === 'object' ? String((v as Obj).ref ?? '') : undefined);
const wholeNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined);

/** The locations asked for, as ArchivesSpace's form sends them: a building, a repository, or a location (or a range of them). */
function locationList(sent: Obj): Obj | undefined {
  // As sent, or as the accepted job keeps it (under `locations`).
  const raw: Obj = sent.locations && typeof sent.locations === 'object' ? { ...sent, ...sent.locations } : sent;
  if (typeof raw.building === 'string' && raw.building.trim()) return { building: raw.building };
  if (typeof raw.repository_uri === 'string' && raw.repository_uri) {
    if (!/^\/repositories\/\d+$/.test(raw.repository_uri)) throw errors.invalidParam('repository_uri', `must be a repository's URI but given: ${raw.repository_uri}`);
    return { repository_uri: raw.repository_uri };
  }
  const start = refOf(raw.location_start);
  const end = refOf(raw.location_end);
  if (!start) return undefined;
  for (const [name, uri] of [['location_start', start], ['location_end', end]] as const) {
    if (uri !== undefined && !LOCATION.test(uri)) throw errors.invalidParam(name, `must be a location's URI but given: ${uri}`);
  }
  return end ? { location_start: start, location_end: end } : { location_start: start };
}

function checkParam(p: ReportParam | { name: string; kind: 'Boolean' }, value: unknown, raw: Obj): ParamValue {
  if (p.kind === 'LocationList') return locationList(raw);
  if (p.kind === 'RatingValues') {
    // ArchivesSpace's form sends each value chosen as value_N: "on"; a list in `values` is taken too.
    const chosen = Array.isArray(raw.values) ? raw.values.map(String) : typeof raw.values === 'string' ? raw.values.split(/,\s*/).filter(Boolean)
      : Object.keys(raw).filter((k) => /^value_\d+$/.test(k) && (raw[k] === 'on' || raw[k] === true)).map((k) => k.slice(6));
    if (chosen.some((v) => !/^\d+$/.test(v))) throw errors.invalidParam('values', `must be rating values (numbers) but given: ${chosen.join(', ')}`);
    return chosen.length ? chosen.map(Number).sort((a, b) => a - b).join(', ') : undefined;
  }
  if (value === undefined || value === null || value === '') return undefined;
  if (p.kind === 'Rating' || p.kind === 'CustomReportTemplate') {
    const id = wholeNumber(typeof value === 'string' ? value.replace(/^\/repositories\/\d+\/custom_report_templates\//, '') : value);
    if (id === undefined) throw errors.invalidParam(p.name, `must be ${p.kind === 'Rating' ? "a rating's id" : "a template's id"} but given: ${String(value)}`);
    return id;
  }
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
  values: Record<string, ParamValue>;
}

/** A submitted report job, checked: 400 naming what is wrong. */
export function checkReportJob(job: Obj): CheckedReportJob {
  const report = reportNamed(job.report_type);
  const format = String(job.format ?? 'pdf');
  if (!(REPORT_FORMATS as readonly string[]).includes(format)) throw errors.mustBeOneOf('format', REPORT_FORMATS, format);
  const raw = rawParams(job);
  const values: Record<string, ParamValue> = {};
  for (const p of [...report.params, { name: 'csv_show_json', kind: 'Boolean' as const }]) values[p.name] = checkParam(p, raw[p.name], raw);
  report.check?.(values);
  return { report, format: format as ReportFormat, values };
}
