import assert from 'node:assert/strict';
import { importers } from '../../src/exchange/import';
import type { ImportOutput } from '../../src/exchange/import/types';
import { STORE, TestApp } from '../helpers';
import { importFixture } from './import-fixture';

const quiet = (onProgress?: () => void): ImportOutput & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, log: (level, message) => lines.push(`${level}: ${message}`), progress: () => onProgress?.() };
};

/** Columns of ArchivesSpace's digital object template (frontend/public/bulk_import_templates), in its order. */
const HEADER = [
  'digital_object_id', 'digital_object_language', 'digital_object_script', 'digital_object_level', 'digital_object_publish', 'digital_object_type',
  'digital_object_restrictions', 'digital_object_title', 'digital_object_is_component', 'digital_object_component_id', 'agent_role', 'agent_type',
  'agent_contact_city', 'agent_contact_email', 'agent_name_authority_id', 'agent_name_description_note', 'agent_name_description_type',
  'agent_name_name_order', 'agent_name_primary_name', 'agent_name_rest_of_name', 'agent_name_source', 'digital_object_acknowledgement_sent',
  'digital_object_acknowledgement_sent_date', 'digital_object_processing_estimate', 'digital_object_processing_priority',
  'digital_object_processing_started_date', 'digital_object_processors', 'user_defined_boolean_1', 'user_defined_integer_1', 'user_defined_real_1',
  'user_defined_string_1', 'date_1_begin', 'date_1_end', 'date_1_expression', 'date_1_type', 'date_1_label', 'date_2_expression',
  'extent_container_summary', 'extent_number', 'extent_physical_details', 'extent_type', 'subject_source', 'subject_term', 'subject_term_type',
  'file_version_file_uri_1', 'file_version_publish_1', 'file_version_use_statement_1', 'file_version_xlink_actuate_attribute_1',
  'file_version_xlink_show_attribute_1', 'file_version_file_format_name_1', 'file_version_file_format_version_1', 'file_version_file_size_bytes_1',
  'file_version_checksum_1', 'file_version_checksum_method_1', 'file_version_is_representative_1', 'file_version_caption_1',
  'file_version_file_uri_2', 'file_version_publish_2', 'file_version_caption_2',
];
const line = (cells: Record<string, string>, header = HEADER) => header.map((h) => {
  const v = cells[h] ?? '';
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}).join(',');

