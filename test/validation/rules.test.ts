import assert from 'node:assert/strict';
import { customRules, parseLenientDate, type RuleFinding } from '../../src/validation/rules';

const error = (field: string, message: string): RuleFinding => ({ field, message, level: 'error' });
const warning = (field: string, message: string): RuleFinding => ({ field, message, level: 'warning' });
const coded = (code: string): RuleFinding => ({ field: 'coded_errors', message: code, level: 'error', coded: true });

type Case = [description: string, input: Record<string, any>, expected: RuleFinding[]];

/** One `it` per case: the named rule, run on the input, gives exactly the expected findings in order. */
function ruleTable(ruleNames: string | string[], cases: Case[]): void {
  for (const name of [ruleNames].flat()) {
    describe(name, () => {
      for (const [description, input, expected] of cases) {
        it(description, () => assert.deepEqual(customRules[name](input), expected));
      }
    });
  }
}

const NOT_A_VALID_DATE = 'not a valid date';
const TWO_DECIMALS = 'must be a number with no more than 2 decimal places';
const NINE_FIVE = 'must be a number with no more than nine digits and five decimal places';
const STANDARD_DATE = 'must be in YYYY[YYY][YY][Y], YYYY[YYY][YY][Y]-MM, or YYYY-MM-DD format';
const MISSING = 'missing required property';

describe('customRules registry', () => {
  it('holds exactly the rules named in record-model.json custom_validations, and the named ones of our own', () => {
    const names = [
      'accession_check_identifier', 'archival_object_check_identifier', 'check_agent_alternate_set',
      'check_agent_corporate_entity', 'check_agent_family', 'check_agent_function_subject_subrecord',
      'check_agent_occupation_subject_subrecord', 'check_agent_person', 'check_agent_place_subject_subrecord',
      'check_agent_software', 'check_agent_software_subrecords', 'check_agent_sources',
      'check_agent_topic_subject_subrecord', 'check_archival_object', 'check_archival_object_otherlevel',
      'check_collection_management', 'check_container_location', 'check_container_profile', 'check_date',
      'check_date_field_query', 'check_digital_object_component', 'check_event', 'check_field_query',
      'check_instance', 'check_language', 'check_location', 'check_location_profile', 'check_resource_otherlevel',
      'check_restriction_date', 'check_rights_statement', 'check_rights_statement_external_document',
      'check_structured_date_label', 'check_structured_date_range', 'check_structured_date_single',
      'check_sub_container', 'check_used_language', 'check_user-defined', 'name_corporate_entity_check_authority_id',
      'name_corporate_entity_check_name', 'name_family_check_authority_id', 'name_family_check_name',
      'name_person_check_authority_id', 'name_person_check_name', 'name_software_check_authority_id',
      'name_software_check_name', 'note_bioghist_check_at_least_one_subnote',
      'note_multipart_check_at_least_one_subnote', 'resource_check_identifier',
    ];
    // Rules of our own, beside the original's: the ARK check of …/ark_name (ArchivesSpace checks ARKs as it saves them).
    const own = ['check_ark_name'];
    assert.deepEqual(Object.keys(customRules).sort(), [...names, ...own].sort());
  });
});

