import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { buildFormatsFixture, FormatsFixture, post } from './formats-fixture';
import { assertValid, el, xpath } from './xmllint';

describe(`EAC-CPF and MARC authority exports of agents (${STORE})`, () => {
  let t: TestApp;
  let f: FormatsFixture;
  let viewer: string;
  let nobody: string;
  let fullAgent: number;
  const as = (token: string) => ({ 'X-ArchivesSpace-Session': token });
  const kinds = () => [['people', f.person], ['corporate_entities', f.corporate], ['families', f.family]] as const;

  before(async () => {
    t = await startTestApp();
    f = await buildFormatsFixture(t);
    const groups = await t.http.get(`/repositories/${f.repo}/groups`).query({ group_code: 'repository-viewers' }).set(as(f.token));
    await t.http.post('/users').query({ password: 'pw-v', 'groups[]': [groups.body[0].uri] }).set(as(f.token)).send({ username: 'eviewer', name: 'V' }).expect(200);
    viewer = (await t.http.post('/users/eviewer/login').query({ password: 'pw-v' })).body.session;
    await t.http.post('/users').query({ password: 'pw-n' }).send({ username: 'enobody', name: 'N' }).expect(200);
    nobody = (await t.http.post('/users/enobody/login').query({ password: 'pw-n' })).body.session;
    // An agent with every part of record control and description filled in.
    fullAgent = (await post(t, f.token, '/agents/people', {
      publish: true,
      names: [
        { primary_name: 'Skłodowska', rest_of_name: 'Maria', name_order: 'inverted', sort_name: 'Skłodowska, Maria', authorized: true, source: 'local', language: 'pol', script: 'Latn',
          use_dates: [{ date_label: 'usage', date_type_structured: 'range', structured_date_range: { begin_date_standardized: '1867', end_date_standardized: '1895' } }] },
        { primary_name: 'Curie', rest_of_name: 'Madame', name_order: 'inverted', sort_name: 'Curie, Madame', source: 'local' },
      ],
      agent_record_identifiers: [
        { record_identifier: 'local-77', primary_identifier: true, source: 'local', identifier_type: 'local' },
        { record_identifier: 'n79055347', primary_identifier: false, source: 'naf', identifier_type: 'loc' },
      ],
      agent_record_controls: [{ maintenance_status: 'revised_corrected', publication_status: 'approved', maintenance_agency: 'US-XyZ', agency_name: 'Special Collections', language: 'eng', script: 'Latn', level_of_detail: 'fully_established' }],
      agent_conventions_declarations: [{ name_rule: 'rda', citation: 'RDA Toolkit' }],
      agent_maintenance_histories: [{ maintenance_event_type: 'created', event_date: '2020-01-02T03:04:05Z', maintenance_agent_type: 'human', agent: 'cataloguer' }],
      agent_sources: [{ source_entry: 'Nobel Prize biography', descriptive_note: 'Consulted 2020' }],
      dates_of_existence: [
        { date_label: 'existence', date_type_structured: 'range', structured_date_range: { begin_date_standardized: '1867-11-07', end_date_standardized: '1934-07-04' } },
        { date_label: 'existence', date_type_structured: 'single', structured_date_single: { date_role: 'begin', date_expression: 'autumn 1867' } },
      ],
      used_languages: [{ language: 'fre', script: 'Latn' }],
      agent_occupations: [{ subjects: [{ ref: `/subjects/${f.topical}` }] }],
      related_agents: [{ jsonmodel_type: 'agent_relationship_associative', relator: 'is_associative_with', ref: `/agents/corporate_entities/${f.corporate}` }],
      notes: [{
        jsonmodel_type: 'note_bioghist', publish: true,
        subnotes: [
          { jsonmodel_type: 'note_abstract', content: ['Physicist.'] },
          { jsonmodel_type: 'note_text', content: 'Two Nobel prizes.' },
          { jsonmodel_type: 'note_chronology', items: [{ event_date: '1903', events: ['Nobel Prize in Physics'] }, { event_date: '1911', events: ['Nobel Prize in Chemistry'] }] },
          { jsonmodel_type: 'note_orderedlist', enumeration: 'arabic', items: ['Polonium', 'Radium'] },
          { jsonmodel_type: 'note_definedlist', items: [{ label: 'Born', value: 'Warsaw' }] },
          { jsonmodel_type: 'note_citation', content: ['Quinn 1995'] },
        ],
      }],
    })).id;
  });
  after(async () => t.close());

  it('writes valid EAC-CPF for every kind of agent', async () => {
    for (const [plural, id] of kinds()) {
      const res = await t.http.get(`/repositories/${f.repo}/archival_contexts/${plural}/${id}.xml`).set(as(viewer));
      assert.equal(res.status, 200, `${plural}: ${res.text}`);
      assert.match(res.headers['content-type'], /^application\/xml/);
      assertValid(res.text, 'cpf.xsd');
    }
    const person = (await t.http.get(`/repositories/${f.repo}/archival_contexts/people/${f.person}.xml`).set(as(viewer))).text;
    assert.equal(xpath(person, `string(//${el('entityType')})`), 'person');
    assert.equal(xpath(person, `string(//${el('part')}[@localType="surname"])`), 'Curie');
    assert.equal(xpath(person, `string(//${el('part')}[@localType="forename"])`), 'Marie');
    assert.equal(xpath(person, `string(//${el('recordId')})`), 'n79055347');
    assert.equal(xpath(person, `string(//${el('existDates')}//${el('fromDate')}/@standardDate)`), '1867-11-07');
    assert.equal(xpath(person, `string(//${el('biogHist')}/${el('p')})`), 'Physicist & chemist pioneer.');
    // The resource that names Marie Curie as creator, and the digital object.
    assert.equal(xpath(person, `count(//${el('resourceRelation')}[@resourceRelationType="creatorOf"])`), '2');
    assert.equal(xpath(person, `string(//${el('resourceRelation')}[${el('relationEntry')}="Marie Curie papers"]/@resourceRelationType)`), 'creatorOf');
    const corp = (await t.http.get(`/repositories/${f.repo}/archival_contexts/corporate_entities/${f.corporate}.xml`).set(as(viewer))).text;
    assert.equal(xpath(corp, `string(//${el('entityType')})`), 'corporateBody');
    assert.equal(xpath(corp, `count(//${el('resourceRelation')}[@resourceRelationType="subjectOf"])`), '1');
  });

  it('maps record control, dates, languages, notes and relations of a fully described agent', async () => {
    const xml = assertValid((await t.http.get(`/repositories/${f.repo}/archival_contexts/people/${fullAgent}.xml`).set(as(viewer))).text, 'cpf.xsd');
    assert.equal(xpath(xml, `string(//${el('recordId')})`), 'local-77');
    assert.equal(xpath(xml, `string(//${el('otherRecordId')}[@localType="loc"])`), 'n79055347');
    assert.equal(xpath(xml, `string(//${el('maintenanceStatus')})`), 'revised');
    assert.equal(xpath(xml, `string(//${el('agencyName')})`), 'Special Collections');
    assert.equal(xpath(xml, `string(//${el('conventionDeclaration')}/${el('abbreviation')})`), 'rda');
    assert.equal(xpath(xml, `string(//${el('eventDateTime')}/@standardDateTime)`), '2020-01-02T03:04:05Z');
    assert.equal(xpath(xml, `count(//${el('existDates')}/${el('dateSet')}/*)`), '2');
    assert.equal(xpath(xml, `count(//${el('nameEntry')})`), '2');
    assert.equal(xpath(xml, `count(//${el('nameEntry')}/${el('authorizedForm')})`), '1');
    assert.equal(xpath(xml, `string(//${el('languageUsed')}/${el('language')}/@languageCode)`), 'fre');
    assert.equal(xpath(xml, `string(//${el('occupation')}/${el('term')})`), 'Radioactivity -- History -- 20th century'); // the subject's title, generated from its terms
    assert.equal(xpath(xml, `count(//${el('chronItem')})`), '2');
    assert.equal(xpath(xml, `count(//${el('biogHist')}/${el('list')})`), '2');
    assert.equal(xpath(xml, `string(//${el('cpfRelation')}/@cpfRelationType)`), 'associative');
    assert.equal(xpath(xml, `string(//${el('cpfRelation')}/${el('relationEntry')})`), 'Institut du Radium. Laboratoire Curie');
  });

  it('writes valid MARC authority records', async () => {
    for (const [plural, id] of kinds()) {
      const res = await t.http.get(`/repositories/${f.repo}/agents/${plural}/marc21/${id}.xml`).set(as(viewer));
      assert.equal(res.status, 200, `${plural}: ${res.text}`);
      assertValid(res.text, 'MARC21slim.xsd');
    }
    const xml = assertValid((await t.http.get(`/repositories/${f.repo}/agents/people/marc21/${fullAgent}.xml`).set(as(viewer))).text, 'MARC21slim.xsd');
    const sf = (tag: string, code: string) => xpath(xml, `string(//${el('datafield')}[@tag="${tag}"]/${el('subfield')}[@code="${code}"])`);
    assert.equal(xpath(xml, `string(//${el('leader')})`), '00000cz  a2200000ni 4500');
    assert.equal(xpath(xml, `string(//${el('controlfield')}[@tag="001"])`), 'local-77');
    assert.equal(xpath(xml, `string(//${el('controlfield')}[@tag="003"])`), 'US-XyZ');
    assert.equal(xpath(xml, `string-length(//${el('controlfield')}[@tag="008"])`), '40');
    assert.equal(sf('010', 'a'), 'n79055347');
    assert.equal(sf('035', 'a'), 'local-77');
    assert.equal(sf('040', 'e'), 'rda');
    assert.equal(sf('046', 'f'), '1867-11-07');
    assert.equal(sf('046', 'g'), '1934-07-04');
    assert.equal(sf('100', 'a'), 'Skłodowska, Maria.');
    assert.equal(sf('400', 'a'), 'Curie, Madame.');
    assert.equal(sf('510', 'a'), 'Institut du Radium');
    assert.equal(sf('374', 'a'), 'Radioactivity -- History -- 20th century');
    assert.equal(sf('377', 'a'), 'fre');
    assert.equal(sf('670', 'a'), 'Nobel Prize biography');
    assert.equal(sf('678', 'a'), 'Physicist.');
    assert.equal(sf('678', 'b'), 'Two Nobel prizes.');
    const family = (await t.http.get(`/repositories/${f.repo}/agents/families/marc21/${f.family}.xml`).set(as(viewer))).text;
    assert.equal(xpath(family, `string(//${el('datafield')}[@tag="100"]/@ind1)`), '3');
    const corp = (await t.http.get(`/repositories/${f.repo}/agents/corporate_entities/marc21/${f.corporate}.xml`).set(as(viewer))).text;
    assert.equal(xpath(corp, `string(//${el('datafield')}[@tag="110"]/${el('subfield')}[@code="a"])`), 'Institut du Radium');
  });

  it('answers the metadata routes with ArchivesSpace file names', async () => {
    const eac = await t.http.get(`/repositories/${f.repo}/archival_contexts/people/${f.person}.xml/metadata`).set(as(viewer));
    assert.equal(eac.status, 200, eac.text);
    assert.match(eac.body.filename, /^httpid\.loc\.govauthoritiesnamesn79055347_Curie_\d{8}_\d{6}_UTC__eac\.xml$/);
    assert.equal(eac.body.mimetype, 'application/xml');
    const fam = await t.http.get(`/repositories/${f.repo}/archival_contexts/families/${f.family}.xml/metadata`).set(as(viewer));
    assert.match(fam.body.filename, /^Curie_family_\d{8}_\d{6}_UTC__eac\.xml$/);
    const marc = await t.http.get(`/repositories/${f.repo}/agents/corporate_entities/marc21/${f.corporate}.xml/metadata`).set(as(viewer));
    assert.match(marc.body.filename, /^Institut_du_Radium_\d{8}_\d{6}_UTC__marc\.xml$/);
  });

  it('EAC-CPF needs no login for published agents (as ArchivesSpace); unpublished agents only for viewers; MARC authority needs view_repository', async () => {
    assert.equal((await t.http.get(`/repositories/${f.repo}/archival_contexts/people/${f.person}.xml`)).status, 200);
    assert.equal((await t.http.get(`/repositories/${f.repo}/archival_contexts/people/${f.hiddenPerson}.xml`)).status, 404);
    assert.equal((await t.http.get(`/repositories/${f.repo}/archival_contexts/people/${f.hiddenPerson}.xml`).set(as(nobody))).status, 404);
    const shown = await t.http.get(`/repositories/${f.repo}/archival_contexts/people/${f.hiddenPerson}.xml`).set(as(viewer));
    assert.equal(shown.status, 200);
    assertValid(shown.text, 'cpf.xsd');
    assert.equal((await t.http.get(`/repositories/${f.repo}/agents/people/marc21/${f.person}.xml`).set(as(nobody))).status, 403);
    assert.equal((await t.http.get(`/repositories/${f.repo}/agents/people/marc21/${f.person}.xml`)).status, 403);
    assert.equal((await t.http.get(`/repositories/${f.repo}/agents/people/marc21/${f.person}.xml/metadata`).set(as(nobody))).status, 403);
  });

  it('answers 404 for unknown agents and 400 for bad ids and repositories', async () => {
    const missing = await t.http.get(`/repositories/${f.repo}/archival_contexts/people/999999.xml`).set(as(viewer));
    assert.deepEqual([missing.status, missing.body], [404, { error: 'AgentPerson not found' }]);
    assert.equal((await t.http.get(`/repositories/${f.repo}/agents/families/marc21/999999.xml`).set(as(viewer))).status, 404);
    assert.equal((await t.http.get(`/repositories/${f.repo}/archival_contexts/families/999999.xml/metadata`).set(as(viewer))).status, 404);
    // An id of one kind of agent is not an id of another.
    assert.equal((await t.http.get(`/repositories/${f.repo}/archival_contexts/families/${f.person + 1000}.xml`).set(as(viewer))).status, 404);
    assert.equal((await t.http.get(`/repositories/${f.repo}/archival_contexts/people/x1.xml`).set(as(viewer))).status, 400);
    assert.equal((await t.http.get(`/repositories/9999/archival_contexts/people/${f.person}.xml`).set(as(viewer))).status, 400);
  });
});