describe(`digital object CSV import (${STORE})`, function () {
  this.timeout(120_000);
  const fx = importFixture('DOCSV', 'Digital');
  let t: TestApp, repo: number, H: Record<string, string>;
  const admin = { username: 'admin' };
  const csv = importers.digital_object_csv;
  const { write, count } = fx;

  before(async () => {
    ({ t, repo, H } = fx);
  });

  it('imports objects with their file versions, agent, subject, dates, extent and events, and components under them', async () => {
    const text = '\ufeff' + [HEADER.join(','),
      line({
        digital_object_id: 'do001', digital_object_language: 'eng', digital_object_script: 'Latn', digital_object_level: 'image',
        digital_object_publish: 'TRUE', digital_object_type: 'cartographic', digital_object_restrictions: 'none',
        digital_object_title: 'Map of the campus, 1927', digital_object_is_component: 'FALSE', agent_role: 'creator', agent_type: 'agent_person',
        agent_contact_city: 'London', agent_contact_email: 'agent@example.com', agent_name_authority_id: 'http://id.loc.gov/authorities/names/n79058371',
        agent_name_description_note: 'Surveyor of the college grounds.', agent_name_description_type: 'fake', agent_name_name_order: 'inverted',
        agent_name_primary_name: 'Orwell', agent_name_rest_of_name: 'George', agent_name_source: 'lcnaf',
        digital_object_acknowledgement_sent: 'TRUE', digital_object_acknowledgement_sent_date: '4/11/1978',
        digital_object_processing_estimate: '10', digital_object_processing_priority: 'high', digital_object_processing_started_date: '2010-01-01',
        digital_object_processors: 'A. Processor', user_defined_boolean_1: 'Y', user_defined_integer_1: '7', user_defined_real_1: '2.5', user_defined_string_1: 'udr1',
        date_1_begin: '1927', date_1_expression: '1927', date_1_type: 'single', date_1_label: 'creation', date_2_expression: 'Reagan Years',
        extent_container_summary: 'one sheet', extent_number: '1', extent_physical_details: 'hand-coloured', extent_type: 'reels',
        subject_source: 'local', subject_term: 'Campus planning', subject_term_type: 'topical',
        file_version_file_uri_1: 'http://aspace.me/map.jpg', file_version_publish_1: 'TRUE', file_version_use_statement_1: 'image-service',
        file_version_xlink_actuate_attribute_1: 'onRequest', file_version_xlink_show_attribute_1: 'embed', file_version_file_format_name_1: 'jpeg',
        file_version_file_format_version_1: '1', file_version_file_size_bytes_1: '100', file_version_checksum_1: 'xxxxxxx',
        file_version_checksum_method_1: 'md5', file_version_is_representative_1: 'FALSE', file_version_caption_1: '  Front  ',
        file_version_file_uri_2: 'NULL', file_version_caption_2: 'never',
      }),
      line({ digital_object_id: 'do001', digital_object_is_component: 'TRUE', digital_object_component_id: 'do001-a', digital_object_title: 'Detail of the quad',
        file_version_file_uri_1: 'http://aspace.me/map-detail.jpg', file_version_publish_1: 'yes', file_version_caption_1: 'NULL',
        file_version_file_uri_2: 'http://aspace.me/map-detail.tif', file_version_publish_2: '0', file_version_caption_2: 'Master' }),
      line({ digital_object_id: 'do002', digital_object_title: 'Oral history with Ann Lee', digital_object_type: 'sound_recording',
        date_1_expression: 'undated', file_version_file_uri_1: '' }),
    ].join('\r\n') + '\r\n';
    const out = quiet();
    const report = await csv.run(t.services, repo, admin, write('objects.csv', text), out);
    assert.deepEqual(Object.fromEntries(Object.entries(report.counts).sort()),
      { agent_person: 1, agent_software: 1, digital_object: 2, digital_object_component: 1, event: 1, subject: 1 });
    assert.ok(out.lines.some((l) => /name_source: lcnaf/.test(l)), `the new value is logged as added: ${out.lines.join('\n')}`);
    assert.ok(!out.lines.some((l) => /not in the digital_object template/.test(l)), out.lines.join('\n'));

    const [first, second] = await Promise.all(report.created.filter((u) => /\/digital_objects\//.test(u))
      .map(async (u) => (await t.http.get(u).query({ 'resolve[]': ['linked_agents', 'subjects'] }).set(H)).body));
    assert.equal(first.title, 'Map of the campus, 1927');
    assert.deepEqual([first.digital_object_id, first.level, first.digital_object_type, first.publish, first.restrictions], ['do001', 'image', 'cartographic', true, false]);
    assert.deepEqual(first.lang_materials[0].language_and_script, { jsonmodel_type: 'language_and_script', language: 'eng', script: 'Latn' });
    assert.deepEqual(first.dates.map((d: any) => [d.label, d.date_type, d.expression, d.begin ?? null]), [['creation', 'single', '1927', '1927'], ['other', 'single', 'Reagan Years', null]]);
    assert.deepEqual(first.extents.map((e: any) => [e.portion, e.number, e.extent_type, e.physical_details]), [['whole', '1', 'reels', 'hand-coloured']]);
    assert.equal(first.collection_management.processing_hours_per_foot_estimate, '10');
    assert.equal(first.collection_management.processors, 'A. Processor');
    assert.deepEqual([first.user_defined.boolean_1, first.user_defined.integer_1, first.user_defined.real_1, first.user_defined.string_1], [true, '7', '2.50', 'udr1']);
    assert.equal(first.file_versions.length, 1, 'the NULL group is skipped');
    const fv = first.file_versions[0];
    assert.deepEqual([fv.file_uri, fv.publish, fv.use_statement, fv.xlink_actuate_attribute, fv.xlink_show_attribute, fv.file_format_name, fv.file_format_version, fv.file_size_bytes, fv.checksum, fv.checksum_method, fv.is_representative, fv.caption],
      ['http://aspace.me/map.jpg', true, 'image-service', 'onRequest', 'embed', 'jpeg', '1', 100, 'xxxxxxx', 'md5', false, 'Front']);
    const agent = first.linked_agents[0];
    assert.equal(agent.role, 'creator');
    assert.deepEqual([agent._resolved.names[0].primary_name, agent._resolved.names[0].rest_of_name, agent._resolved.names[0].source], ['Orwell', 'George', 'lcnaf']);
    assert.equal(agent._resolved.agent_contacts[0].city, 'London');
    assert.equal(agent._resolved.notes[0].subnotes[0].content, 'Surveyor of the college grounds.');
    assert.equal(first.subjects[0]._resolved.title, 'Campus planning');
    assert.equal(second.digital_object_type, 'sound_recording');
    assert.equal(second.file_versions.length, 0);

    const component = (await t.http.get(report.created.find((u) => u.includes('/digital_object_components/'))!).set(H)).body;
    assert.equal(component.digital_object.ref, first.uri);
    assert.equal(component.component_id, 'do001-a');
    assert.equal(component.title, 'Detail of the quad');
    assert.deepEqual(component.file_versions.map((f: any) => [f.file_uri, f.publish, f.caption ?? null]),
      [['http://aspace.me/map-detail.jpg', true, null], ['http://aspace.me/map-detail.tif', false, 'Master']]);

    const event = (await t.http.get(report.created.find((u) => u.includes('/events/'))!).set(H)).body;
    assert.equal(event.event_type, 'acknowledgement_sent');
    assert.equal(event.date.expression, '1978-04-11');
    assert.deepEqual(event.linked_records, [{ role: 'source', ref: first.uri }]);
  });

  it('fails a file with a bad row or header, naming the line and column and the fix, writing nothing', async () => {
    const ok = line({ digital_object_id: 'ok-1', digital_object_title: 'Fine' });
    const cases: Array<[string, string, RegExp]> = [
      ['orphan.csv', [HEADER.join(','), ok, line({ digital_object_id: 'nowhere', digital_object_is_component: 'yes', digital_object_title: 'Lost' })].join('\n'),
        /orphan\.csv: line 3, column digital_object_id: no digital object nowhere above this row or in the repository; put its row before its components/],
      ['no-id.csv', [HEADER.join(','), ok, line({ digital_object_title: 'No identifier' })].join('\n'),
        /no-id\.csv: line 3: the digital_object is not valid: digital_object_id \(column digital_object_id\)/],
      ['size.csv', [HEADER.join(','), ok, line({ digital_object_id: 'x', digital_object_title: 'X', file_version_file_uri_1: 'http://x', file_version_file_size_bytes_1: 'big' })].join('\n'),
        /size\.csv: line 3, column file_version_file_size_bytes_1: "big" is not a whole number/],
      ['twice.csv', ['digital_object_id,digital_object_title,file_version_file_uri_1,file_version_file_uri_1', 'a,A,http://a,http://b'].join('\n'),
        /twice\.csv: line 1: the header names file_version_file_uri_1 more than once/],
      ['accessions.csv', 'accession_title,accession_number_1\nA,1\n', /no column of ArchivesSpace's digital_object template/],
    ];
    await fx.refusesEach(csv, cases);
  });

  it('stops when canceled, writing nothing; as a job, reports the failure reason in the log', async () => {
    const before = await count();
    const controller = new AbortController();
    const text = [HEADER.join(','), ...[1, 2, 3].map((n) => line({ digital_object_id: `c-${n}`, digital_object_title: `Canceled ${n}` }))].join('\n');
    const run = csv.run(t.services, repo, admin, { ...write('cancel.csv', text) }, { ...quiet(() => controller.abort()), signal: controller.signal });
    await assert.rejects(run, /cancel\.csv: canceled/);
    assert.equal(await count(), before);

    const bad = [HEADER.join(','), line({ digital_object_id: 'j-1', digital_object_title: 'Job 1' }), line({ digital_object_id: 'j-1', digital_object_title: 'Job 1 again' })].join('\n');
    const res = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'digital_object_csv', filenames: ['dup.csv'] } }))
      .attach('files[]', Buffer.from(bad), 'dup.csv');
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle();
    assert.equal((await t.http.get(res.body.uri).set(H)).body.status, 'failed');
    assert.match((await t.http.get(`${res.body.uri}/log`).set(H)).text, /dup\.csv: line 3: the digital_object is not valid: digital_object_id.*nothing of this file was written/);
    assert.equal(await count(), before);
  });
});
