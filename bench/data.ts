/** The bench's data set: client bodies for the API and the stored rows cloned from what the API stored. */
import type { Obj } from '../src/json';

export const SUBJECTS = 40;
export const AGENTS = 10;

/** Words whose share of the documents is known: `u<id>` one, `batch<k>` 1 %, `topic<k>` 10 %. */
export function contentOf(id: number): string {
  return `Letters, diaries, photographs and minutes of the society, 1850-1900, gathered by topic${id % 10} ` +
    `and batch${id % 100}. Unique token u${id}. Correspondence with members, printed circulars, account books ` +
    'and the minutes of the annual meetings; photographs of the members and of the society\'s building.';
}

/** A client's body for an accession with subrecords and three links (two subjects, one agent): ~2 KB once stored. */
export function accessionBody(id0: string, id1: string, id: number, subjects: string[], agent: string): Obj {
  return {
    id_0: id0, id_1: id1, title: `Papers of the ${['civil war', 'river', 'harbour', 'mill', 'county'][id % 5]} society ${id}`,
    accession_date: '2020-01-01', publish: id % 2 === 0,
    content_description: contentOf(id),
    condition_description: 'Good; some foxing on the earliest letters, and water damage to one account book.',
    inventory: 'Box 1: letters. Box 2: diaries. Box 3: photographs. Box 4: account books and minutes.',
    provenance: 'Gift of the society, 2019, through its last secretary.', general_note: 'Processed 2020.',
    acquisition_type: 'gift', resource_type: 'papers',
    dates: [
      { date_type: 'inclusive', label: 'creation', begin: String(1800 + (id % 100)), end: String(1850 + (id % 100)) },
      { date_type: 'single', label: 'creation', begin: String(1825 + (id % 100)), expression: `circa ${1825 + (id % 100)}` },
    ],
    extents: [{ portion: 'whole', number: String(1 + (id % 9)), extent_type: 'linear_feet', container_summary: `${1 + (id % 9)} boxes` }],
    external_ids: [{ external_id: `EXT-${id}`, source: 'catalog' }],
    subjects: subjects.map((ref) => ({ ref })),
    linked_agents: [{ role: 'creator', ref: agent }],
  };
}

export function subjectsFor(id: number, subjectUris: string[]): string[] {
  return [subjectUris[id % subjectUris.length], subjectUris[(id * 7 + 3) % subjectUris.length]].filter((v, i, a) => a.indexOf(v) === i);
}

export function agentFor(id: number, agentUris: string[]): string {
  return agentUris[id % agentUris.length];
}

/**
 * The stored JSON of accession `id`: the template the API stored, with the fields a client's body
 * sets for that id (what creating it through the API would have stored, timestamps aside).
 */
export function storedAccession(template: Obj, repo: number, id: number, subjectUris: string[], agentUris: string[]): Obj {
  const body = accessionBody('B', String(id), id, subjectsFor(id, subjectUris), agentFor(id, agentUris));
  const stored: Obj = structuredClone(template);
  for (const key of ['title', 'id_1', 'publish', 'content_description']) stored[key] = body[key];
  stored.dates = body.dates.map((d: Obj) => ({ jsonmodel_type: 'date', ...d }));
  stored.extents = body.extents.map((e: Obj) => ({ jsonmodel_type: 'extent', ...e }));
  stored.external_ids = body.external_ids.map((e: Obj) => ({ jsonmodel_type: 'external_id', ...e }));
  stored.subjects = body.subjects;
  stored.linked_agents = [{ ...template.linked_agents[0], ref: body.linked_agents[0].ref }];
  stored.uri = `/repositories/${repo}/accessions/${id}`;
  return stored;
}

/** A client's body for one archival object of the bulk load (~600 bytes stored). */
export function childBody(i: number, resourceUri: string): Obj {
  return {
    title: `Item ${i}: letters of the ${['secretary', 'treasurer', 'president', 'members'][i % 4]}`,
    level: 'file', component_id: `C-${i}`, resource: { ref: resourceUri }, publish: true,
    dates: [{ date_type: 'single', label: 'creation', begin: String(1850 + (i % 50)) }],
    notes: [{ jsonmodel_type: 'note_multipart', type: 'scopecontent', publish: true, subnotes: [{ jsonmodel_type: 'note_text', content: `Letters about the society's ${['finances', 'meetings', 'building', 'members'][i % 4]}.` }] }],
  };
}

/** A client's body for a resource (a collection to load children under). */
export function resourceBody(id0: string, title: string): Obj {
  return {
    id_0: id0, title, level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn', publish: true,
    dates: [{ date_type: 'inclusive', label: 'creation', begin: '1850', end: '1900' }],
    extents: [{ portion: 'whole', number: '40', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng' } }],
  };
}