describe('parseLenientDate', () => {
  const cases: [string, string | null][] = [
    ['2020', '2020-01-01'],
    ['2020-05', '2020-05-01'],
    ['2020-05-17', '2020-05-17'],
    ['2020-5-7', '2020-05-07'],
    ['2020-', '2020-01-01'],
    ['2020-05-17-99', '2020-05-17'],
    ['2020-05-17abc', '2020-05-17'],
    ['2000-02-29', '2000-02-29'],
    ['1582-10-15', '1582-10-15'],
    ['2020-13', null],
    ['2020-02-30', null],
    ['1900-02-29', null],
    ['2020abc', null],
    ['2020--05', null],
    ['abc', null],
    ['', null],
    ['-', null],
  ];
  for (const [text, expected] of cases) {
    it(`reads ${JSON.stringify(text)} as ${expected}`, () => {
      assert.equal(parseLenientDate(text)?.toISOString().slice(0, 10) ?? null, expected);
    });
  }

  it('reads a leading "-" as a BCE year, before year 1', () => {
    const bce = parseLenientDate('-0500');
    assert.ok(bce);
    assert.ok(bce.getTime() < parseLenientDate('0001')!.getTime());
    assert.ok(bce.getTime() < parseLenientDate('-0499')!.getTime());
  });

  it('uses the Julian calendar before 1582-10-15, as Ruby does', () => {
    assert.ok(parseLenientDate('1500-02-29'), 'Julian leap day');
    assert.equal(parseLenientDate('1582-10-10'), null, 'day skipped by the reform');
    assert.equal(parseLenientDate('1582-10-15')!.getTime() - parseLenientDate('1582-10-04')!.getTime(), 86_400_000);
  });
});

ruleTable(['accession_check_identifier', 'resource_check_identifier', 'archival_object_check_identifier'], [
  ['passes with no identifier parts', {}, []],
  ['passes with only id_0', { id_0: 'A' }, []],
  ['passes with all four parts', { id_0: 'A', id_1: 'B', id_2: 'C', id_3: 'D' }, []],
  ['passes with blanks only at the end', { id_0: 'A', id_1: 'B' }, []],
  ['fails when id_1 is blank between id_0 and id_2', { id_0: 'A', id_2: 'C' }, [error('identifier', 'must not contain blank entries')]],
  ['fails when id_0 is blank before id_1', { id_1: 'B' }, [error('identifier', 'must not contain blank entries')]],
  ['counts "" as blank', { id_0: 'A', id_1: '', id_3: 'D' }, [error('identifier', 'must not contain blank entries')]],
]);

ruleTable('check_language', [
  ['passes when an entry has language_and_script', { lang_materials: [{ notes: [{}] }, { language_and_script: { language: 'eng' } }] }, []],
  ['fails on an empty lang_materials', { lang_materials: [] }, [coded('must_contain_at_least_one_language')]],
  ['fails when no entry has language_and_script', { lang_materials: [{ notes: [{ content: ['x'] }] }] }, [coded('must_contain_at_least_one_language')]],
  ['fails when language_and_script is an empty array', { lang_materials: [{ language_and_script: [] }] }, [coded('must_contain_at_least_one_language')]],
  ['fails when lang_materials is absent', {}, [coded('must_contain_at_least_one_language')]],
]);

ruleTable(['check_resource_otherlevel', 'check_archival_object_otherlevel'], [
  ['passes for an ordinary level', { level: 'file' }, []],
  ['passes for otherlevel with other_level', { level: 'otherlevel', other_level: 'Sub-file' }, []],
  ['fails for otherlevel without other_level', { level: 'otherlevel' }, [error('other_level', MISSING)]],
]);

ruleTable('check_archival_object', [
  ['passes with a title only', { title: 'Letters' }, []],
  ['passes with dates only', { dates: [{ expression: '1900' }] }, []],
  ['fails with neither dates nor title, giving both messages', {}, [
    error('dates', 'one or more required (or enter a Title)'),
    error('title', 'must not be an empty string (or enter a Date)'),
  ]],
  ['treats empty dates and an empty title as missing', { dates: [], title: '' }, [
    error('dates', 'one or more required (or enter a Title)'),
    error('title', 'must not be an empty string (or enter a Date)'),
  ]],
]);

ruleTable('check_digital_object_component', [
  ['passes with a label only', { label: 'Side A' }, []],
  ['passes with a title only', { title: 'Image 1' }, []],
  ['passes with dates only', { dates: [{ expression: '1900' }] }, []],
  ['fails with none of dates, title, label, one message each', { dates: [] }, [
    error('dates', 'you must provide a label, title or date'),
    error('title', 'you must provide a label, title or date'),
    error('label', 'you must provide a label, title or date'),
  ]],
]);

