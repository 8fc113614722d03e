import assert from 'node:assert/strict';
import { importers } from '../../src/exchange/import';
import { ImportFailed, type ImportOutput } from '../../src/exchange/import/types';
import { STORE, TestApp } from '../helpers';
import { importFixture } from './import-fixture';

const quiet = (onProgress?: () => void): ImportOutput & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, log: (level, message) => lines.push(`${level}: ${message}`), progress: () => onProgress?.() };
};

type Field = [tag: string, ind1: string, ind2: string, subfields: Array<[string, string]>];
/** A MARC 21 authority record in MARCXML (the marc: prefix, as the Library of Congress serves them). */
const record = (leader: string, controls: Array<[string, string]>, fields: Field[]) => `<marc:record>
  <marc:leader>${leader}</marc:leader>
${controls.map(([tag, text]) => `  <marc:controlfield tag="${tag}">${text}</marc:controlfield>`).join('\n')}
${fields.map(([tag, i1, i2, subs]) => `  <marc:datafield tag="${tag}" ind1="${i1}" ind2="${i2}">${subs.map(([c, v]) => `<marc:subfield code="${c}">${v}</marc:subfield>`).join('')}</marc:datafield>`).join('\n')}
</marc:record>`;
const collection = (...records: string[]) => `<?xml version="1.0" encoding="UTF-8"?>\n<marc:collection xmlns:marc="http://www.loc.gov/MARC21/slim">\n${records.join('\n')}\n</marc:collection>\n`;

/** A personal name as the Library of Congress Name Authority File records one (facts of ArchivesSpace's spec fixture). */
const DAVIS = record('00841cz  a2200181n  4500', [['001', 'n88218900'], ['003', 'DLC'], ['005', '19890222071833.5'], ['008', '890119nnbacannaab           |a aaa      ']], [
  ['010', ' ', ' ', [['a', 'n  88218900 ']]],
  ['024', '7', ' ', [['a', '000000012276857X'], ['2', 'isni'], ['1', 'http://isni.org/isni/000000012276857X']]],
  ['024', '7', ' ', [['a', '14951645'], ['2', 'viaf']]],
  ['035', ' ', ' ', [['a', '(DLC)n  88218900']]],
  ['040', ' ', ' ', [['a', 'DLC'], ['b', 'eng'], ['c', 'DLC'], ['d', 'DLC'], ['d', 'NcD'], ['e', 'rda']]],
  ['046', ' ', ' ', [['f', '18730413'], ['g', '19550324']]],
  ['370', ' ', ' ', [['a', 'Clarksburg (W. Va.)'], ['b', 'Charleston (S.C.)'], ['2', 'naf']]],
  ['372', ' ', ' ', [['a', 'Law'], ['2', 'lcsh'], ['0', 'http://id.loc.gov/authorities/subjects/sh85075119']]],
  ['374', ' ', ' ', [['a', 'Lawyers'], ['2', 'lcsh']]],
  ['375', ' ', ' ', [['a', 'males'], ['2', 'lcdgt']]],
  ['377', ' ', ' ', [['a', 'eng']]],
  ['378', ' ', ' ', [['q', 'John William']]],
  ['100', '1', ' ', [['a', 'Davis, John W.'], ['q', '(John William),'], ['d', '1873-1955']]],
  ['400', '1', ' ', [['a', 'Davis, John William,'], ['d', '1873-1955']]],
  ['500', '1', ' ', [['w', 'a'], ['a', 'Davis, J. W.'], ['i', 'Earlier form of the name']]],
  ['670', ' ', ' ', [['a', 'Bio. dir. of the American Congress, 1774-1961'], ['b', 'p. 785 (Davis, John William; congressman from W. Va.)'], ['u', 'http://bioguide.congress.gov/']]],
  ['678', '0', ' ', [['a', 'Lawyer, congressman and diplomat.'], ['b', 'Democratic candidate for president, 1924.']]],
]);
const FAMILY = record('00500nz  a2200150n  4500', [['001', 'fam0001'], ['008', '120101n| azannaabn          |n aaa      ']], [
  ['040', ' ', ' ', [['a', 'NNU'], ['b', 'eng']]],
  ['100', '3', ' ', [['a', 'Roosevelt family'], ['c', '(N.Y.)'], ['d', '1649-']]],
  ['400', '3', ' ', [['a', 'Roosevelt (Family)']]],
  ['400', '1', ' ', [['a', 'Not, A person']]],
]);
const INSTITUTE = record('00600cz  a2200160n  4500', [['001', 'n79054069'], ['003', 'DLC'], ['008', '790501n| acannaab          |a aaa      ']], [
  ['010', ' ', ' ', [['a', 'n  79054069 ']]],
  ['040', ' ', ' ', [['a', 'DLC'], ['b', 'eng'], ['c', 'DLC']]],
  ['046', ' ', ' ', [['s', '1930-05-20']]],
  ['110', '2', ' ', [['a', 'Institute for Advanced Study (Princeton, N.J.)'], ['b', 'School of Mathematics'], ['b', 'Library']]],
  ['410', '2', ' ', [['a', 'Louis Bamberger and Mrs. Felix Fuld Foundation']]],
  ['411', '2', ' ', [['a', 'Symposium on Advanced Study'], ['e', 'Steering committee'], ['q', 'Princeton']]],
  ['510', '2', ' ', [['w', 'b'], ['a', 'Princeton University']]],
]);
const TITLE = record('00582nz  a2200205n  4500', [['001', 'no2006087900'], ['003', 'DLC']], [['130', ' ', '0', [['a', 'Cyberpunk']]]]);

