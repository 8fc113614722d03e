/**
 * The assessment reports: the assessment list and the assessments of a rating (ArchivesSpace's
 * reports/assessments). Both name attributes by their definitions' labels, the installation's and
 * the repository's own, so each run is prepared from the repository's definitions.
 */
import { errors } from '../errors';
import type { Obj } from '../json';
import { attributeDefinitionsOf } from '../store/assessment-attributes';
import type { Column, ReportDefinition, RunParams, SubRow } from './definition';
import { agentName, identifier, idOf, joined, list, plain, resolved, yesNo } from './values';

const BOOLEANS = ['accession_report', 'appraisal', 'container_list', 'catalog_record', 'control_file', 'deed_of_gift', 'finding_aid_ead', 'finding_aid_online',
  'finding_aid_paper', 'finding_aid_word', 'finding_aid_spreadsheet', 'related_eac_records'];
const SCOPE_BY_DATE = [
  { name: 'scope_by_date', kind: 'Boolean' as const, label: 'Scope records by a date range' },
  { name: 'from', kind: 'Date' as const, label: 'The start of report range' },
  { name: 'to', kind: 'Date' as const, label: 'The start of report range' },
];
const LINKED_TYPES: Array<[string, string]> = [['resource', 'Resource'], ['archival_object', 'Archival Object'], ['accession', 'Accession'], ['digital_object', 'Digital Object']];
const RESOLVE = ['records.ref', 'surveyed_by.ref', 'reviewer.ref'];

/** ArchivesSpace's column name of a label: lower case, runs of other characters as one underscore. */
const normalized = (label: string) => label.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/_+$/, '');
const col = (name: string, value: Column['value'], formats?: Column['formats']): Column => ({ name, value, ...(formats ? { formats } : {}) });
const dateTime = (v: unknown) => `${String(v)} 00:00:00`;

function checkDates(values: RunParams['values']) {
  if (values.scope_by_date === true && (!values.from || !values.to)) throw errors.invalidParam(values.from ? 'to' : 'from', 'Date range not specified.');
}
/** Surveys begun strictly between the dates, when scoped. */
const inDates = (r: Obj, run: RunParams) => run.values.scope_by_date !== true
  || (String(r.survey_begin ?? '') > String(run.values.from) && String(r.survey_begin ?? '') < String(run.values.to));
const dateInfo = (run: RunParams): Record<string, string> => (run.values.scope_by_date === true ? { scoped_by_date_range: `${dateTime(run.values.from)} & ${dateTime(run.values.to)}` } : {});

/** The records assessed: resources, then components, accessions and digital objects, each with its type in its id ("resource_12"). */
function linkedRecords(r: Obj, run: RunParams): SubRow[] {
  const linked = list(r.records).map(resolved).filter((x): x is Obj => !!x && (run.includeSuppressed || !x.suppressed));
  return LINKED_TYPES.flatMap(([type, name]) => linked.filter((x) => x.jsonmodel_type === type).map((x) => ({
    record_id: `${normalized(name)}_${idOf(String(x.uri))}`,
    record_title: plain(type === 'archival_object' ? x.title ?? x.display_string : x.title),
    identifier: plain(type === 'archival_object' ? x.component_id : type === 'digital_object' ? x.digital_object_id : identifier(x)),
  })));
}
const people = (refs: unknown) => joined(list(refs).map((l) => agentName(resolved(l))));
const present = (attrs: unknown) => list(attrs).filter((a) => a.value !== 'false' && a.value !== false);

const linkedRecordsColumn: Column = { name: 'linked_records', sub: ['record_id', 'record_title', 'identifier'], value: linkedRecords };
const idColumn = col('id', (r) => idOf(String(r.uri)));

