/**
 * Custom validations of ArchivesSpace (common/validations.rb), as described in
 * validation-rules.md section 2. Each rule looks at one cleaned object and returns
 * its findings; the caller adds the object's path and files coded errors.
 */

import type { Obj } from '../json';

export interface RuleFinding {
  field: string;
  message: string;
  level: 'error' | 'warning';
  coded?: boolean;
}

export type Rule = (obj: Obj) => RuleFinding[];

const error = (field: string, message: string): RuleFinding => ({ field, message, level: 'error' });
const warning = (field: string, message: string): RuleFinding => ({ field, message, level: 'warning' });
const codedError = (code: string): RuleFinding => ({ field: 'coded_errors', message: code, level: 'error', coded: true });

/** Absent after clean-up: the values the clean-up removes count as missing. */
function isAbsent(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  return typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

const isPresent = (value: unknown): boolean => !isAbsent(value);

const isEmpty = (value: unknown): boolean => isAbsent(value) || (Array.isArray(value) && value.length === 0);

/** Ruby truthiness: everything but nil and false. */
const isTruthy = (value: unknown): boolean => isPresent(value) && value !== false;

/**
 * An ARK asserted through …/ark_name (ArchivesSpace's ArkName.update_for_record): the current one
 * and every previous one hold `ark:/` (a resolver's address before it is allowed), but a current
 * one marked external, which may be any address.
 */
function checkArkName(obj: Obj): RuleFinding[] {
  const isArk = (v: unknown) => typeof v === 'string' && /^(.*?\/)?ark:\//.test(v);
  const values = [...(obj.current !== undefined && !obj.current_is_external ? [obj.current] : []), ...(Array.isArray(obj.previous) ? obj.previous : [])];
  return values.every(isArk) ? [] : [error('ark', 'ark_format_error')];
}

const isEmptyArray = (value: unknown): boolean => Array.isArray(value) && value.length === 0;

// Ruby's ^ and $ are line anchors that know only "\n", and ^ never matches after a final
// newline; JS's m flag also breaks lines at \r, \u2028 and \u2029, so the anchors are spelled out.
// Ruby's \s is ASCII-only and its . stops only at "\n".
const LINE_START = String.raw`(?:(?<![\s\S])|(?<=\n)(?=[\s\S]))`;
const LINE_END = String.raw`(?=\n|(?![\s\S]))`;
const SPACE = String.raw`[ \t\n\v\f\r]`;

/** A Ruby regex written as /^body$/. */
const rubyLineRegex = (body: string): RegExp => new RegExp(`${LINE_START}${body}${LINE_END}`);

/** Ruby's `value =~ regex`: a non-string (nil included) never matches. */
const matches = (value: unknown, regex: RegExp): boolean => typeof value === 'string' && regex.test(value);

const TWO_DECIMALS = rubyLineRegex(String.raw`${SPACE}*(?=[^\n]*[0-9])\d*(?:\.\d{1,2})?${SPACE}*`);
const DIGITS = rubyLineRegex(String.raw`\d+`);
const SIGNED_INTEGER = rubyLineRegex(String.raw`\-?\d+`);
const NINE_DIGITS_FIVE_DECIMALS = rubyLineRegex(String.raw`\-?\d{0,9}(\.\d{1,5})?`);
const STANDARD_DATE = rubyLineRegex(String.raw`(?:\d{1,4}(?:-\d{2})?|\d{3,4}-\d{2}-\d{2}|\d{2}-\d{4})`);

const TWO_DECIMALS_MESSAGE = 'must be a number with no more than 2 decimal places';
const NINE_FIVE_MESSAGE = 'must be a number with no more than nine digits and five decimal places';
const STANDARD_DATE_MESSAGE = 'must be in YYYY[YYY][YY][Y], YYYY[YYY][YY][Y]-MM, or YYYY-MM-DD format';
const MISSING = 'missing required property';
const EMPTY_VALUE_MESSAGE = "Must specify either a value or use the 'empty' comparator";

// ---------------------------------------------------------------- dates

// Date.strptime(s, '%Y-%m-%d'): signed year of any length, 1-2 digit month, day as 1-2 digits
// or a space and one digit; text after the day is ignored, as Ruby does.
const STRPTIME_YMD = /^([+-]?\d+)-(\d{1,2})-( \d|\d{1,2})/;

const mod = (a: number, n: number): number => ((a % n) + n) % n;

/**
 * The day y-m-d as Ruby's Date (Date::ITALY) reads it: Julian calendar before 1582-10-15,
 * Gregorian from then on, the ten skipped days invalid.
 */
function civilDay(year: number, month: number, day: number): Date | null {
  const julian = year < 1582 || (year === 1582 && (month < 10 || (month === 10 && day < 15)));
  if (year === 1582 && month === 10 && day > 4 && day < 15) return null;
  const leap = julian ? mod(year, 4) === 0 : mod(year, 4) === 0 && (mod(year, 100) !== 0 || mod(year, 400) === 0);
  const monthLength = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (day > monthLength) return null;
  const a = Math.floor((14 - month) / 12);
  const y = year + 4800 - a;
  const m = month + 12 * a - 3;
  let julianDayNumber = day + Math.floor((153 * m + 2) / 5) + 365 * y + Math.floor(y / 4) - 32083;
  if (!julian) julianDayNumber += -Math.floor(y / 100) + Math.floor(y / 400) + 38;
  const date = new Date((julianDayNumber - 2440588) * 86_400_000);
  return Number.isNaN(date.getTime()) ? null : date;
}

function strptimeYmd(text: unknown): Date | null {
  if (typeof text !== 'string') return null;
  const match = STRPTIME_YMD.exec(text);
  if (!match) return null;
  const [year, month, day] = match.slice(1).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return civilDay(year, month, day);
}

const LEADING_DASHES = new RegExp(`${LINE_START}-`, 'g');

/** Lenient date reading used by check_date and structured dates (validation-rules.md note 1). Returns a Date (UTC) or null. */
export function parseLenientDate(text: string): Date | null {
  if (typeof text !== 'string') return null;
  const negated = text.startsWith('-');
  const parts = text.replace(LEADING_DASHES, '').split('-');
  // Ruby's String#split drops trailing empty fields ("2020-" gives ["2020"]).
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  const padded = [...parts, '01', '01'].slice(0, 3);
  return strptimeYmd((negated ? '-' : '') + padded.join('-'));
}

const isBefore = (a: Date, b: Date): boolean => a.getTime() < b.getTime();

function checkDate(obj: Obj): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const { begin, end } = obj;
  let beginDate: Date | null = null;
  let endDate: Date | null = null;
  if (isTruthy(begin)) {
    beginDate = parseLenientDate(begin);
    if (!beginDate) findings.push(error('begin', 'not a valid date'));
  }
  if (isTruthy(end)) {
    // An end that only shortens the begin ("2000" for "2000-05") stands for the begin itself.
    const useBegin = beginDate && typeof end === 'string' && begin.startsWith(end);
    endDate = parseLenientDate(useBegin ? begin : end);
    if (!endDate) findings.push(error('end', 'not a valid date'));
  }
  if (beginDate && endDate && isBefore(endDate, beginDate)) findings.push(error('end', 'must not be before begin'));
  if (isAbsent(obj.expression) && isAbsent(begin) && isAbsent(end)) {
    findings.push(
      error('expression', 'is required unless a begin or end date is given'),
      error('begin', 'is required unless an expression or an end date is given'),
      error('end', 'is required unless an expression or a begin date is given'),
    );
  }
  return findings;
}

