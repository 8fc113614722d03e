import assert from 'node:assert/strict';
import { importers } from '../../src/exchange/import';
import { ImportFailed, type ImportOutput } from '../../src/exchange/import/types';
import { STORE, TestApp } from '../helpers';
import { importFixture } from './import-fixture';

const quiet = (): ImportOutput & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, log: (level, message) => lines.push(`${level}: ${message}`), progress: () => undefined };
};

const HEADER = [
  'accession_title', 'accession_number_1', 'accession_number_2', 'accession_accession_date', 'accession_acquisition_type',
  'accession_resource_type', 'accession_content_description', 'accession_publish', 'accession_restrictions_apply',
  'accession_processing_status', 'accession_processors', 'user_defined_boolean_1', 'user_defined_string_1',
  'lang_material_language', 'date_1_label', 'date_1_expression', 'date_1_begin', 'date_1_end', 'date_1_type',
  'extent_type', 'extent_container_summary', 'extent_number', 'accession_acknowledgement_sent', 'accession_acknowledgement_sent_date',
  'agent_role', 'agent_type', 'agent_contact_city', 'agent_contact_telephone', 'agent_name_primary_name', 'agent_name_rest_of_name',
  'agent_name_authority_id', 'agent_name_description_note', 'subject_term', 'subject_term_type', 'subject_source',
];
const csvLine = (cells: Record<string, string>) => HEADER.map((h) => {
  const v = cells[h] ?? '';
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}).join(',');