function assessmentListColumns(definitions: Obj[]): Column[] {
  const label = new Map(definitions.map((d) => [Number(d.id), String(d.label)]));
  const labels = (attrs: unknown) => joined(present(attrs).map((a) => label.get(Number(a.definition_id))));
  const ofType = (type: string) => definitions.filter((d) => d.type === type);
  const has = (attrs: unknown, id: number) => present(attrs).some((a) => Number(a.definition_id) === id);
  const rating = (r: Obj, id: number) => list(r.ratings).find((a) => Number(a.definition_id) === id);
  // CSV gives each format, conservation issue and rating a column of its own (ArchivesSpace's spreadsheet layout).
  const csvColumns: Column[] = [
    ...ofType('format').map((d) => col(normalized(d.label), (r) => (has(r.formats, Number(d.id)) ? 'Yes' : ''), ['csv'])),
    ...ofType('conservation_issue').map((d) => col(normalized(d.label), (r) => (has(r.conservation_issues, Number(d.id)) ? 'Yes' : ''), ['csv'])),
    ...ofType('rating').flatMap((d) => [
      col(normalized(`${d.label} Rating`), (r) => plain(rating(r, Number(d.id))?.value) ?? '', ['csv']),
      ...(d.label === 'Research Value' ? [] : [col(normalized(`${d.label} Note`), (r) => plain(rating(r, Number(d.id))?.note) ?? '', ['csv'])]),
    ]),
  ];
  const printed: Column['formats'] = ['json', 'html', 'pdf'];
  return [
    linkedRecordsColumn, idColumn,
    ...BOOLEANS.map((b) => col(b, (r) => yesNo(r[b] ?? false))),
    col('surveyed_by', (r) => people(r.surveyed_by)),
    col('survey_begin', (r) => plain(r.survey_begin)),
    col('survey_end', (r) => plain(r.survey_end)),
    col('surveyed_duration', (r) => plain(r.surveyed_duration)),
    col('surveyed_extent', (r) => plain(r.surveyed_extent)),
    col('review_required', (r) => yesNo(r.review_required ?? false)),
    col('reviewer', (r) => people(r.reviewer)),
    col('inactive', (r) => yesNo(r.inactive ?? false)),
    col('sensitive_material', (r) => yesNo(r.sensitive_material ?? false)),
    ...['purpose', 'scope', 'general_assessment_note', 'exhibition_value_note', 'existing_description_notes', 'review_note'].map((k) => col(k, (r) => plain(r[k]))),
    col('monetary_value', (r) => (r.monetary_value !== undefined && r.monetary_value !== null && r.monetary_value !== '' ? (Number(r.monetary_value) || 0).toFixed(2) : null)),
    col('monetary_value_note', (r) => plain(r.monetary_value_note)),
    col('formats', (r) => labels(r.formats), printed),
    col('special_format_note', (r) => plain(r.special_format_note)),
    col('conservation_issues', (r) => labels(r.conservation_issues), printed),
    col('conservation_note', (r) => plain(r.conservation_note)),
    ...csvColumns,
    {
      name: 'ratings', sub: ['field', 'rating', 'note'], formats: printed,
      value: (r) => list(r.ratings).map((a) => ({ field: label.get(Number(a.definition_id)) ?? null, rating: plain(a.value), note: plain(a.note) })),
    },
  ];
}

async function countAll(records: AsyncIterable<Obj>): Promise<number> {
  let count = 0;
  for await (const r of records) if (r) count++;
  return count;
}

const assessmentListBase: ReportDefinition = {
  code: 'assessment_list_report',
  model: 'AssessmentListReport',
  title: 'Assessment List',
  params: SCOPE_BY_DATE,
  check: checkDates,
  scope: 'repository',
  types: ['assessment'],
  resolve: RESOLVE,
  // ArchivesSpace lists the active assessments.
  where: (r, run) => r.inactive !== true && inDates(r, run),
  async summary(records, run) {
    return { ...dateInfo(run), total_count: await countAll(records) };
  },
  columns: [],
};

export const assessmentListReport: ReportDefinition = {
  ...assessmentListBase,
  async prepare(s, repoId) {
    return { ...assessmentListBase, columns: assessmentListColumns(await attributeDefinitionsOf(s.db, repoId)) };
  },
};

const ratingOf = (r: Obj, run: RunParams) => list(r.ratings).find((a) => Number(a.definition_id) === Number(run.values.rating));
const chosenValues = (run: RunParams) => String(run.values.values ?? '').split(', ').filter(Boolean);

const assessmentRatingBase: ReportDefinition = {
  code: 'assessment_rating_report',
  model: 'AssessmentRatingReport',
  title: 'Assessment Rating',
  params: [...SCOPE_BY_DATE,
    { name: 'rating', kind: 'Rating', label: 'The assessment rating to report on' },
    { name: 'values', kind: 'RatingValues', label: 'The assessment rating values to include' }],
  check(values) {
    if (values.rating === undefined || !values.values) throw errors.invalidParam(values.rating === undefined ? 'rating' : 'values', 'Need a rating and at least one value of interest');
    checkDates(values);
  },
  scope: 'repository',
  types: ['assessment'],
  resolve: RESOLVE,
  where: (r, run) => chosenValues(run).includes(String(ratingOf(r, run)?.value ?? '')) && inDates(r, run),
  columns: [
    linkedRecordsColumn, idColumn,
    // ArchivesSpace heads this column with the rating's name; its cells are the rating's values.
    col('rating_name', (r, run) => plain(ratingOf(r, run)?.value)),
    col('rating_note', (r, run) => plain(ratingOf(r, run)?.note)),
    col('general_assessment_note', (r) => plain(r.general_assessment_note)),
    col('surveyed_by', (r) => people(r.surveyed_by)),
    col('surveyed_extent', (r) => plain(r.surveyed_extent)),
    col('survey_begin', (r) => plain(r.survey_begin)),
    col('survey_end', (r) => plain(r.survey_end)),
  ],
};

export const assessmentRatingReport: ReportDefinition = {
  ...assessmentRatingBase,
  async prepare(s, repoId, values) {
    const rating = (await attributeDefinitionsOf(s.db, repoId)).find((d) => Number(d.id) === Number(values.rating) && d.type === 'rating');
    if (!rating) throw errors.invalidParam('rating', `must be the id of one of the repository's rating attributes but given: ${String(values.rating)}`);
    return {
      ...assessmentRatingBase,
      async summary(_records, run) {
        return { ...dateInfo(run), scoped_by_rating: String(rating.label), showing_values: String(run.values.values) };
      },
    };
  },
};