/** Stands in for Ruby's lenient Time.parse. */
const isDateTime = (value: unknown): boolean => typeof value === 'string' && !Number.isNaN(Date.parse(value));

function checkEvent(obj: Obj): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const hasDate = isPresent(obj.date);
  const hasTimestamp = isPresent(obj.timestamp);
  if (hasDate && hasTimestamp) {
    findings.push(
      error('date', "Can't specify both a date and a timestamp"),
      error('timestamp', "Can't specify both a date and a timestamp"),
    );
  }
  if (!hasDate && !hasTimestamp) {
    findings.push(
      error('date', 'Must specify either a date or a timestamp'),
      error('timestamp', 'Must specify either a date or a timestamp'),
    );
  }
  if (isTruthy(obj.timestamp) && !isDateTime(obj.timestamp)) {
    findings.push(error('timestamp', 'Must be an ISO8601-formatted string'));
  }
  return findings;
}

function checkStructuredDateLabel(obj: Obj): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const hasRange = isTruthy(obj.structured_date_range);
  const hasSingle = isTruthy(obj.structured_date_single);
  if (!hasRange && !hasSingle) {
    findings.push(error('structured_date_label', 'must_specify_either_a_single_or_ranged_date'));
  }
  if (hasRange && hasSingle) findings.push(error('structured_date_single', 'cannot specify both a single and ranged date'));
  if (hasRange && obj.date_type_structured === 'single') {
    findings.push(error('structured_date_range', 'Must specify single date for date type of single'));
  }
  // The source reports this one under structured_date_range too, not structured_date_single.
  if (hasSingle && obj.date_type_structured === 'range') {
    findings.push(error('structured_date_range', 'Must specify range date for date type of range'));
  }
  return findings;
}

