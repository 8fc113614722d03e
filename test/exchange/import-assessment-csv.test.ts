import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { importers } from '../../src/exchange/import';
import type { ImportOutput } from '../../src/exchange/import/types';
import { STORE, TestApp } from '../helpers';
import { importFixture } from './import-fixture';

const quiet = (onProgress?: () => void): ImportOutput & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, log: (level, message) => lines.push(`${level}: ${message}`), progress: () => onProgress?.() };
};

/** The two header rows of ArchivesSpace's assessment template (section, then field), as its columns run. */
const BASIC = ['record', 'record', 'accession_report', 'appraisal', 'container_list', 'finding_aid_ead', 'existing_description_notes', 'surveyed_by',
  'surveyed_by', 'survey_begin', 'survey_end', 'surveyed_duration', 'surveyed_extent', 'review_required', 'reviewer', 'review_note', 'purpose',
  'monetary_value', 'inactive', 'scope', 'sensitive_material', 'general_assessment_note'];
const RATINGS = ['Reformatting Readiness', 'Reformatting Readiness_note', 'Housing Quality', 'Housing Quality_note', 'Physical Access (arrangement)'];
const FORMATS = ['Audio Materials', 'Film (negative slide or motion picture)', 'Photographs', 'Technical Drawings & Schematics'];
const CONSERVATION = ['Brittle Paper', 'Water Damage'];
const SECTIONS = [...BASIC.map(() => 'basic'), ...RATINGS.map(() => 'rating'), ...FORMATS.map(() => 'format'), ...CONSERVATION.map(() => 'conservation')];
const FIELDS = [...BASIC, ...RATINGS, ...FORMATS, ...CONSERVATION];
const cell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const headers = (sections = SECTIONS, fields = FIELDS) => [sections.map(cell).join(','), fields.map(cell).join(',')];
const row = (values: string[]) => values.map(cell).join(',');

