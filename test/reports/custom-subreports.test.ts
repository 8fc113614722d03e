import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { post } from '../exchange/formats-fixture';
import { parseCsv, reportFile, runAfterTemplateEdit } from './report-helpers';

type Row = Record<string, any>;

/** The custom report's sub-reports of linked records: over records linked over HTTP, each family's rows and columns. */
describe(`custom report sub-reports of linked records (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let token: string;
  let base: string;
  const u: Record<string, string> = {};

  const p = async (path: string, body: unknown) => post(t, token, path, body);
  async function template(data: object, extra: object = {}): Promise<number> {
    return (await p(`${base}/custom_report_templates`, { name: `T ${Math.random()}`, data: JSON.stringify(data), limit: 1000, ...extra })).id;
  }
  const report = async (data: object, format = 'json') => reportFile(t, H, base, 'custom_report', format, { template: await template(data) });
  const rows = async (data: object): Promise<Row[]> => JSON.parse((await report(data)).text).records;
  const on = (...names: string[]) => Object.fromEntries(names.map((n) => [n, { include: '1' }]));

  before(async () => {
    t = await startTestApp();
    token = await t.adminToken();
    H = { 'X-ArchivesSpace-Session': token };
    base = `/repositories/${(await p('/repositories', { repo_code: 'CSUB', name: 'Custom Subreports' })).id}`;
    const other = `/repositories/${(await p('/repositories', { repo_code: 'CSUB2', name: 'Elsewhere' })).id}`;
    u.subject = (await p('/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Linked things', term_type: 'topical', vocabulary: '/vocabularies/1' }] })).uri;
    u.kin = (await p('/agents/people', { names: [{ primary_name: 'Kin', rest_of_name: 'Kim', name_order: 'inverted', sort_name: 'Kin, Kim', source: 'local' }] })).uri;
    u.person = (await p('/agents/people', {
      names: [{ primary_name: 'Linker', rest_of_name: 'Lee', name_order: 'inverted', sort_name: 'Linker, Lee', source: 'local' }],
      related_agents: [{ jsonmodel_type: 'agent_relationship_parentchild', relator: 'is_child_of', ref: u.kin, description: 'Daughter' }],
    })).uri;
    u.classification = (await p(`${base}/classifications`, { identifier: 'CL', title: 'Classes', description: 'All of them', creator: { ref: u.person } })).uri;
    u.term = (await p(`${base}/classification_terms`, { identifier: 'T1', title: 'First term', classification: { ref: u.classification } })).uri;
    u.subterm = (await p(`${base}/classification_terms`, { identifier: 'T2', title: 'Below', classification: { ref: u.classification }, parent: { ref: u.term } })).uri;
    const profile = (await p('/location_profiles', { name: 'Shelf CSUB', dimension_units: 'inches', height: '12', width: '30', depth: '10' })).uri;
    const location = (await p('/locations', {
      building: 'CSUB building', room: '2', coordinate_1_label: 'Shelf', coordinate_1_indicator: '1', owner_repo: { ref: base }, location_profile: { ref: profile },
      functions: [{ location_function_type: 'av_materials' }],
    })).uri;
    const box = (await p(`${base}/top_containers`, { type: 'box', indicator: '7', container_locations: [{ ref: location, status: 'current', start_date: '2020-01-01' }] })).uri;
    await p(`${base}/groups`, { group_code: 'csub-readers', description: 'CSUB readers', member_usernames: ['admin'] });
    const inBox = (extra: object = {}) => ({ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box }, ...extra } });
    const linked = { subjects: [{ ref: u.subject }], linked_agents: [{ ref: u.person, role: 'source', relator: 'dnr' }] };
    u.accession = (await p(`${base}/accessions`, {
      id_0: 'L', id_1: '1', title: 'Linked one', accession_date: '2020-01-01', ...linked, classifications: [{ ref: u.classification }],
      rights_statements: [{ rights_type: 'copyright', status: 'copyrighted', jurisdiction: 'US', start_date: '2020-01-01', linked_agents: [{ ref: u.person, role: 'rights_holder' }] }],
    })).uri;
    u.part = (await p(`${base}/accessions`, {
      id_0: 'L', id_1: '2', title: 'A part', accession_date: '2020-01-02', instances: [inBox()],
      related_accessions: [{ jsonmodel_type: 'accession_parts_relationship', relator: 'forms_part_of', relator_type: 'part', ref: u.accession }],
    })).uri;
    u.resource = (await p(`${base}/resources`, {
      id_0: 'R', id_1: '9', title: 'Linked papers', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'single', label: 'creation', begin: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }],
      related_accessions: [{ ref: u.accession }], classifications: [{ ref: u.subterm }], ...linked,
    })).uri;
    u.ao = (await p(`${base}/archival_objects`, { title: 'Linked folder', component_id: 'F-1', level: 'file', resource: { ref: u.resource }, instances: [inBox({ type_2: 'folder', indicator_2: '3' })], ...linked })).uri;
    u.do = (await p(`${base}/digital_objects`, { digital_object_id: 'DO-L', title: 'Linked scans', file_versions: [{ file_uri: 'http://example.org/do.tif' }], ...linked })).uri;
    u.doc = (await p(`${base}/digital_object_components`, {
      component_id: 'P1', title: 'Linked page', digital_object: { ref: u.do }, file_versions: [{ file_uri: 'http://example.org/p1.tif' }], ...linked,
    })).uri;
    // A record of another repository linking the same subject is not this repository's report's.
    await p(`${other}/accessions`, { id_0: 'X', title: 'Elsewhere', accession_date: '2020-01-01', subjects: [{ ref: u.subject }] });
    u.event = (await p(`${base}/events`, {
      event_type: 'accession', date: { date_type: 'single', label: 'event', begin: '2024-05-01' },
      linked_agents: [{ role: 'implementer', ref: u.person }], linked_records: [{ role: 'source', ref: u.accession }, { role: 'outcome', ref: u.ao }],
    })).uri;
    u.assessment = (await p(`${base}/assessments`, {
      records: [{ ref: u.accession }, { ref: u.resource }, { ref: u.do }], surveyed_by: [{ ref: u.person }], reviewer: [{ ref: u.kin }], survey_begin: '2021-02-01',
      purpose: 'Linked check', appraisal: true, monetary_value: '12.5',
      ratings: [{ definition_id: 1, value: '3', note: 'Ready' }], formats: [{ definition_id: 9, value: 'true' }], conservation_issues: [{ definition_id: 25, value: 'true' }],
    })).uri;
  });
  after(() => t?.close());

  it('GET /reports/custom_data lists the linked-record sub-reports per record type', async () => {
    const data = (await t.http.get('/reports/custom_data').expect(200)).body;
    const names = (type: string) => data[type].subreports.map((s: { name: string; code: string }) => `${s.name}:${s.code}`);
    for (const code of ['accession:linked_accession_subreport', 'resource:linked_resource_subreport', 'archival_object:linked_archival_object_subreport',
      'digital_object:linked_digital_object_subreport', 'digital_object_component:linked_digital_object_component_subreport']) {
      assert.ok(names('subject').includes(code), `${code} in ${names('subject').join(' ')}`);
      assert.ok(names('agent').includes(code) && names('event').includes(code), code);
    }
    assert.ok(names('accession').includes('classification:classification_subreport') && names('accession').includes('assessment:assessment_subreport'));
    assert.ok(names('accession').includes('interrelated_accession:accession_linked_accessions_subreport'));
    assert.deepEqual(names('classification'), ['creator:classification_creator_subreport', 'classification_term:classification_term_subreport',
      'accession:linked_accession_subreport', 'resource:linked_resource_subreport']);
    assert.ok(names('agent').includes('rights_statement:agent_rights_statement_subreport') && names('agent').includes('related_agent:agent_related_agent_subreport'));
    for (const n of ['ratings', 'formats', 'conservation_issues', 'surveyed_by', 'reviewer']) assert.ok(data.assessment.subreports.some((s: { name: string }) => s.name === n), n);
    assert.deepEqual(data.location.subreports.map((s: { name: string }) => s.name), ['location_function', 'owner_repo', 'location_profile', 'accession', 'resource']);
    assert.deepEqual(data.user.subreports, [{ name: 'groups', code: 'user_groups_subreport' }]);
    assert.ok(names('digital_object').includes('file_version:digital_object_file_versions_list_subreport'));
    for (const type of ['accession', 'resource', 'archival_object']) assert.ok(data[type].subreports.some((s: { name: string }) => s.name === 'instance'), type);
    assert.ok(!names('accession').includes('accession:linked_accession_subreport'), 'an accession has no linked accessions sub-report');
  });

  it("a subject's linked accessions, resources, components, digital objects and their components, of this repository", async () => {
    const out = await rows({
      custom_record_type: 'subject', fields: { title: { include: '1', values: ['Linked things'] } },
      subreports: on('accession', 'resource', 'archival_object', 'digital_object', 'digital_object_component'),
    });
    assert.equal(out.length, 1);
    const [s] = out;
    assert.deepEqual(Object.keys(s), ['terms', 'accession', 'archival_object', 'digital_object', 'digital_object_component', 'resource']);
    assert.deepEqual(s.accession, [{ identifier: 'L.1', title: 'Linked one' }]);
    assert.deepEqual(s.resource, [{ identifier: 'R.9', title: 'Linked papers' }]);
    assert.equal(s.archival_object.length, 1);
    const [ao] = s.archival_object;
    assert.deepEqual({ ...ao, ref_id: undefined }, { component_id: 'F-1', title: 'Linked folder', ref_id: undefined, level: 'File', root_record: 'R.9' });
    assert.match(ao.ref_id, /\S/);
    assert.deepEqual(s.digital_object, [{ digital_object_id: 'DO-L', title: 'Linked scans' }]);
    assert.deepEqual(s.digital_object_component, [{ component_id: 'P1', title: 'Linked page', root_record: 'DO-L' }]);
    const csv = parseCsv((await report({ custom_record_type: 'subject', fields: { title: { include: '1', values: ['Linked things'] } }, subreports: on('accession') }, 'csv')).text);
    assert.deepEqual(csv.find((r) => r[0] === 'terms'), ['terms', 'accession_identifier', 'accession_title']);
    assert.ok(csv.some((r) => r[0] === 'Linked things' && r[1] === 'L.1' && r[2] === 'Linked one'), JSON.stringify(csv));
  });

  it("an agent's and an event's linked records carry the link's role (and an agent's relator); an agent's relations and rights statements", async () => {
    const agents = await rows({ custom_record_type: 'agent', fields: { name: { include: '1' } }, subreports: on('accession', 'archival_object', 'resource', 'related_agent', 'rights_statement') });
    const lee = agents.find((r) => r.name === 'Linker, Lee')!;
    assert.deepEqual(lee.accession, [{ identifier: 'L.1', title: 'Linked one', role: 'Source', relator: 'Donor' }]);
    assert.deepEqual(lee.resource, [{ identifier: 'R.9', title: 'Linked papers', role: 'Source', relator: 'Donor' }]);
    assert.equal(lee.archival_object[0].root_record, 'R.9');
    assert.deepEqual(lee.related_agent, [{ _agents: 'Linker, Lee; Kin, Kim', relationship_type: 'Parent/Child Relationship', description: 'Daughter' }]);
    assert.equal(lee.rights_statement.length, 1);
    const rs = lee.rights_statement[0];
    assert.deepEqual([rs.rights_type, rs.jurisdiction, rs.accession], ['Copyright', 'United States', [{ identifier: 'L.1', title: 'Linked one' }]]);
    assert.equal(rs.resource, null);
    const events = await rows({ custom_record_type: 'event', fields: { event_type: { include: '1' } }, subreports: on('accession', 'archival_object', 'resource') });
    const [e] = events;
    assert.deepEqual(e.accession, [{ identifier: 'L.1', title: 'Linked one', role: 'Source' }]);
    assert.deepEqual(e.archival_object.map((a: Row) => [a.title, a.role, a.root_record]), [['Linked folder', 'Outcome', 'R.9']]);
    assert.equal(e.resource, null);
  });

  it("an accession's resources, interrelated accessions, classifications and assessments; a resource's accessions and components", async () => {
    const accessions = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' } }, sort_by: 'identifier', subreports: on('resource', 'interrelated_accession', 'classification', 'assessment') });
    const [one, part] = accessions;
    assert.deepEqual(one.resource, [{ identifier: 'R.9', title: 'Linked papers' }]);
    assert.deepEqual(one.classification, [{ identifier: 'CL', title: 'Classes', description: 'All of them' }]);
    assert.deepEqual(part.interrelated_accession, [{ relationship_type: 'L.2 Forms Part of L.1' }]);
    assert.equal(part.assessment, null);
    const [a] = one.assessment;
    assert.deepEqual([a.appraisal, a.control_file, a.purpose, a.monetary_value, a.survey_begin], ['Yes', 'No', 'Linked check', '12.50', '2021-02-01']);
    assert.deepEqual(a.ratings, [{ field: 'Reformatting Readiness', rating: '3', note: 'Ready' }]);
    assert.deepEqual(a.formats, [{ _format: 'Architectural Materials' }]);
    assert.deepEqual(a.conservation_issues, [{ _format: 'Potential Mold or Mold Damage' }]);
    assert.deepEqual([a.surveyed_by, a.reviewer], [[{ _surveyed_by: 'Linker, Lee' }], [{ _reviewer: 'Kin, Kim' }]]);
    const [r] = await rows({ custom_record_type: 'resource', fields: { identifier: { include: '1' } }, subreports: on('accession', 'archival_object', 'classification') });
    assert.deepEqual(r.accession, [{ identifier: 'L.1', title: 'Linked one' }]);
    assert.deepEqual(r.archival_object.map((x: Row) => x.title), ['Linked folder']);
    assert.deepEqual(r.classification, [{ identifier: 'CL/T1/T2', title: 'Below', description: null }]);
    const [ao] = await rows({ custom_record_type: 'archival_object', fields: { title: { include: '1' } }, subreports: on('resource') });
    assert.deepEqual(ao.resource, [{ identifier: 'R.9', title: 'Linked papers' }]);
  });

  it("a classification's creator, terms as a tree and linked records; an assessment's parts and records; a digital object's files; a location's", async () => {
    const [c] = await rows({ custom_record_type: 'classification', fields: { identifier: { include: '1' } }, subreports: on('creator', 'classification_term', 'accession', 'resource') });
    assert.deepEqual(c.creator, [{ _creator: 'Linker' }]);
    // Each term row carries the other sub-reports included, for the term (as ArchivesSpace's classification_term_subreport).
    assert.deepEqual(c.classification_term, [{
      identifier: 'T1', title: 'First term', description: null, creator: null, accession: null, resource: null,
      classification_term: [{ identifier: 'T2', title: 'Below', description: null, creator: null, classification_term: null, accession: null, resource: [{ identifier: 'R.9', title: 'Linked papers' }] }],
    }]);
    assert.deepEqual(Object.keys(c.classification_term[0]), ['identifier', 'title', 'description', 'creator', 'classification_term', 'accession', 'resource']);
    const csv = parseCsv((await report({ custom_record_type: 'classification', fields: { identifier: { include: '1' } }, subreports: on('classification_term', 'resource') }, 'csv')).text);
    const header = csv.find((row) => row[0] === 'identifier')!;
    assert.ok(header.includes('classification_term_classification_term_resource_identifier'), header.join(' '));
    assert.ok(csv.some((row) => row.includes('T2') && row.includes('R.9')), JSON.stringify(csv));
    assert.deepEqual(c.accession, [{ identifier: 'L.1', title: 'Linked one' }]);
    assert.equal(c.resource, null, 'the resource is classified under a term');
    const [a] = await rows({ custom_record_type: 'assessment', fields: { purpose: { include: '1' } }, subreports: on('ratings', 'formats', 'conservation_issues', 'surveyed_by', 'reviewer', 'accession', 'resource', 'digital_object', 'archival_object') });
    assert.deepEqual(Object.keys(a), ['purpose', 'ratings', 'formats', 'conservation_issues', 'surveyed_by', 'reviewer', 'accession', 'archival_object', 'digital_object', 'resource']);
    assert.deepEqual([a.ratings[0].field, a.formats, a.reviewer], ['Reformatting Readiness', [{ _format: 'Architectural Materials' }], [{ _reviewer: 'Kin, Kim' }]]);
    assert.deepEqual([a.accession, a.resource, a.digital_object, a.archival_object], [[{ identifier: 'L.1', title: 'Linked one' }], [{ identifier: 'R.9', title: 'Linked papers' }], [{ digital_object_id: 'DO-L', title: 'Linked scans' }], null]);
    const [d] = await rows({ custom_record_type: 'digital_object', fields: { digital_object_id: { include: '1' } }, subreports: on('file_version', 'assessment') });
    assert.deepEqual(d.file_version, [
      { file_uri: 'http://example.org/do.tif', digital_object_title: 'Linked scans', digital_object_component_title: null },
      { file_uri: 'http://example.org/p1.tif', digital_object_title: null, digital_object_component_title: 'Linked page' },
    ]);
    assert.equal(d.assessment.length, 1);
    const locations = await rows({ custom_record_type: 'location', fields: { building: { include: '1', values: ['CSUB building'] } }, subreports: on('location_function', 'owner_repo', 'location_profile', 'accession', 'resource') });
    const inBox7 = [{ top_container_barcode: null, container_profile: null, container: 'Box 7' }];
    assert.deepEqual(locations, [{
      building: 'CSUB building', location_function: [{ _function_type: 'Audiovisual Materials' }], owner_repo: [{ _name: 'Custom Subreports' }],
      location_profile: [{ name: 'Shelf CSUB', dimension_units: 'Inches', height: '12.00', width: '30.00', depth: '10.00' }],
      accession: [{ identifier: 'L.2', title: 'A part', containers: inBox7 }], resource: [{ identifier: 'R.9', title: 'Linked papers', containers: inBox7 }],
    }]);
    const [admin] = await rows({ custom_record_type: 'user', fields: { username: { include: '1', values: ['admin'] } }, subreports: on('groups') });
    assert.ok(admin.groups.some((g: Row) => g.description === 'CSUB readers'), JSON.stringify(admin.groups));
  });

  it("instances by top container: an accession's, a component's, a resource's with its components'", async () => {
    const inBox7 = (container_2: string | null) => [{ container: 'Box 7', container_profile: null, instances: [{ digital_object: null, instance_type: 'Mixed Materials', is_representative: null, container_2, container_3: null }] }];
    const accessions = await rows({ custom_record_type: 'accession', fields: { identifier: { include: '1' } }, sort_by: 'identifier', subreports: on('instance') });
    assert.deepEqual(accessions.map((r) => r.instance), [null, inBox7(null)]);
    const [ao] = await rows({ custom_record_type: 'archival_object', fields: { title: { include: '1' } }, subreports: on('instance') });
    assert.deepEqual(ao.instance, inBox7('Folder 3'));
    const [r] = await rows({ custom_record_type: 'resource', fields: { identifier: { include: '1' } }, subreports: on('instance') });
    assert.deepEqual(r.instance, inBox7('Folder 3'));
    const csv = parseCsv((await report({ custom_record_type: 'archival_object', fields: { title: { include: '1' } }, subreports: on('instance') }, 'csv')).text);
    assert.deepEqual(csv.find((row) => row[0] === 'record_title'), ['record_title', 'instance_container', 'instance_container_profile', 'instance_instances_digital_object',
      'instance_instances_instance_type', 'instance_instances_is_representative', 'instance_instances_container_2', 'instance_instances_container_3']);
  });

  it('a sub-report the record type has not: a 400 naming it at submission, a failed job naming it when the template changed after', async () => {
    const submit = (id: number) => t.http.post(`${base}/jobs`).set(H)
      .send({ job_type: 'report_job', job: { jsonmodel_type: 'report_job', report_type: 'custom_report', format: 'json' }, job_params: JSON.stringify({ template: String(id) }) });
    const bad = await submit(await template({ custom_record_type: 'location', fields: { building: { include: '1' } }, subreports: on('classification') }));
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /subreports\/classification.*location has no sub-report classification/);
    const id = await template({ custom_record_type: 'accession', fields: { title: { include: '1' } }, subreports: on('resource') });
    const out = await runAfterTemplateEdit(t, H, base, id, submit, { custom_record_type: 'accession', fields: { title: { include: '1' } }, subreports: on('archival_object') });
    assert.equal(out.job.status, 'failed');
    assert.match(out.log, /subreports\/archival_object/);
  });
});