/** Ruby's `(value =~ /^...$/) == 0`: the match has to start at the very beginning. */
const isStandardDate = (value: unknown): boolean =>
  typeof value === 'string' && STANDARD_DATE.exec(value)?.index === 0;

function checkStructuredDateSingle(obj: Obj): RuleFinding[] {
  const findings: RuleFinding[] = [];
  if (isAbsent(obj.date_role)) findings.push(error('date_role', 'is required'));
  const hasStandardized = isPresent(obj.date_standardized);
  if (isEmpty(obj.date_expression) && !hasStandardized) {
    findings.push(error('date_standardized', 'or date expression is required'));
  }
  if (hasStandardized && !isStandardDate(obj.date_standardized)) {
    findings.push(error('date_standardized', STANDARD_DATE_MESSAGE));
  }
  return findings;
}

function checkStructuredDateRange(obj: Obj): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const hasBeginExpression = !isEmpty(obj.begin_date_expression);
  const hasEndExpression = !isEmpty(obj.end_date_expression);
  const hasBegin = !isEmpty(obj.begin_date_standardized);
  const hasEnd = !isEmpty(obj.end_date_standardized);
  if (!hasBeginExpression && !hasBegin && !hasEnd) findings.push(error('begin_date_expression', 'is required'));
  if (!hasBeginExpression && hasEndExpression) {
    findings.push(error('end_date_expression', 'requires begin date expression to be defined'));
  }
  if (!hasBegin && hasEnd) findings.push(error('end_date_standardized', 'requires begin_date_standardized to be defined'));
  if (hasBegin && !isStandardDate(obj.begin_date_standardized)) {
    findings.push(error('begin_date_standardized', STANDARD_DATE_MESSAGE));
  }
  if (hasEnd && !isStandardDate(obj.end_date_standardized)) {
    findings.push(error('end_date_standardized', STANDARD_DATE_MESSAGE));
  }
  if (findings.length > 0 || !hasBegin || !hasEnd) return findings;
  const begin = parseLenientDate(obj.begin_date_standardized);
  const end = parseLenientDate(obj.end_date_standardized);
  if (!begin || !end) return [error('begin_date_standardized', 'Error attempting to parsing dates')];
  if (isBefore(end, begin)) return [error('begin_date_standardized', 'requires that end dates are after begin dates')];
  return [];
}

function checkRestrictionDate(obj: Obj): RuleFinding[] {
  const restriction = obj.rights_restriction;
  if (!isTruthy(restriction) || typeof restriction !== 'object') return [];
  const findings: RuleFinding[] = [];
  let begin: Date | null = null;
  let end: Date | null = null;
  if (isTruthy(restriction.begin)) {
    begin = strptimeYmd(restriction.begin);
    if (!begin) findings.push(error('rights_restriction__begin', 'must be in YYYY-MM-DD format'));
  }
  if (isTruthy(restriction.end)) {
    end = strptimeYmd(restriction.end);
    if (!end) findings.push(error('rights_restriction__end', 'must be in YYYY-MM-DD format'));
  }
  if (begin && end && isBefore(end, begin)) findings.push(error('rights_restriction__end', 'must not be before begin'));
  return findings;
}