describe(`accession CSV import (${STORE})`, function () {
  this.timeout(120_000);
  const fx = importFixture('CSV', 'Spreadsheets');
  let t: TestApp, repo: number, H: Record<string, string>;
  const admin = { username: 'admin' };
  const csv = importers.accession_csv;
  const { write, count } = fx;

  before(async () => {
    ({ t, repo, H } = fx);
  });

  it('imports each row as an accession with its dates, extents, agent, subject, events and management fields', async () => {
    const jane = {
      agent_role: 'source', agent_type: 'agent_person', agent_name_primary_name: 'Doe', agent_name_rest_of_name: 'Jane',
      agent_name_authority_id: 'http://id.example.org/jane', agent_contact_city: 'Springfield', agent_contact_telephone: '555-0100',
      agent_name_description_note: 'Teacher and diarist.', subject_term: 'Women -- Education', subject_term_type: 'topical', subject_source: 'local',
    };
    const text = [HEADER.join(','),
      csvLine({
        accession_title: 'Papers of Jane Doe', accession_number_1: '2024', accession_number_2: '001', accession_accession_date: '2024-03-15',
        accession_acquisition_type: 'gift', accession_resource_type: 'papers', accession_content_description: 'Diaries, letters',
        accession_publish: 'Yes', accession_restrictions_apply: '0', accession_processing_status: 'new', accession_processors: 'A. Archivist',
        user_defined_boolean_1: 'TRUE', user_defined_string_1: 'shelf 4', lang_material_language: 'eng',
        date_1_label: 'creation', date_1_expression: '1950-1970', date_1_begin: '1950', date_1_end: '1970', date_1_type: 'inclusive',
        extent_type: 'linear_feet', extent_container_summary: '3 boxes', extent_number: '2.5',
        accession_acknowledgement_sent: '1', accession_acknowledgement_sent_date: '2024-03-20', ...jane,
      }),
      csvLine({
        accession_title: 'More papers of Jane Doe', accession_number_1: '2024', accession_number_2: '002', accession_accession_date: '3/5/2024',
        accession_content_description: 'Letters, "mostly" personal,\nand two notebooks', extent_type: 'cubic_feet', extent_number: '1', ...jane,
      }),
      csvLine({
        accession_title: 'Records of the Garden Club', accession_number_1: '2024', accession_number_2: '003', accession_accession_date: '2024-04-01',
        accession_acquisition_type: 'bequest', date_1_expression: 'undated', agent_role: 'creator', agent_type: 'agent_corporate_entity',
        agent_name_primary_name: 'Springfield Garden Club',
      }),
    ].join('\r\n') + '\r\n';
    const out = quiet();
    const report = await csv.run(t.services, repo, admin, write('accessions.csv', text), out);
    assert.deepEqual(
      Object.fromEntries(Object.entries(report.counts).sort()),
      { accession: 3, agent_corporate_entity: 1, agent_person: 1, agent_software: 1, event: 1, subject: 1 },
    );
    assert.ok(out.lines.some((l) => /3\/5\/2024 read as month\/day\/year: 2024-03-05/.test(l)), out.lines.join('\n'));
    assert.ok(out.lines.some((l) => /accession_acquisition_type: bequest/.test(l)), 'the new value is logged as added');

    const uris = report.created.filter((u) => u.includes('/accessions/'));
    const [first, second, third] = await Promise.all(uris.map(async (u) => (await t.http.get(u).query({ 'resolve[]': ['linked_agents', 'subjects'] }).set(H)).body));
    assert.equal(first.title, 'Papers of Jane Doe');
    assert.deepEqual([first.id_0, first.id_1], ['2024', '001']);
    assert.equal(first.accession_date, '2024-03-15');
    assert.equal(first.acquisition_type, 'gift');
    assert.equal(first.publish, true);
    assert.equal(first.restrictions_apply, false);
    assert.equal(first.collection_management.processing_status, 'new');
    assert.equal(first.collection_management.processors, 'A. Archivist');
    assert.equal(first.user_defined.boolean_1, true);
    assert.equal(first.user_defined.string_1, 'shelf 4');
    assert.equal(first.lang_materials[0].language_and_script.language, 'eng');
    assert.deepEqual(first.dates.map((d: any) => [d.label, d.date_type, d.expression, d.begin, d.end]), [['creation', 'inclusive', '1950-1970', '1950', '1970']]);
    assert.deepEqual(first.extents.map((e: any) => [e.portion, e.number, e.extent_type, e.container_summary]), [['whole', '2.5', 'linear_feet', '3 boxes']]);
    assert.equal(first.linked_agents[0].role, 'source');
    const agent = first.linked_agents[0]._resolved;
    assert.equal(agent.names[0].primary_name, 'Doe');
    assert.equal(agent.names[0].rest_of_name, 'Jane');
    assert.equal(agent.names[0].authority_id, 'http://id.example.org/jane');
    assert.equal(agent.agent_contacts[0].city, 'Springfield');
    assert.equal(agent.agent_contacts[0].telephones[0].number, '555-0100');
    assert.equal(agent.notes[0].subnotes[0].content, 'Teacher and diarist.');
    assert.equal(first.subjects[0]._resolved.title, 'Women -- Education');
    assert.equal(second.linked_agents[0].ref, first.linked_agents[0].ref, 'the same agent, matched by authority id');
    assert.equal(second.subjects[0].ref, first.subjects[0].ref, 'the same subject');
    assert.equal(second.accession_date, '2024-03-05');
    assert.equal(second.content_description, 'Letters, "mostly" personal,\nand two notebooks');
    assert.equal(third.acquisition_type, 'bequest');
    assert.equal(third.linked_agents[0]._resolved.names[0].primary_name, 'Springfield Garden Club');
    assert.deepEqual(third.dates.map((d: any) => [d.label, d.date_type, d.expression]), [['other', 'inclusive', 'undated']]);

    const eventUri = report.created.find((u) => u.includes('/events/'))!;
    const event = (await t.http.get(eventUri).set(H)).body;
    assert.equal(event.event_type, 'acknowledgement_sent');
    assert.equal(event.date.expression, '2024-03-20');
    assert.deepEqual(event.linked_records, [{ role: 'source', ref: first.uri }]);
  });

  it('fails the whole file on a bad row, writing nothing, naming the line and the column', async () => {
    const before = await count();
    const good = csvLine({ accession_title: 'Fine', accession_number_1: 'B', accession_number_2: '1', accession_accession_date: '2024-01-01' });
    const cases: Array<[string, string, RegExp]> = [
      ['bad-date-type.csv', csvLine({ accession_title: 'Odd', accession_number_1: 'B', accession_number_2: '2', date_1_expression: 'once', date_1_type: 'sometime' }),
        /bad-date-type\.csv: line 3, column date_1_type: "sometime" is not one of bulk, inclusive, range, single/],
      ['bad-agent.csv', csvLine({ accession_title: 'Odd', accession_number_1: 'B', accession_number_2: '3', agent_type: 'agent_robot', agent_name_primary_name: 'R2' }),
        /bad-agent\.csv: line 3, column agent_type/],
      ['duplicate.csv', csvLine({ accession_title: 'Again', accession_number_1: 'B', accession_number_2: '1' }),
        /duplicate\.csv: line 3: the accession is not valid: id_0 \(column accession_number_1\)/],
      ['no-number.csv', csvLine({ accession_title: 'Nameless' }), /no-number\.csv: line 3: the accession is not valid: id_0 \(column accession_number_1\)/],
    ];
    for (const [name, bad, message] of cases) {
      const text = [HEADER.join(','), good, bad, csvLine({ accession_title: 'Later', accession_number_1: 'B', accession_number_2: '9' })].join('\n');
      await assert.rejects(csv.run(t.services, repo, admin, write(name, text), quiet()), (err: Error) => {
        assert.ok(err instanceof ImportFailed, String(err));
        assert.match(err.message, message);
        return true;
      });
    }
    assert.equal(await count(), before, 'nothing of any failed file is in the store');
  });

  it('refuses what is not an accession CSV, with a message that says so', async () => {
    const before = await count();
    const cases: Array<[string, string | Buffer, RegExp]> = [
      ['finding-aid.csv', '<ead><archdesc level="collection"></archdesc></ead>\n', /no column of ArchivesSpace's accession template/],
      ['binary.csv', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x00]), /not a CSV file/],
      ['empty.csv', '', /the file is empty/],
      ['header-only.csv', `${HEADER.join(',')}\n`, /no accession rows/],
      ['unclosed.csv', `${HEADER.join(',')}\nTitle,A,"never closed\n`, /line 2: a quoted field is not closed/],
    ];
    for (const [name, text, message] of cases) {
      await assert.rejects(csv.run(t.services, repo, admin, write(name, text), quiet()), (err: Error) => err instanceof ImportFailed && message.test(err.message));
    }
    assert.equal(await count(), before);
  });

  it('runs as a background job from jobs_with_files', async () => {
    const text = `accession_title,accession_number_1,accession_accession_date\nJob accession,J-1,2024-05-01\n`;
    const res = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'accession_csv', filenames: ['new.csv'] } }))
      .attach('files[]', Buffer.from(text), 'new.csv');
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle();
    const job = (await t.http.get(res.body.uri).set(H)).body;
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const listed = await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1, page_size: 250 }).set(H);
    assert.deepEqual(listed.body.results.filter((a: any) => a.id_0 === 'J-1').map((a: any) => a.title), ['Job accession']);
    assert.match((await t.http.get(`${res.body.uri}/log`).set(H)).text, /new\.csv: imported \(1 accession\)/);
  });
});
