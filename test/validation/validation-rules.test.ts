import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * The conditional rules of validation-rules.md, over HTTP: each case posts a record that breaks
 * one rule and expects exactly the reference's keys and messages; the fixed record then passes.
 */
interface Case {
  rule: string;
  type: string;
  bad: (repo: number) => Record<string, unknown>;
  errors: Record<string, string[]>;
  good?: (repo: number) => Record<string, unknown>;
}

const date = { date_type: 'single', label: 'creation' };

const CASES: Case[] = [
  {
    rule: 'archival object needs a title or a date',
    type: 'archival_object',
    bad: (r) => ({ level: 'file', resource: { ref: `/repositories/${r}/resources/1` } }),
    errors: { dates: ['one or more required (or enter a Title)'], title: ['must not be an empty string (or enter a Date)'] },
    good: (r) => ({ level: 'file', resource: { ref: `/repositories/${r}/resources/1` }, dates: [{ ...date, expression: '1900' }] }),
  },
  {
    rule: 'resource needs dates, extents and lang_materials',
    type: 'resource',
    bad: (r) => ({ ...sampleRecord('resource', r), dates: [], extents: [], lang_materials: [] }),
    errors: {
      dates: ['At least 1 item(s) is required'],
      extents: ['At least 1 item(s) is required'],
      lang_materials: ['At least 1 item(s) is required'],
      coded_errors: ['must_contain_at_least_one_language'],
    },
  },
  {
    rule: 'resource otherlevel needs other_level',
    type: 'resource',
    bad: (r) => ({ ...sampleRecord('resource', r), level: 'otherlevel' }),
    errors: { other_level: ['missing required property'] },
    good: (r) => ({ ...sampleRecord('resource', r), level: 'otherlevel', other_level: 'box group' }),
  },
  {
    rule: 'a date needs an expression or a begin',
    type: 'accession',
    bad: (r) => ({ ...sampleRecord('accession', r), dates: [date] }),
    errors: {
      'dates/0/expression': ['is required unless a begin or end date is given'],
      'dates/0/begin': ['is required unless an expression or an end date is given'],
      'dates/0/end': ['is required unless an expression or a begin date is given'],
    },
    good: (r) => ({ ...sampleRecord('accession', r), dates: [{ ...date, begin: '1900' }] }),
  },
  {
    rule: 'a date must not end before it begins',
    type: 'accession',
    bad: (r) => ({ ...sampleRecord('accession', r), dates: [{ ...date, date_type: 'inclusive', begin: '1990', end: '1980' }] }),
    errors: { 'dates/0/end': ['must not be before begin'] },
  },
  {
    rule: 'an event needs a date or a timestamp, not both',
    type: 'event',
    bad: (r) => ({ ...sampleRecord('event', r), date: undefined }),
    errors: { date: ['Must specify either a date or a timestamp'], timestamp: ['Must specify either a date or a timestamp'] },
  },
  {
    rule: 'container profile dimensions are numbers with two decimals',
    type: 'container_profile',
    bad: (r) => ({ ...sampleRecord('container_profile', r), depth: '1.234', stacking_limit: '-1' }),
    errors: { depth: ['must be a number with no more than 2 decimal places'], stacking_limit: ['must be a positive integer'] },
  },
  {
    rule: 'a sub container level 2 needs both type and indicator',
    type: 'accession',
    bad: (r) => ({
      ...sampleRecord('accession', r),
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: `/repositories/${r}/top_containers/1` }, type_2: 'folder' } }],
    }),
    errors: { 'instances/0/sub_container/type_2': ['container 2 requires both a type and indicator'] },
  },
  {
    rule: 'an instance of type digital_object needs a digital object',
    type: 'accession',
    bad: (r) => ({ ...sampleRecord('accession', r), instances: [{ instance_type: 'digital_object' }] }),
    errors: { 'instances/0/digital_object': ["Can't be empty"] },
  },
  {
    rule: 'copyright rights statements need status, jurisdiction and start date',
    type: 'accession',
    bad: (r) => ({ ...sampleRecord('accession', r), rights_statements: [{ rights_type: 'copyright' }] }),
    errors: {
      'rights_statements/0/status': ['missing required property'],
      'rights_statements/0/jurisdiction': ['missing required property'],
      'rights_statements/0/start_date': ['missing required property'],
    },
  },
  {
    rule: 'user defined integers must be integers',
    type: 'accession',
    bad: (r) => ({ ...sampleRecord('accession', r), user_defined: { integer_1: '1.5' } }),
    errors: { 'user_defined/integer_1': ['must be an integer'] },
  },
  {
    rule: 'a multipart note needs a subnote',
    type: 'resource',
    bad: (r) => ({ ...sampleRecord('resource', r), notes: [{ jsonmodel_type: 'note_multipart', type: 'scopecontent' }] }),
    errors: { 'notes/0/subnotes': ['Must contain at least one subnote'] },
  },
  {
    rule: 'a note type not allowed in that position is refused',
    type: 'resource',
    bad: (r) => ({ ...sampleRecord('resource', r), notes: [{ jsonmodel_type: 'note_bioghist', content: ['x'] }] }),
    errors: {
      'notes/0': ['Must be one of: JSONModel(:note_bibliography) object, JSONModel(:note_index) object, JSONModel(:note_multipart) object, JSONModel(:note_singlepart) object (you provided a Hash)'],
    },
  },
];

describe(`conditional validation rules over HTTP (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    repo = await createRepository(t, 'RULES');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo)).expect(200);
    await t.http.post(`/repositories/${repo}/top_containers`).set(H).send(sampleRecord('top_container', repo)).expect(200);
    await t.http.post('/agents/people').set(H).send(sampleRecord('agent_person', repo)).expect(200);
    await t.http.post(`/repositories/${repo}/accessions`).set(H).send(sampleRecord('accession', repo)).expect(200);
  });
  after(async () => t.close());

  for (const c of CASES) {
    it(c.rule, async () => {
      const path = t.services.registry.type(c.type).uri!.replace(':repo_id', String(repo));
      const bad = await t.http.post(path).set(H).send(c.bad(repo));
      assert.equal(bad.status, 400, bad.text);
      for (const [key, messages] of Object.entries(c.errors)) {
        assert.deepEqual(bad.body.error[key], messages, `${key} in ${JSON.stringify(bad.body.error)}`);
      }
      if (c.good) {
        const good = await t.http.post(path).set(H).send(c.good(repo));
        assert.equal(good.status, 200, good.text);
      }
    });
  }
});