// ---------------------------------------------------------------- records

const IDENTIFIER_PARTS = ['id_0', 'id_1', 'id_2', 'id_3'];

function checkIdentifier(obj: Obj): RuleFinding[] {
  const filled = IDENTIFIER_PARTS.map((part) => isPresent(obj[part]));
  const lastFilled = filled.lastIndexOf(true);
  const blankBeforeFilled = lastFilled > 0 && filled.slice(0, lastFilled).includes(false);
  return blankBeforeFilled ? [error('identifier', 'must not contain blank entries')] : [];
}

function checkLanguage(obj: Obj): RuleFinding[] {
  const materials: Obj[] = Array.isArray(obj.lang_materials) ? obj.lang_materials : [];
  const hasLanguage = materials.some((entry: Obj) => !isEmpty(entry?.language_and_script));
  return hasLanguage ? [] : [codedError('must_contain_at_least_one_language')];
}

function checkOtherLevel(obj: Obj): RuleFinding[] {
  return obj.level === 'otherlevel' && isAbsent(obj.other_level) ? [error('other_level', MISSING)] : [];
}

function checkArchivalObject(obj: Obj): RuleFinding[] {
  if (!isEmpty(obj.dates) || !isEmpty(obj.title)) return [];
  return [
    error('dates', 'one or more required (or enter a Title)'),
    error('title', 'must not be an empty string (or enter a Date)'),
  ];
}

function checkDigitalObjectComponent(obj: Obj): RuleFinding[] {
  const fields = ['dates', 'title', 'label'];
  if (!fields.every((field) => isEmpty(obj[field]))) return [];
  return fields.map((field) => error(field, 'you must provide a label, title or date'));
}

function checkDatesOfExistence(obj: Obj): RuleFinding[] {
  const dates = obj.dates_of_existence;
  const wrongLabel = Array.isArray(dates) && dates.some((date: Obj) => date?.date_label !== 'existence');
  return wrongLabel ? [error('dates_of_existence', "Label must be 'existence' in this context")] : [];
}

const SUBRECORDS_NOT_FOR_SOFTWARE = [
  'agent_record_identifiers',
  'agent_record_controls',
  'agent_other_agency_codes',
  'agent_conventions_declarations',
  'agent_maintenance_histories',
  'agent_sources',
  'agent_alternate_sets',
  'agent_resources',
];

function checkAgentSoftwareSubrecords(obj: Obj): RuleFinding[] {
  return SUBRECORDS_NOT_FOR_SOFTWARE.filter((name) => !isAbsent(obj[name]) && !isEmptyArray(obj[name])).map((name) =>
    error(name, 'subrecord not allowed for agent software'),
  );
}

function checkName(obj: Obj): RuleFinding[] {
  return isAbsent(obj.sort_name) && !isTruthy(obj.sort_name_auto_generate)
    ? [error('sort_name', 'Property is required but was missing')]
    : [];
}

function checkAuthorityId(obj: Obj): RuleFinding[] {
  return isTruthy(obj.authority_id) && isAbsent(obj.source)
    ? [warning('source', 'is required if there is an authority id')]
    : [];
}

// The source calls `subjects.empty?` without a presence check, so only an explicit [] is reported.
function checkAgentSubjectSubrecord(obj: Obj): RuleFinding[] {
  return isEmptyArray(obj.subjects) ? [error('subjects', 'Must specify a primary subject')] : [];
}

function checkAgentSources(obj: Obj): RuleFinding[] {
  return ['source_entry', 'descriptive_note', 'file_uri'].every((field) => isEmpty(obj[field]))
    ? [error('agent_sources', 'Must specify one of Source Entry, Descriptive Note or File URI')]
    : [];
}

// Reported under "agent_sources" on purpose: the source reuses that field name here.
function checkAgentAlternateSet(obj: Obj): RuleFinding[] {
  return ['set_component', 'descriptive_note', 'file_uri'].every((field) => isEmpty(obj[field]))
    ? [error('agent_sources', 'Must specify one of Set Component, Descriptive Note or File URI')]
    : [];
}

