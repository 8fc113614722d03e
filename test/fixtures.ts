import crypto from 'node:crypto';

const tag = () => crypto.randomBytes(4).toString('hex');

/**
 * A minimal valid record of each routed type, unique on every call. Links point at well-formed
 * URIs in repository `repo`; `existing` supplies real targets where a test needs them.
 */
export function sampleRecord(type: string, repo: number): Record<string, unknown> {
  const t = tag();
  const date = { date_type: 'single', label: 'creation', expression: '1900' };
  const name = { primary_name: `Name ${t}`, name_order: 'direct', sort_name: `Name ${t}` };
  const samples: Record<string, Record<string, unknown>> = {
    accession: { id_0: `A-${t}`, title: `Accession ${t}` },
    resource: {
      id_0: `R-${t}`, title: `Resource ${t}`, level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [date], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng' } }],
    },
    archival_object: { title: `Series ${t}`, level: 'series', resource: { ref: `/repositories/${repo}/resources/1` } },
    digital_object: { title: `Digital ${t}`, digital_object_id: `DO-${t}` },
    digital_object_component: { title: `Component ${t}`, digital_object: { ref: `/repositories/${repo}/digital_objects/1` } },
    event: {
      event_type: 'accession', date,
      linked_agents: [{ role: 'implementer', ref: '/agents/people/1' }],
      linked_records: [{ role: 'source', ref: `/repositories/${repo}/accessions/1` }],
    },
    top_container: { indicator: `Box ${t}` },
    subject: { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `Term ${t}`, term_type: 'topical', vocabulary: '/vocabularies/1' }] },
    vocabulary: { ref_id: `voc-${t}`, name: `Vocabulary ${t}` },
    location: { building: 'Main', barcode: `L-${t}` },
    location_profile: { name: `Shelf ${t}`, dimension_units: 'inches', depth: '10', height: '12', width: '30' },
    container_profile: { name: `Box ${t}`, dimension_units: 'inches', extent_dimension: 'width', depth: '15', height: '10', width: '5' },
    repository: { repo_code: `R${t}`, name: `Repository ${t}` },
    agent_person: { names: [{ ...name }] },
    agent_family: { names: [{ family_name: `Family ${t}`, sort_name: `Family ${t}` }] },
    agent_corporate_entity: { names: [{ primary_name: `Corp ${t}`, sort_name: `Corp ${t}` }] },
    agent_software: { names: [{ software_name: `Software ${t}`, sort_name: `Software ${t}` }] },
    group: { group_code: `g-${t}`, description: `Group ${t}` },
    user: { username: `user-${t}`, name: `User ${t}` },
    enumeration: { name: `list_${t}`, values: ['a', 'b'] },
    enumeration_value: { value: 'a', position: 0, suppressed: false },
    oai_config: { oai_repository_name: `OAI ${t}`, oai_record_prefix: 'oai:archivesspace', oai_admin_email: 'oai@example.org' },
    archival_record_children: { children: [{ title: `Child ${t}`, level: 'file', resource: { ref: `/repositories/${repo}/resources/1` } }] },
    classification: { identifier: `RG-${t}`, title: `Record group ${t}` },
    classification_term: { identifier: `T-${t}`, title: `Term ${t}`, classification: { ref: `/repositories/${repo}/classifications/1` } },
    classification_term_children: { children: [{ identifier: `C-${t}`, title: `Child ${t}`, classification: { ref: `/repositories/${repo}/classifications/1` } }] },
    assessment: { records: [{ ref: `/repositories/${repo}/accessions/1` }], surveyed_by: [{ ref: '/agents/people/1' }], survey_begin: '2024-01-01', ratings: [{ definition_id: 1, value: '3' }] },
    preference: { defaults: { show_suppressed: false, publish: true } },
    rde_template: { name: `Template ${t}`, record_type: 'archival_object', order: ['title', 'level'], visible: ['title'], defaults: { level: 'file' } },
    custom_report_template: { name: `Report ${t}`, data: '{"fields":{}}', limit: 50 },
    ark_name: { current: `ark:/99999/fk4${t}`, previous: [] },
    digital_record_children: { children: [{ title: `Part ${t}`, digital_object: { ref: `/repositories/${repo}/digital_objects/1` } }] },
  };
  const sample = samples[type];
  if (!sample) throw new Error(`no sample record for ${type}: add one to test/fixtures.ts`);
  return structuredClone(sample);
}