ruleTable('check_date', [
  ['passes with an expression only', { expression: 'circa 1900' }, []],
  ['passes with begin only', { begin: '1900-05-17' }, []],
  ['passes with end only', { end: '1900' }, []],
  ['passes with end after begin', { begin: '1900', end: '1901-02' }, []],
  ['passes with end equal to begin', { begin: '1900-05-17', end: '1900-05-17' }, []],
  ['passes a BCE begin before a CE end', { begin: '-0500', end: '0100' }, []],
  ['uses begin as end when begin starts with end', { begin: '2000-05', end: '2000' }, []],
  ['fails on an invalid begin', { begin: '2000-13' }, [error('begin', NOT_A_VALID_DATE)]],
  ['fails on an invalid end', { begin: '2000', end: '2000-02-30' }, [error('end', NOT_A_VALID_DATE)]],
  ['fails on both, begin first', { begin: 'soon', end: 'later' }, [error('begin', NOT_A_VALID_DATE), error('end', NOT_A_VALID_DATE)]],
  ['does not compare when begin is invalid', { begin: '2001-13', end: '2000' }, [error('begin', NOT_A_VALID_DATE)]],
  ['fails when end is before begin', { begin: '2001', end: '2000' }, [error('end', 'must not be before begin')]],
  ['fails when end is a day before begin', { begin: '2000-05-17', end: '2000-05-16' }, [error('end', 'must not be before begin')]],
  ['compares padded values when begin does not start with end', { begin: '2000-05', end: '2000-04' }, [error('end', 'must not be before begin')]],
  ['fails with no expression, begin or end, three messages', { date_type: 'single', label: 'creation' }, [
    error('expression', 'is required unless a begin or end date is given'),
    error('begin', 'is required unless an expression or an end date is given'),
    error('end', 'is required unless an expression or a begin date is given'),
  ]],
]);

ruleTable('check_event', [
  ['passes with a date', { date: { expression: '1900' } }, []],
  ['passes with an ISO 8601 timestamp', { timestamp: '2020-05-17T10:00:00Z' }, []],
  ['fails with both date and timestamp', { date: { expression: '1900' }, timestamp: '2020-05-17T10:00:00Z' }, [
    error('date', "Can't specify both a date and a timestamp"),
    error('timestamp', "Can't specify both a date and a timestamp"),
  ]],
  ['fails with neither date nor timestamp', {}, [
    error('date', 'Must specify either a date or a timestamp'),
    error('timestamp', 'Must specify either a date or a timestamp'),
  ]],
  ['fails on an unparseable timestamp', { timestamp: 'not a date' }, [error('timestamp', 'Must be an ISO8601-formatted string')]],
  ['reports both-given before an unparseable timestamp', { date: { expression: '1900' }, timestamp: 'whenever' }, [
    error('date', "Can't specify both a date and a timestamp"),
    error('timestamp', "Can't specify both a date and a timestamp"),
    error('timestamp', 'Must be an ISO8601-formatted string'),
  ]],
]);

ruleTable(['check_agent_person', 'check_agent_family', 'check_agent_corporate_entity', 'check_agent_software'], [
  ['passes without dates_of_existence', {}, []],
  ['passes when every label is existence', { dates_of_existence: [{ date_label: 'existence' }, { date_label: 'existence' }] }, []],
  ['fails once when some label is not existence', { dates_of_existence: [{ date_label: 'existence' }, { date_label: 'birth' }, {}] }, [
    error('dates_of_existence', "Label must be 'existence' in this context"),
  ]],
]);

ruleTable('check_agent_software_subrecords', [
  ['passes with none of the subrecords', { names: [{ software_name: 'x' }], agent_contacts: [{ name: 'x' }] }, []],
  ['passes with the subrecords as empty arrays', { agent_sources: [], agent_resources: [] }, []],
  ...[
    'agent_record_identifiers', 'agent_record_controls', 'agent_other_agency_codes', 'agent_conventions_declarations',
    'agent_maintenance_histories', 'agent_sources', 'agent_alternate_sets', 'agent_resources',
  ].map((name): Case => [`fails when ${name} is given`, { [name]: [{}] }, [error(name, 'subrecord not allowed for agent software')]]),
  ['reports several in the listed order', { agent_resources: [{}], agent_record_identifiers: [{}] }, [
    error('agent_record_identifiers', 'subrecord not allowed for agent software'),
    error('agent_resources', 'subrecord not allowed for agent software'),
  ]],
]);