// As with subjects, an absent `notes` is not checked by the source.
function checkUsedLanguage(obj: Obj): RuleFinding[] {
  return isAbsent(obj.language) && isEmptyArray(obj.notes)
    ? [error('language', 'Must specify either language or a note.')]
    : [];
}

const RIGHTS_FIELDS: Record<string, string[]> = {
  copyright: ['status', 'jurisdiction', 'start_date'],
  license: ['license_terms', 'start_date'],
  statute: ['statute_citation', 'jurisdiction', 'start_date'],
  other: ['other_rights_basis', 'start_date'],
};

function checkRightsStatement(obj: Obj): RuleFinding[] {
  const fields = Object.hasOwn(RIGHTS_FIELDS, obj.rights_type) ? RIGHTS_FIELDS[obj.rights_type] : [];
  return fields.filter((field) => isAbsent(obj[field])).map((field) => error(field, MISSING));
}

function checkRightsStatementExternalDocument(obj: Obj): RuleFinding[] {
  return isAbsent(obj.identifier_type) ? [error('identifier_type', MISSING)] : [];
}

function checkAtLeastOneSubnote(obj: Obj): RuleFinding[] {
  return isEmpty(obj.subnotes) ? [error('subnotes', 'Must contain at least one subnote')] : [];
}

function checkInstance(obj: Obj): RuleFinding[] {
  if (obj.instance_type === 'digital_object') {
    return isAbsent(obj.digital_object) ? [error('digital_object', "Can't be empty")] : [];
  }
  if (isTruthy(obj.digital_object)) {
    return [error('instance_type', "An instance with a digital object reference must be of type 'digital_object'")];
  }
  if (isTruthy(obj.instance_type) && isAbsent(obj.sub_container)) return [error('sub_container', "Can't be empty")];
  return [];
}

function checkSubContainer(obj: Obj): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const [type2, indicator2] = [isPresent(obj.type_2), isPresent(obj.indicator_2)];
  const [type3, indicator3] = [isPresent(obj.type_3), isPresent(obj.indicator_3)];
  if (type2 !== indicator2) findings.push(error('type_2', 'container 2 requires both a type and indicator'));
  if (!type2 && !indicator2 && (type3 || indicator3)) {
    findings.push(error('type_2', 'container 2 is required if container 3 is provided'));
  }
  if (type3 !== indicator3) findings.push(error('type_3', 'container 3 requires both a type and indicator'));
  return findings;
}

function checkContainerLocation(obj: Obj): RuleFinding[] {
  return obj.status === 'previous' && isAbsent(obj.end_date) ? [error('end_date', 'is required if status is previous')] : [];
}

const LOCATION_FIELD_SETS = [['barcode'], ['classification'], ['coordinate_1_indicator', 'coordinate_1_label']];

function checkLocation(obj: Obj): RuleFinding[] {
  const identified = LOCATION_FIELD_SETS.some((fields) => fields.every((field) => isTruthy(obj[field])));
  return identified ? [] : [codedError('location_fields_error')];
}

const DIMENSIONS = ['depth', 'width', 'height'];

// No presence check here, as in the source: an absent dimension fails the pattern.
function checkContainerProfile(obj: Obj): RuleFinding[] {
  const findings = DIMENSIONS.filter((field) => !matches(obj[field], TWO_DECIMALS)).map((field) =>
    error(field, TWO_DECIMALS_MESSAGE),
  );
  if (isPresent(obj.stacking_limit) && !matches(obj.stacking_limit, DIGITS)) {
    findings.push(error('stacking_limit', 'must be a positive integer'));
  }
  return findings;
}

function checkLocationProfile(obj: Obj): RuleFinding[] {
  return DIMENSIONS.filter((field) => isPresent(obj[field]) && !matches(obj[field], TWO_DECIMALS)).map((field) =>
    error(field, TWO_DECIMALS_MESSAGE),
  );
}

/** Fields that, when present, must match a pattern. */
function checkPatterns(obj: Obj, fields: string[], regex: RegExp, message: string): RuleFinding[] {
  return fields.filter((field) => isPresent(obj[field]) && !matches(obj[field], regex)).map((field) => error(field, message));
}

