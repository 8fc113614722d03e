/**
 * Records the MARCXML, EAC-CPF, MARC authority, MODS, METS, Dublin Core and OAI-PMH tests share:
 * a repository with its address codes, agents of every kind (one unpublished), subjects of
 * several sources and term types (subjects are always published), a resource with every date form, extents, languages, notes of
 * many kinds (one unpublished) and agents in every role, a component tree, digital objects with
 * file versions and components, and a suppressed resource. Created over HTTP like a client would.
 */
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers';

export interface FormatsFixture {
  repo: number;
  token: string;
  person: number;
  corporate: number;
  family: number;
  software: number;
  hiddenPerson: number;
  topical: number;
  geographic: number;
  genre: number;
  resource: number;
  suppressedResource: number;
  series: number;
  file: number;
  digitalObject: number;
  bareDigitalObject: number;
  components: number[];
}

export async function post(t: TestApp, token: string, path: string, body: unknown): Promise<{ id: number; uri: string }> {
  const res = await t.http.post(path).set('X-ArchivesSpace-Session', token).send(body as object);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return { id: res.body.id, uri: res.body.uri };
}

export const note = (type: string, text: string, extra: Record<string, unknown> = {}) => ({
  jsonmodel_type: 'note_multipart', type, publish: true, subnotes: [{ jsonmodel_type: 'note_text', content: text, publish: true }], ...extra,
});
export const singleNote = (type: string, text: string, extra: Record<string, unknown> = {}) => ({
  jsonmodel_type: 'note_singlepart', type, publish: true, content: [text], ...extra,
});