ruleTable(['name_person_check_name', 'name_family_check_name', 'name_corporate_entity_check_name', 'name_software_check_name'], [
  ['passes with a sort_name', { sort_name: 'Smith, J.' }, []],
  ['passes with sort_name_auto_generate true', { sort_name_auto_generate: true }, []],
  ['fails without sort_name or sort_name_auto_generate (default not yet applied)', {}, [
    error('sort_name', 'Property is required but was missing'),
  ]],
  ['fails with sort_name_auto_generate false', { sort_name_auto_generate: false }, [error('sort_name', 'Property is required but was missing')]],
]);

ruleTable(['name_person_check_authority_id', 'name_family_check_authority_id', 'name_corporate_entity_check_authority_id', 'name_software_check_authority_id'], [
  ['passes without authority_id', {}, []],
  ['passes with authority_id and source', { authority_id: 'n79021164', source: 'naf' }, []],
  ['warns on authority_id without source', { authority_id: 'n79021164' }, [warning('source', 'is required if there is an authority id')]],
]);

ruleTable(['check_agent_function_subject_subrecord', 'check_agent_place_subject_subrecord', 'check_agent_occupation_subject_subrecord', 'check_agent_topic_subject_subrecord'], [
  ['passes with a subject', { subjects: [{ ref: '/subjects/1' }] }, []],
  ['does not report an absent subjects', {}, []],
  ['fails on an empty subjects array', { subjects: [] }, [error('subjects', 'Must specify a primary subject')]],
]);

ruleTable('check_agent_sources', [
  ['passes with source_entry', { source_entry: 'x' }, []],
  ['passes with descriptive_note', { descriptive_note: 'x' }, []],
  ['passes with file_uri', { file_uri: 'http://example.com' }, []],
  ['fails with none of them', { xlink_title_attribute: 'x' }, [error('agent_sources', 'Must specify one of Source Entry, Descriptive Note or File URI')]],
]);

ruleTable('check_agent_alternate_set', [
  ['passes with set_component', { set_component: 'x' }, []],
  ['passes with descriptive_note', { descriptive_note: 'x' }, []],
  ['passes with file_uri', { file_uri: 'http://example.com' }, []],
  ['fails with none of them, under agent_sources', {}, [error('agent_sources', 'Must specify one of Set Component, Descriptive Note or File URI')]],
]);

ruleTable('check_used_language', [
  ['passes with a language', { language: 'eng', notes: [] }, []],
  ['passes with a note', { notes: [{ content: ['x'] }] }, []],
  ['does not report absent notes', {}, []],
  ['fails with no language and empty notes', { notes: [] }, [error('language', 'Must specify either language or a note.')]],
]);

ruleTable('check_structured_date_label', [
  ['passes with a single date of type single', { date_type_structured: 'single', structured_date_single: { date_role: 'begin' } }, []],
  ['passes with a range of type range', { date_type_structured: 'range', structured_date_range: { begin_date_expression: 'x' } }, []],
  ['fails with neither', { date_type_structured: 'single' }, [error('structured_date_label', 'must_specify_either_a_single_or_ranged_date')]],
  ['fails with a range for type single', { date_type_structured: 'single', structured_date_range: { begin_date_expression: 'x' } }, [
    error('structured_date_range', 'Must specify single date for date type of single'),
  ]],
  ['fails with a single for type range, under structured_date_range', { date_type_structured: 'range', structured_date_single: { date_role: 'begin' } }, [
    error('structured_date_range', 'Must specify range date for date type of range'),
  ]],
  ['fails with both (type single)', { date_type_structured: 'single', structured_date_single: { date_role: 'begin' }, structured_date_range: { begin_date_expression: 'x' } }, [
    error('structured_date_single', 'cannot specify both a single and ranged date'),
    error('structured_date_range', 'Must specify single date for date type of single'),
  ]],
  ['fails with both (type range)', { date_type_structured: 'range', structured_date_single: { date_role: 'begin' }, structured_date_range: { begin_date_expression: 'x' } }, [
    error('structured_date_single', 'cannot specify both a single and ranged date'),
    error('structured_date_range', 'Must specify range date for date type of range'),
  ]],
]);