describe(`MARC authority import (${STORE})`, function () {
  this.timeout(120_000);
  const fx = importFixture('AUTH', 'Authorities');
  let t: TestApp, repo: number, H: Record<string, string>;
  const admin = { username: 'admin' };
  const marc = importers.marcxml_auth_agent;
  const { write, count } = fx;

  before(async () => {
    ({ t, repo, H } = fx);
  });

  it('makes an agent of each name authority: names, identifiers, control, dates, sources, notes, related agents; subjects and events when asked', async () => {
    const out = quiet();
    const file = { ...write('names.xml', collection(DAVIS, FAMILY, INSTITUTE, TITLE)), options: { import_subjects: '1', import_events: '1' } };
    const report = await marc.run(t.services, repo, admin, file, out);
    assert.deepEqual(Object.fromEntries(Object.entries(report.counts).sort()), { agent_corporate_entity: 2, agent_family: 1, agent_person: 2, subject: 4 });
    assert.ok(out.lines.some((l) => /its heading is a 130, not a name .* skipped/.test(l)), out.lines.join('\n'));
    /** The agent of the type the file's record describes (not one its 5xx fields made). */
    const get = async (type: string) => (await Promise.all(report.created.filter((u) => u.includes(`/agents/${type}/`))
      .map(async (u) => (await t.http.get(u).set(H)).body))).find((a) => a.names.length > 1);

    const davis = await get('people');
    const [name, other] = davis.names;
    assert.deepEqual([name.primary_name, name.rest_of_name, name.name_order, name.fuller_form, name.dates, name.authorized], ['Davis', 'John W.', 'inverted', 'John William', '1873-1955', true]);
    assert.deepEqual([other.primary_name, other.rest_of_name, other.authorized], ['Davis', 'John William', false]);
    assert.deepEqual(davis.agent_record_identifiers.map((i: any) => [i.record_identifier, i.source, i.identifier_type ?? null, i.primary_identifier]), [
      ['n  88218900 ', 'naf', 'loc', true], ['000000012276857X', 'isni', 'local', false], ['14951645', 'viaf', 'local', false], ['(DLC)n  88218900', 'naf', 'loc', false],
    ], 'no 001: the 003 is DLC and there is an 010');
    const control = davis.agent_record_controls[0];
    assert.deepEqual([control.maintenance_status, control.maintenance_agency, control.language, control.romanization, control.level_of_detail, control.reference_evaluation],
      ['revised_corrected', 'DLC', 'eng', 'not_applicable', 'fully_established', 'tr_consistent']);
    assert.deepEqual(davis.agent_other_agency_codes.map((c: any) => c.maintenance_agency), ['NcD'], 'DLC is the maintenance agency');
    assert.equal(davis.agent_conventions_declarations[0].name_rule, 'rda');
    assert.deepEqual(davis.dates_of_existence[0].structured_date_range, { jsonmodel_type: 'structured_date_range', begin_date_expression: '18730413', begin_date_standardized: '1873-04-13', end_date_expression: '19550324', end_date_standardized: '1955-03-24' });
    assert.equal(davis.agent_genders[0].gender, 'males');
    assert.equal(davis.used_languages[0].language, 'eng');
    assert.deepEqual(davis.agent_sources.map((s: any) => s.file_uri ?? null), ['http://bioguide.congress.gov/']);
    assert.deepEqual(davis.notes[0].subnotes.map((s: any) => s.jsonmodel_type), ['note_abstract', 'note_text']);
    assert.equal(davis.notes[0].label, 'Biographical note');
    assert.deepEqual(davis.agent_maintenance_histories.map((m: any) => [m.event_date, m.maintenance_event_type, m.agent]), [['19890119', 'created', 'DLC']]);
    assert.equal(davis.agent_topics.length, 1);
    assert.equal(davis.agent_occupations.length, 1);
    assert.deepEqual(davis.agent_places.map((p: any) => p.place_role), ['place_of_birth', 'place_of_death']);
    const earlier = davis.related_agents[0];
    assert.deepEqual([earlier.jsonmodel_type, earlier.relator, earlier.description], ['agent_relationship_earlierlater', 'is_earlier_form_of', 'Earlier form of the name']);
    assert.equal((await t.http.get(earlier.ref).set(H)).body.names[0].primary_name, 'Davis');

    const family = await get('families');
    assert.deepEqual(family.names.map((n: any) => [n.family_name, n.qualifier ?? null, n.authorized]), [['Roosevelt family', 'N.Y.', true], ['Roosevelt (Family)', null, false]]);
    const institute = await get('corporate_entities');
    assert.deepEqual(institute.names.map((n: any) => [n.primary_name, n.subordinate_name_1 ?? null, n.subordinate_name_2 ?? null, n.conference_meeting]), [
      ['Institute for Advanced Study (Princeton, N.J.)', 'School of Mathematics', 'Library', false],
      ['Louis Bamberger and Mrs. Felix Fuld Foundation', null, null, false],
      ['Symposium on Advanced Study', 'Steering committee', 'Princeton', true],
    ]);
    assert.deepEqual(institute.dates_of_existence[0].structured_date_single, { jsonmodel_type: 'structured_date_single', date_role: 'begin', date_expression: '1930-05-20', date_standardized: '1930-05-20' });
    assert.equal(institute.related_agents[0].relator, 'is_later_form_of');

    const again = await marc.run(t.services, repo, admin, write('names-again.xml', collection(DAVIS)), quiet());
    assert.deepEqual(again.created, [], 'an agent with the same record identifier is not made twice');
  });

  it('without the options, no subjects and no maintenance history', async () => {
    const report = await marc.run(t.services, repo, admin, write('plain.xml', collection(DAVIS.replace(/n {2}88218900/g, 'n  00000001').replace(/Davis/g, 'Davies'))), quiet());
    assert.ok(report.created.length, JSON.stringify(report));
    const davis = (await t.http.get(report.created.find((u) => u.includes('/agents/people/'))!).set(H)).body;
    assert.deepEqual([davis.agent_topics.length, davis.agent_places.length, davis.agent_occupations.length, davis.agent_maintenance_histories.length], [0, 0, 0, 0]);
    assert.ok(!report.counts.subject);
  });

  it('fails a file with no name authority, or not MARC, or broken, writing nothing; cancel writes nothing; runs as a job', async () => {
    const before = await count();
    const cases: Array<[string, string, RegExp]> = [
      ['titles.xml', collection(TITLE), /titles\.xml: no record of the file is a name authority/],
      ['ead.xml', '<ead><archdesc/></ead>', /ead\.xml: not a MARCXML file/],
      ['broken.xml', collection(INSTITUTE).slice(0, 400), /broken\.xml: line \d+.*not well-formed XML/],
      ['empty-name.xml', collection(INSTITUTE.replace('Institute for Advanced Study (Princeton, N.J.)', '').replace('n  79054069 ', 'n  1 ')),
        /empty-name\.xml: collection\/record\[1\]: the agent_corporate_entity is not valid: names\/0\/primary_name/],
    ];
    for (const [name, text, message] of cases) {
      await assert.rejects(marc.run(t.services, repo, admin, write(name, text), quiet()), (err: Error) => {
        assert.ok(err instanceof ImportFailed, String(err));
        assert.match(err.message, message);
        return true;
      });
    }
    const controller = new AbortController();
    const fresh = (n: number) => INSTITUTE.replace(/n {2}79054069 /, `n  9${n} `).replace('Institute for', `Institute ${n} for`);
    await assert.rejects(marc.run(t.services, repo, admin, write('cancel.xml', collection(fresh(1), fresh(2), fresh(3))), { ...quiet(() => controller.abort()), signal: controller.signal }), /cancel\.xml: canceled/);
    assert.equal(await count(), before);

    const res = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'marcxml_auth_agent', import_subjects: '1', filenames: ['auth.xml'] } }))
      .attach('files[]', Buffer.from(collection(fresh(4))), 'auth.xml');
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle();
    const job = (await t.http.get(res.body.uri).set(H)).body;
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(job.job.import_subjects, '1', JSON.stringify(job));
    assert.match((await t.http.get(`${res.body.uri}/log`).set(H)).text, /auth\.xml: imported \(1 agent_corporate_entity\)/);

    const bad = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'marcxml_auth_agent', import_subjects: { yes: 1 }, filenames: ['a.xml'] } }))
      .attach('files[]', Buffer.from(collection(fresh(5))), 'a.xml');
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /import_subjects/);
  });
});