export async function buildFormatsFixture(t: TestApp, code = 'FMT'): Promise<FormatsFixture> {
  const token = await t.adminToken();
  const p = (path: string, body: unknown) => post(t, token, path, body);
  const repoRes = await p('/repositories', {
    repo_code: code, name: `Special Collections ${code}`, org_code: 'US-XyZ', country: 'US', parent_institution_name: 'Example University',
  });
  const repo = repoRes.id;
  const person = (await p('/agents/people', {
    publish: true,
    names: [{
      primary_name: 'Curie', rest_of_name: 'Marie', name_order: 'inverted', sort_name: 'Curie, Marie, 1867-1934', dates: '1867-1934',
      authority_id: 'http://id.loc.gov/authorities/names/n79055347', source: 'naf', rules: 'dacs', fuller_form: 'Maria Salomea',
    }],
    dates_of_existence: [{
      date_label: 'existence', date_type_structured: 'range',
      structured_date_range: { begin_date_standardized: '1867-11-07', end_date_standardized: '1934-07-04', begin_date_expression: 'November 7, 1867' },
    }],
    agent_record_identifiers: [{ record_identifier: 'n79055347', primary_identifier: true, source: 'naf' }],
    notes: [{ jsonmodel_type: 'note_bioghist', publish: true, subnotes: [{ jsonmodel_type: 'note_text', content: 'Physicist & chemist <emph>pioneer</emph>.' }] }],
  })).id;
  const corporate = (await p('/agents/corporate_entities', {
    publish: true,
    names: [{ primary_name: 'Institut du Radium', subordinate_name_1: 'Laboratoire Curie', sort_name: 'Institut du Radium. Laboratoire Curie', source: 'local' }],
    dates_of_existence: [{ date_label: 'existence', date_type_structured: 'single', structured_date_single: { date_role: 'begin', date_standardized: '1909' } }],
  })).id;
  const family = (await p('/agents/families', {
    publish: true, names: [{ family_name: 'Curie family', sort_name: 'Curie family', qualifier: 'France', source: 'local' }],
  })).id;
  const software = (await p('/agents/software', { publish: true, names: [{ software_name: 'Scanner Suite', sort_name: 'Scanner Suite' }] })).id;
  const hiddenPerson = (await p('/agents/people', {
    publish: false, names: [{ primary_name: 'Secret Donor', name_order: 'direct', sort_name: 'Secret Donor' }],
  })).id;
  // Subjects are always published (their publish flag is read-only).
  const subject = (source: string, terms: Array<[string, string]>, authority_id?: string) =>
    p('/subjects', {
      source, vocabulary: '/vocabularies/1', authority_id,
      terms: terms.map(([term, term_type]) => ({ term, term_type, vocabulary: '/vocabularies/1' })),
    });
  const topical = (await subject('lcsh', [['Radioactivity', 'topical'], ['History', 'topical'], ['20th century', 'temporal']], 'sh85110640')).id;
  const geographic = (await subject('local', [['Paris (France)', 'geographic']])).id;
  const genre = (await subject('aat', [['Laboratory notebooks', 'genre_form']])).id;

  const resource = (await p(`/repositories/${repo}/resources`, {
    title: 'Marie Curie papers', id_0: 'MS', id_1: '0042', level: 'collection', publish: true,
    finding_aid_title: 'Guide to the Marie Curie papers', finding_aid_language: 'eng', finding_aid_script: 'Latn',
    finding_aid_description_rules: 'dacs', ead_location: 'https://example.org/findingaids/ms0042',
    dates: [
      { date_type: 'inclusive', label: 'creation', begin: '1890', end: '1934', expression: '1890-1934' },
      { date_type: 'bulk', label: 'creation', begin: '1900', end: '1920' },
      { date_type: 'single', label: 'digitized', begin: '2001-05-02' },
    ],
    extents: [
      { portion: 'whole', number: '12', extent_type: 'linear_feet', container_summary: '24 boxes', physical_details: 'ink on paper', dimensions: '30 cm' },
      { portion: 'part', number: '3', extent_type: 'cassettes' },
    ],
    lang_materials: [
      { language_and_script: { language: 'fre', script: 'Latn' } },
      { language_and_script: { language: 'pol', script: 'Latn' } },
      { notes: [{ jsonmodel_type: 'note_langmaterial', type: 'langmaterial', publish: true, content: ['Mostly in French; some Polish.'] }] },
    ],
    linked_agents: [
      { ref: `/agents/people/${person}`, role: 'creator', relator: 'aut', is_primary: true },
      { ref: `/agents/corporate_entities/${corporate}`, role: 'creator' },
      { ref: `/agents/families/${family}`, role: 'source', relator: 'fmo' },
      { ref: `/agents/people/${hiddenPerson}`, role: 'source' },
      { ref: `/agents/corporate_entities/${corporate}`, role: 'subject', terms: [{ term: 'Archives', term_type: 'genre_form', vocabulary: '/vocabularies/1' }] },
      { ref: `/agents/software/${software}`, role: 'subject' },
    ],
    subjects: [
      { ref: `/subjects/${topical}` }, { ref: `/subjects/${geographic}` }, { ref: `/subjects/${genre}` },
    ],
    notes: [
      singleNote('abstract', 'Papers of the physicist <emph render="italic">Marie Curie</emph>.'),
      note('scopecontent', 'Correspondence, notebooks & photographs.'),
      note('bioghist', 'Born in Warsaw in 1867'),
      note('accessrestrict', 'Open for research.'),
      note('userestrict', 'Copyright retained by the family.'),
      note('acqinfo', 'Gift of the family, 1990.'),
      note('custodhist', 'Kept at the Institut du Radium.'),
      note('processinfo', 'Processed in 2001.'),
      singleNote('physloc', 'Stored off site.'),
      note('odd', 'Secret staff remark NOT-FOR-PUBLIC.', { publish: false }),
      { jsonmodel_type: 'note_bibliography', publish: true, content: ['Works about Curie'], items: ['Quinn, Susan. Marie Curie: A Life. 1995.'] },
    ],
  })).id;
  const suppressedResource = (await p(`/repositories/${repo}/resources`, {
    title: 'Suppressed papers', id_0: 'MS', id_1: '9999', level: 'collection', publish: true, finding_aid_language: 'eng', finding_aid_script: 'Latn',
    dates: [{ date_type: 'single', label: 'creation', begin: '1950' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }],
  })).id;
  const sup = await t.http.post(`/repositories/${repo}/resources/${suppressedResource}/suppressed`).query({ suppressed: true }).set('X-ArchivesSpace-Session', token);
  assert.equal(sup.status, 200, sup.text);
  const series = (await p(`/repositories/${repo}/archival_objects`, {
    title: 'Correspondence', level: 'series', component_id: 'S1', publish: true, resource: { ref: `/repositories/${repo}/resources/${resource}` },
    dates: [{ date_type: 'inclusive', label: 'creation', begin: '1895', end: '1934' }],
  })).id;
  const file = (await p(`/repositories/${repo}/archival_objects`, {
    title: 'Letters to Pierre', level: 'file', publish: true, resource: { ref: `/repositories/${repo}/resources/${resource}` },
    parent: { ref: `/repositories/${repo}/archival_objects/${series}` },
    dates: [{ date_type: 'single', label: 'creation', begin: '1895-07-26' }],
  })).id;

  const digitalObject = (await p(`/repositories/${repo}/digital_objects`, {
    title: 'Notebook, 1899', digital_object_id: 'DO-0042-1', digital_object_type: 'text', publish: true,
    dates: [
      { date_type: 'single', label: 'creation', begin: '1899', expression: 'circa 1899', certainty: 'approximate' },
      { date_type: 'single', label: 'digitized', begin: '2001-05-02' },
      { date_type: 'inclusive', label: 'publication', begin: '1901', end: '1902' },
    ],
    extents: [{ portion: 'whole', number: '1', extent_type: 'volumes' }],
    lang_materials: [{ language_and_script: { language: 'fre', script: 'Latn' } }],
    linked_agents: [{ ref: `/agents/people/${person}`, role: 'creator', relator: 'aut' }, { ref: `/agents/families/${family}`, role: 'subject' }],
    subjects: [{ ref: `/subjects/${topical}` }, { ref: `/subjects/${geographic}` }, { ref: `/subjects/${genre}` }],
    file_versions: [
      { file_uri: 'https://example.org/iiif/notebook-1899/full.pdf', use_statement: 'image-master', publish: true, file_format_name: 'pdf', is_representative: true },
      { file_uri: 'https://example.org/iiif/notebook-1899/thumb.jpg', use_statement: 'image-thumbnail', publish: true, file_format_name: 'jpeg' },
      { file_uri: 'file:///staff-only/notebook.tif', use_statement: 'image-master', publish: false },
    ],
    notes: [
      { jsonmodel_type: 'note_digital_object', type: 'summary', publish: true, content: ['A laboratory notebook.'] },
      { jsonmodel_type: 'note_digital_object', type: 'userestrict', publish: true, content: ['Public domain.'] },
      { jsonmodel_type: 'note_digital_object', type: 'note', publish: false, content: ['Staff only NOT-FOR-PUBLIC.'] },
    ],
  })).id;
  const components: number[] = [];
  for (const [i, label] of ['Page 1', 'Page 2'].entries()) {
    components.push((await p(`/repositories/${repo}/digital_object_components`, {
      title: label, component_id: `p${i + 1}`, publish: true, digital_object: { ref: `/repositories/${repo}/digital_objects/${digitalObject}` },
      file_versions: [{ file_uri: `https://example.org/iiif/notebook-1899/p${i + 1}.jpg`, use_statement: 'image-service', publish: true }],
    })).id);
  }
  const bareDigitalObject = (await p(`/repositories/${repo}/digital_objects`, { title: 'Bare & plain', digital_object_id: 'DO-BARE' })).id;
  return {
    repo, token, person, corporate, family, software, hiddenPerson, topical, geographic, genre,
    resource, suppressedResource, series, file, digitalObject, bareDigitalObject, components,
  };
}