ruleTable('check_structured_date_single', [
  ['passes with a role and an expression', { date_role: 'begin', date_expression: 'circa 1900' }, []],
  ['passes with a role and a standardized date', { date_role: 'begin', date_standardized: '1900-05-17' }, []],
  ...['1', '12', '123', '1234', '1-05', '12-05', '123-05', '1234-05', '123-05-17', '1234-05-17', '05-1900', '1900\nlater lines']
    .map((value): Case => [`accepts the standardized form ${JSON.stringify(value)}`, { date_role: 'begin', date_standardized: value }, []]),
  ...['12345', '1900-5', '1900-05-7', '12-05-17', '1900/05', '1900-05-17-01', 'May 1900', 'x\n1900']
    .map((value): Case => [`rejects the standardized form ${JSON.stringify(value)}`, { date_role: 'begin', date_standardized: value }, [
      error('date_standardized', STANDARD_DATE),
    ]]),
  ['fails without date_role', { date_expression: 'circa 1900' }, [error('date_role', 'is required')]],
  ['fails with neither expression nor standardized date', { date_role: 'begin' }, [error('date_standardized', 'or date expression is required')]],
  ['reports the role before the missing date', {}, [error('date_role', 'is required'), error('date_standardized', 'or date expression is required')]],
]);

ruleTable('check_structured_date_range', [
  ['passes with a begin expression only', { begin_date_expression: 'circa 1900' }, []],
  ['passes with a begin standardized date only', { begin_date_standardized: '1900' }, []],
  ['passes with begin before end', { begin_date_standardized: '1900-05', end_date_standardized: '1901' }, []],
  ['passes with begin equal to end', { begin_date_standardized: '1900-05-17', end_date_standardized: '1900-05-17' }, []],
  ['passes with both expressions', { begin_date_expression: 'a', end_date_expression: 'b' }, []],
  ['fails with nothing given', {}, [error('begin_date_expression', 'is required')]],
  ['fails with an end expression only', { end_date_expression: 'later' }, [
    error('begin_date_expression', 'is required'),
    error('end_date_expression', 'requires begin date expression to be defined'),
  ]],
  ['fails with an end expression but no begin expression', { begin_date_standardized: '1900', end_date_expression: 'later' }, [
    error('end_date_expression', 'requires begin date expression to be defined'),
  ]],
  ['fails with an end standardized date only', { end_date_standardized: '1900' }, [
    error('end_date_standardized', 'requires begin_date_standardized to be defined'),
  ]],
  ['fails on a malformed begin standardized date', { begin_date_standardized: 'May 1900' }, [error('begin_date_standardized', STANDARD_DATE)]],
  ['fails on a malformed end standardized date, without comparing', { begin_date_standardized: '1900', end_date_standardized: '1800/01' }, [
    error('end_date_standardized', STANDARD_DATE),
  ]],
  ['fails on both malformed, begin first', { begin_date_standardized: 'x', end_date_standardized: 'y' }, [
    error('begin_date_standardized', STANDARD_DATE),
    error('end_date_standardized', STANDARD_DATE),
  ]],
  ['fails when a well-formed date cannot be read', { begin_date_standardized: '1900-13', end_date_standardized: '1901' }, [
    error('begin_date_standardized', 'Error attempting to parsing dates'),
  ]],
  ['fails when a MM-YYYY date cannot be read', { begin_date_standardized: '1900', end_date_standardized: '05-1901' }, [
    error('begin_date_standardized', 'Error attempting to parsing dates'),
  ]],
  ['fails when end is before begin', { begin_date_standardized: '1901', end_date_standardized: '1900-12-31' }, [
    error('begin_date_standardized', 'requires that end dates are after begin dates'),
  ]],
]);