describe(`assessment CSV import (${STORE})`, function () {
  this.timeout(120_000);
  const fx = importFixture('ASSESS', 'Assessments');
  let t: TestApp, repo: number, H: Record<string, string>;
  let accession: string;
  let resource: string;
  const admin = { username: 'admin' };
  const csv = importers.assessment_csv;
  const { write, count } = fx;
  /** One data row: the records and surveyors given, the rest as ArchivesSpace's template sample row has them. */
  const sample = (records: [string, string], begin: string, end: string, user = 'admin') => row([
    ...records, 'Y', 'Y', 'Y', 'Y', 'Great doco!', user, '', begin, end, '3 weeks', '3000 linear feet', 'Y', user, 'Good job', 'Just because',
    '1000', 'N', '100%', 'N', 'Pretty good really',
    '3', '', '2', 'Swank', '5',
    'Y', 'Y', 'N', 'yes',
    'N', 'Y',
  ]);

  before(async () => {
    ({ t, repo, H } = fx);
    accession = (await t.http.post(`/repositories/${repo}/accessions`).set(H).send(sampleRecord('accession', repo)).expect(200)).body.uri;
    resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send(sampleRecord('resource', repo)).expect(200)).body.uri;
    await t.http.post('/users').query({ password: 'pw' }).set(H).send({ username: 'ginger', name: 'Ginger Rogers' }).expect(200);
  });

  it('imports each row as an assessment with its records, surveyors, reviewer, ratings, formats and conservation issues', async () => {
    const id = (uri: string) => uri.split('/').pop()!;
    const text = [...headers(),
      sample([`accession_${id(accession)}`, `resource/${id(resource)}`], '1/1/2000', '31/12/2005', 'ginger'),
      sample([`Accession ${id(accession)}`, ''], '2000-01-01', '2000-01-01'),
    ].join('\n');
    const out = quiet();
    const report = await csv.run(t.services, repo, admin, write('assessments.csv', text), out);
    assert.equal(report.counts.assessment, 2);
    assert.ok(out.lines.some((l) => /user 'ginger' has no agent record/.test(l)), out.lines.join('\n'));
    const [first, second] = await Promise.all(report.created.filter((u) => u.includes('/assessments/'))
      .map(async (u) => (await t.http.get(u).query({ 'resolve[]': ['surveyed_by'] }).set(H)).body));
    assert.deepEqual(first.records.map((r: any) => r.ref), [accession, resource]);
    assert.deepEqual([first.survey_begin, first.survey_end], ['2000-01-01', '2005-12-31']);
    assert.deepEqual([first.accession_report, first.appraisal, first.review_required, first.inactive, first.sensitive_material], [true, true, true, false, false]);
    assert.deepEqual([first.surveyed_duration, first.surveyed_extent, first.purpose, first.monetary_value, first.scope, first.review_note],
      ['3 weeks', '3000 linear feet', 'Just because', '1000', '100%', 'Good job']);
    assert.equal(first.surveyed_by.length, 1);
    assert.equal(first.surveyed_by[0]._resolved.names[0].primary_name, 'Ginger Rogers');
    assert.equal(first.reviewer[0].ref, first.surveyed_by[0].ref);
    const byId = (list: any[]) => list.map((a) => [a.definition_id, a.value ?? null, a.note ?? null]).sort((a, b) => a[0] - b[0]);
    assert.deepEqual(byId(first.ratings), [[1, '3', null], [2, '2', 'Swank'], [4, '5', null]]);
    assert.deepEqual(byId(first.formats), [[12, 'true', null], [16, 'true', null], [20, 'true', null]], 'Audio, Film (matched without its commas), Technical Drawings');
    assert.deepEqual(byId(first.conservation_issues), [[33, 'true', null]]);
    assert.deepEqual(second.records.map((r: any) => r.ref), [accession]);
    assert.notEqual(second.surveyed_by[0].ref, first.surveyed_by[0].ref, 'admin has an agent of their own');
  });

  it('fails a file whose header, record, user or date is wrong, naming the line and column, writing nothing', async () => {
    const id = accession.split('/').pop()!;
    const good = sample([`accession_${id}`, ''], '2001-01-01', '2001-02-01');
    const cases: Array<[string, string, RegExp]> = [
      ['rating.csv', [...headers([...SECTIONS, 'rating'], [...FIELDS, 'Smell']), good].join('\n'),
        /rating\.csv: line 2, column 34 \(rating Smell\): "Smell" is not a rating of this repository; its ratings are: Reformatting Readiness, .*Research Value/],
      ['record.csv', [...headers(), good, sample(['resource_999999', ''], '2001-01-01', '2001-01-01')].join('\n'),
        /record\.csv: line 4, column 1 \(basic record\): "resource_999999": this repository has no resource 999999/],
      ['type.csv', [...headers(), sample(['location_1', ''], '2001-01-01', '2001-01-01')].join('\n'),
        /type\.csv: line 3, column 1 \(basic record\): "location_1": a location cannot be assessed/],
      ['user.csv', [...headers(), sample([`accession_${id}`, ''], '2001-01-01', '2001-01-01', 'nobody')].join('\n'),
        /user\.csv: line 3, column 8 \(basic surveyed_by\): user 'nobody' does not exist/],
      ['date.csv', [...headers(), sample([`accession_${id}`, ''], '2/30/2001', '2001-01-01')].join('\n'),
        /date\.csv: line 3, column 10 \(basic survey_begin\): "2\/30\/2001" is not a date of the calendar/],
      ['one-header.csv', [headers()[1], good].join('\n'), /line 1: the first row names each column's section/],
      ['no-rows.csv', headers().join('\n'), /no assessment rows/],
    ];
    await fx.refusesEach(csv, cases);
  });

  it('stops when canceled, writing nothing, and runs as a job', async () => {
    const before = await count();
    const id = accession.split('/').pop()!;
    const controller = new AbortController();
    const text = [...headers(), ...[1, 2, 3].map(() => sample([`accession_${id}`, ''], '2001-01-01', '2001-01-01'))].join('\n');
    await assert.rejects(csv.run(t.services, repo, admin, write('cancel.csv', text), { ...quiet(() => controller.abort()), signal: controller.signal }), /cancel\.csv: canceled/);
    assert.equal(await count(), before);

    const res = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'assessment_csv', filenames: ['a.csv'] } }))
      .attach('files[]', Buffer.from(text), 'a.csv');
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle();
    assert.equal((await t.http.get(res.body.uri).set(H)).body.status, 'completed');
    assert.match((await t.http.get(`${res.body.uri}/log`).set(H)).text, /a\.csv: imported \(3 assessment\)/);
  });
});
