/**
 * The assessment attribute definitions (ratings, formats, conservation issues): the installation's,
 * as ArchivesSpace seeds them, and each repository's own, kept as a repository setting. Read here,
 * below the layers that use them: the repository settings routes, the assessment reports and the
 * assessment CSV import.
 */
import type { Obj } from '../json';
import type { Handle } from './database';
import { settingOf } from './repositories';

export type AttributeKind = 'rating' | 'format' | 'conservation_issue';

/** The installation's attribute definitions, as the original seeds them (ids 1..33, read-only). */
const GLOBAL: Array<[AttributeKind, string]> = [
  ['rating', 'Reformatting Readiness'], ['rating', 'Housing Quality'], ['rating', 'Physical Condition'], ['rating', 'Physical Access (arrangement)'],
  ['rating', 'Intellectual Access (description)'], ['rating', 'Interest'], ['rating', 'Documentation Quality'], ['rating', 'Research Value'],
  ['format', 'Architectural Materials'], ['format', 'Art Originals'], ['format', 'Artifacts'], ['format', 'Audio Materials'], ['format', 'Biological Specimens'],
  ['format', 'Botanical Specimens'], ['format', 'Computer Storage Units'], ['format', 'Film (negative, slide, or motion picture)'], ['format', 'Glass'],
  ['format', 'Photographs'], ['format', 'Scrapbooks'], ['format', 'Technical Drawings & Schematics'], ['format', 'Textiles'], ['format', 'Vellum & Parchment'],
  ['format', 'Video Materials'], ['format', 'Other'],
  ['conservation_issue', 'Potential Mold or Mold Damage'], ['conservation_issue', 'Recent Pest Damage'], ['conservation_issue', 'Deteriorating Film Base'],
  ['conservation_issue', 'Brittle Paper'], ['conservation_issue', 'Metal Fasteners'], ['conservation_issue', 'Newspaper'], ['conservation_issue', 'Tape'],
  ['conservation_issue', 'Heat-Sensitive Paper'], ['conservation_issue', 'Water Damage'],
];

/** Where a repository's own definitions are kept. */
export const ATTRIBUTE_SETTING = { kind: 'assessment_attributes', recordType: 'assessment' };

export function globalAttributeDefinitions(): Obj[] {
  return GLOBAL.map(([type, label], i) => ({ id: i + 1, label, type, global: true, readonly: true, position: i }));
}

/** A repository's own definitions. */
export async function localAttributeDefinitions(h: Handle, repoId: number): Promise<Obj[]> {
  const row = await settingOf(h, { repoId, ...ATTRIBUTE_SETTING });
  return row ? JSON.parse(row.json).definitions : [];
}

/** The installation's definitions, then the repository's own. */
export async function attributeDefinitionsOf(h: Handle, repoId: number): Promise<Obj[]> {
  return [...globalAttributeDefinitions(), ...(await localAttributeDefinitions(h, repoId))];
}