ruleTable('check_rights_statement', [
  ['passes a complete copyright statement', { rights_type: 'copyright', status: 'copyrighted', jurisdiction: 'US', start_date: '2000-01-01' }, []],
  ['passes a complete license statement', { rights_type: 'license', license_terms: 'x', start_date: '2000-01-01' }, []],
  ['passes a complete statute statement', { rights_type: 'statute', statute_citation: 'x', jurisdiction: 'US', start_date: '2000-01-01' }, []],
  ['passes a complete other statement', { rights_type: 'other', other_rights_basis: 'policy', start_date: '2000-01-01' }, []],
  ['fails a bare copyright statement', { rights_type: 'copyright' }, [error('status', MISSING), error('jurisdiction', MISSING), error('start_date', MISSING)]],
  ['fails a bare license statement', { rights_type: 'license' }, [error('license_terms', MISSING), error('start_date', MISSING)]],
  ['fails a bare statute statement', { rights_type: 'statute' }, [error('statute_citation', MISSING), error('jurisdiction', MISSING), error('start_date', MISSING)]],
  ['fails a bare other statement', { rights_type: 'other' }, [error('other_rights_basis', MISSING), error('start_date', MISSING)]],
  ['reports only what is missing', { rights_type: 'copyright', status: 'copyrighted', start_date: '2000-01-01' }, [error('jurisdiction', MISSING)]],
]);

ruleTable('check_rights_statement_external_document', [
  ['passes with identifier_type', { title: 'x', location: 'y', identifier_type: 'local_file' }, []],
  ['fails without identifier_type', { title: 'x', location: 'y' }, [error('identifier_type', MISSING)]],
]);

ruleTable(['note_multipart_check_at_least_one_subnote', 'note_bioghist_check_at_least_one_subnote'], [
  ['passes with a subnote', { subnotes: [{ jsonmodel_type: 'note_text', content: 'x' }] }, []],
  ['fails without subnotes', {}, [error('subnotes', 'Must contain at least one subnote')]],
  ['fails with empty subnotes', { subnotes: [] }, [error('subnotes', 'Must contain at least one subnote')]],
]);

ruleTable('check_restriction_date', [
  ['passes without rights_restriction', { type: 'accessrestrict' }, []],
  ['passes with begin before end', { rights_restriction: { begin: '2020-01-01', end: '2020-12-31' } }, []],
  ['passes with single-digit month and day', { rights_restriction: { begin: '2020-1-5' } }, []],
  ['passes with begin equal to end', { rights_restriction: { begin: '2020-01-01', end: '2020-01-01' } }, []],
  ['fails on a bare-year begin', { rights_restriction: { begin: '2020' } }, [error('rights_restriction__begin', 'must be in YYYY-MM-DD format')]],
  ['fails on a year-month end', { rights_restriction: { end: '2020-05' } }, [error('rights_restriction__end', 'must be in YYYY-MM-DD format')]],
  ['fails on an impossible day', { rights_restriction: { end: '2021-02-29' } }, [error('rights_restriction__end', 'must be in YYYY-MM-DD format')]],
  ['fails on both, begin first', { rights_restriction: { begin: 'x', end: 'y' } }, [
    error('rights_restriction__begin', 'must be in YYYY-MM-DD format'),
    error('rights_restriction__end', 'must be in YYYY-MM-DD format'),
  ]],
  ['fails when end is before begin', { rights_restriction: { begin: '2020-05-02', end: '2020-05-01' } }, [
    error('rights_restriction__end', 'must not be before begin'),
  ]],
]);