function checkCollectionManagement(obj: Obj): RuleFinding[] {
  const findings: RuleFinding[] = [];
  if (isPresent(obj.processing_total_extent) && isAbsent(obj.processing_total_extent_type)) {
    findings.push(error('processing_total_extent_type', 'is required if total extent is specified'));
  }
  const numbers = ['processing_hours_per_foot_estimate', 'processing_total_extent', 'processing_hours_total'];
  return [...findings, ...checkPatterns(obj, numbers, NINE_DIGITS_FIVE_DECIMALS, NINE_FIVE_MESSAGE)];
}

function checkUserDefined(obj: Obj): RuleFinding[] {
  return [
    ...checkPatterns(obj, ['integer_1', 'integer_2', 'integer_3'], SIGNED_INTEGER, 'must be an integer'),
    ...checkPatterns(obj, ['real_1', 'real_2', 'real_3'], NINE_DIGITS_FIVE_DECIMALS, NINE_FIVE_MESSAGE),
  ];
}

function checkFieldQuery(obj: Obj): RuleFinding[] {
  return isEmpty(obj.value) && obj.comparator !== 'empty' ? [error('value', EMPTY_VALUE_MESSAGE)] : [];
}

// ---------------------------------------------------------------- registry

/** Registry of custom rules by the exact names used in record-model.json's custom_validations
    (without the " (warning)" suffix). */
export const customRules: Record<string, Rule> = {
  check_ark_name: checkArkName,
  accession_check_identifier: checkIdentifier,
  resource_check_identifier: checkIdentifier,
  archival_object_check_identifier: checkIdentifier,
  check_language: checkLanguage,
  check_resource_otherlevel: checkOtherLevel,
  check_archival_object: checkArchivalObject,
  check_archival_object_otherlevel: checkOtherLevel,
  check_digital_object_component: checkDigitalObjectComponent,
  check_date: checkDate,
  check_event: checkEvent,
  check_agent_person: checkDatesOfExistence,
  check_agent_family: checkDatesOfExistence,
  check_agent_corporate_entity: checkDatesOfExistence,
  check_agent_software: checkDatesOfExistence,
  check_agent_software_subrecords: checkAgentSoftwareSubrecords,
  name_person_check_name: checkName,
  name_family_check_name: checkName,
  name_corporate_entity_check_name: checkName,
  name_software_check_name: checkName,
  name_person_check_authority_id: checkAuthorityId,
  name_family_check_authority_id: checkAuthorityId,
  name_corporate_entity_check_authority_id: checkAuthorityId,
  name_software_check_authority_id: checkAuthorityId,
  check_agent_function_subject_subrecord: checkAgentSubjectSubrecord,
  check_agent_place_subject_subrecord: checkAgentSubjectSubrecord,
  check_agent_occupation_subject_subrecord: checkAgentSubjectSubrecord,
  check_agent_topic_subject_subrecord: checkAgentSubjectSubrecord,
  check_agent_sources: checkAgentSources,
  check_agent_alternate_set: checkAgentAlternateSet,
  check_used_language: checkUsedLanguage,
  check_structured_date_label: checkStructuredDateLabel,
  check_structured_date_single: checkStructuredDateSingle,
  check_structured_date_range: checkStructuredDateRange,
  check_rights_statement: checkRightsStatement,
  check_rights_statement_external_document: checkRightsStatementExternalDocument,
  note_multipart_check_at_least_one_subnote: checkAtLeastOneSubnote,
  note_bioghist_check_at_least_one_subnote: checkAtLeastOneSubnote,
  check_restriction_date: checkRestrictionDate,
  check_instance: checkInstance,
  check_sub_container: checkSubContainer,
  check_container_location: checkContainerLocation,
  check_location: checkLocation,
  check_container_profile: checkContainerProfile,
  check_location_profile: checkLocationProfile,
  check_collection_management: checkCollectionManagement,
  'check_user-defined': checkUserDefined,
  check_field_query: checkFieldQuery,
  check_date_field_query: checkFieldQuery,
};