ruleTable('check_instance', [
  ['passes a digital object instance', { instance_type: 'digital_object', digital_object: { ref: '/repositories/2/digital_objects/1' } }, []],
  ['passes a container instance', { instance_type: 'mixed_materials', sub_container: { top_container: { ref: '/repositories/2/top_containers/1' } } }, []],
  ['fails a digital object instance without a digital object', { instance_type: 'digital_object' }, [error('digital_object', "Can't be empty")]],
  ['fails a digital object reference on another type', { instance_type: 'text', digital_object: { ref: '/repositories/2/digital_objects/1' } }, [
    error('instance_type', "An instance with a digital object reference must be of type 'digital_object'"),
  ]],
  ['fails a container instance without a sub_container', { instance_type: 'text' }, [error('sub_container', "Can't be empty")]],
]);

ruleTable('check_sub_container', [
  ['passes with only the top container', { top_container: { ref: '/repositories/2/top_containers/1' } }, []],
  ['passes with container 2 complete', { type_2: 'folder', indicator_2: '1' }, []],
  ['passes with containers 2 and 3 complete', { type_2: 'folder', indicator_2: '1', type_3: 'item', indicator_3: '2' }, []],
  ['fails with type_2 alone', { type_2: 'folder' }, [error('type_2', 'container 2 requires both a type and indicator')]],
  ['fails with indicator_2 alone', { indicator_2: '1' }, [error('type_2', 'container 2 requires both a type and indicator')]],
  ['fails with container 3 but not container 2', { type_3: 'item', indicator_3: '2' }, [error('type_2', 'container 2 is required if container 3 is provided')]],
  ['fails with only indicator_3', { indicator_3: '2' }, [
    error('type_2', 'container 2 is required if container 3 is provided'),
    error('type_3', 'container 3 requires both a type and indicator'),
  ]],
  ['fails with both halves incomplete', { type_2: 'folder', type_3: 'item' }, [
    error('type_2', 'container 2 requires both a type and indicator'),
    error('type_3', 'container 3 requires both a type and indicator'),
  ]],
]);

ruleTable('check_container_location', [
  ['passes a current location without end_date', { status: 'current', start_date: '2020-01-01' }, []],
  ['passes a previous location with end_date', { status: 'previous', start_date: '2020-01-01', end_date: '2021-01-01' }, []],
  ['fails a previous location without end_date', { status: 'previous', start_date: '2020-01-01' }, [error('end_date', 'is required if status is previous')]],
]);

ruleTable('check_location', [
  ['passes with a barcode', { building: 'Main', barcode: '123' }, []],
  ['passes with a classification', { building: 'Main', classification: 'A' }, []],
  ['passes with coordinate 1 label and indicator', { building: 'Main', coordinate_1_label: 'Shelf', coordinate_1_indicator: '1' }, []],
  ['fails with only a building', { building: 'Main' }, [coded('location_fields_error')]],
  ['fails with coordinate 1 label but no indicator', { building: 'Main', coordinate_1_label: 'Shelf' }, [coded('location_fields_error')]],
]);

const profile = { depth: '10', width: '10.5', height: '10.25' };
ruleTable('check_container_profile', [
  ['passes plain and decimal dimensions', profile, []],
  ['passes surrounding spaces and a leading point', { depth: ' 12 ', width: '.5', height: '3.0' }, []],
  ['passes a stacking_limit of 0', { ...profile, stacking_limit: '0' }, []],
  ['fails three decimals', { ...profile, depth: '10.255' }, [error('depth', TWO_DECIMALS)]],
  ['fails a negative number', { ...profile, width: '-1' }, [error('width', TWO_DECIMALS)]],
  ['fails text', { ...profile, height: 'tall' }, [error('height', TWO_DECIMALS)]],
  ['fails a lone point', { ...profile, height: '.' }, [error('height', TWO_DECIMALS)]],
  ['fails an absent dimension (no presence check)', { depth: '1', width: '1' }, [error('height', TWO_DECIMALS)]],
  ['fails a number that is not a string', { ...profile, depth: 10 }, [error('depth', TWO_DECIMALS)]],
  ['reports dimensions in order depth, width, height', { height: 'x', width: 'y', depth: 'z' }, [
    error('depth', TWO_DECIMALS), error('width', TWO_DECIMALS), error('height', TWO_DECIMALS),
  ]],
  ['fails a decimal stacking_limit', { ...profile, stacking_limit: '1.5' }, [error('stacking_limit', 'must be a positive integer')]],
  ['fails a negative stacking_limit', { ...profile, stacking_limit: '-1' }, [error('stacking_limit', 'must be a positive integer')]],
]);

ruleTable('check_location_profile', [
  ['passes without dimensions', { name: 'Shelf' }, []],
  ['passes valid dimensions', { depth: '10', width: ' 7 ', height: '10.25' }, []],
  ['fails a dimension with three decimals', { depth: '1.234' }, [error('depth', TWO_DECIMALS)]],
  ['reports each bad dimension in order', { height: 'x', depth: 'y' }, [error('depth', TWO_DECIMALS), error('height', TWO_DECIMALS)]],
]);

ruleTable('check_collection_management', [
  ['passes with no processing numbers', { processing_plan: 'x' }, []],
  ['passes valid numbers', {
    processing_total_extent: '123456789.12345', processing_total_extent_type: 'linear_feet',
    processing_hours_per_foot_estimate: '-1.5', processing_hours_total: '12',
  }, []],
  ['fails an extent without its type', { processing_total_extent: '12' }, [
    error('processing_total_extent_type', 'is required if total extent is specified'),
  ]],
  ['fails ten digits', { processing_hours_total: '1234567890' }, [error('processing_hours_total', NINE_FIVE)]],
  ['fails six decimals', { processing_hours_per_foot_estimate: '1.123456' }, [error('processing_hours_per_foot_estimate', NINE_FIVE)]],
  ['reports the missing type first, then each bad number in order', {
    processing_hours_total: 'x', processing_total_extent: 'y', processing_hours_per_foot_estimate: 'z',
  }, [
    error('processing_total_extent_type', 'is required if total extent is specified'),
    error('processing_hours_per_foot_estimate', NINE_FIVE),
    error('processing_total_extent', NINE_FIVE),
    error('processing_hours_total', NINE_FIVE),
  ]],
]);

ruleTable('check_user-defined', [
  ['passes valid integers and reals', { integer_1: '-12', integer_2: '0', real_1: '123456789.12345', real_2: '-.5', string_1: 'x' }, []],
  ['fails a decimal integer', { integer_1: '1.5' }, [error('integer_1', 'must be an integer')]],
  ['fails a real with six decimals', { real_2: '1.123456' }, [error('real_2', NINE_FIVE)]],
  ['reports integers before reals', { real_1: 'x', integer_3: 'y', integer_2: 'z' }, [
    error('integer_2', 'must be an integer'), error('integer_3', 'must be an integer'), error('real_1', NINE_FIVE),
  ]],
]);

describe('patterns use Ruby line anchors', () => {
  const check = customRules['check_user-defined'];
  it('accepts a value when any line matches', () => {
    assert.deepEqual(check({ integer_1: 'abc\n12', real_1: '1.5\nabc' }), []);
  });
  it('counts only "\\n" as a line break', () => {
    assert.deepEqual(check({ integer_1: '1\r2' }), [error('integer_1', 'must be an integer')]);
  });
  it('does not start a line after a final newline', () => {
    assert.deepEqual(check({ real_1: 'abc\n' }), [error('real_1', NINE_FIVE)]);
  });
});

ruleTable(['check_field_query', 'check_date_field_query'], [
  ['passes with a value', { field: 'title', value: 'x', comparator: 'contains' }, []],
  ['passes the empty comparator without a value', { field: 'title', comparator: 'empty' }, []],
  ['fails without a value', { field: 'title', comparator: 'contains' }, [error('value', "Must specify either a value or use the 'empty' comparator")]],
  ['fails without a value or comparator', { field: 'title' }, [error('value', "Must specify either a value or use the 'empty' comparator")]],
]);
