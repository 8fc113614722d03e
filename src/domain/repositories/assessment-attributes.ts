import { errors } from '../../errors';
import type { Obj } from '../../json';
import { isPlainObject } from '../../json';
import type { Services } from '../../records/context';
import { replaceSetting, settingOf } from '../../store/repositories';

type Kind = 'rating' | 'format' | 'conservation_issue';

/** The installation's attribute definitions, as the original seeds them (ids 1..33, read-only). */
const GLOBAL: Array<[Kind, string]> = [
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
const KINDS = new Set<Kind>(['rating', 'format', 'conservation_issue']);
const LOCAL_IDS_FROM = 1000;
/** Where a repository's own definitions are kept. */
const ATTRIBUTES = { kind: 'assessment_attributes', recordType: 'assessment' };

function globalDefinitions(): Obj[] {
  return GLOBAL.map(([type, label], i) => ({ id: i + 1, label, type, global: true, readonly: true, position: i }));
}

async function localDefinitions(s: Services, repoId: number): Promise<Obj[]> {
  const row = await settingOf(s.db, { repoId, ...ATTRIBUTES });
  return row ? JSON.parse(row.json).definitions : [];
}

/** GET /repositories/:repo_id/assessment_attribute_definitions: the installation's and the repository's own. */
export async function attributeDefinitions(s: Services, repoId: number): Promise<Obj> {
  return { definitions: [...globalDefinitions(), ...(await localDefinitions(s, repoId))], jsonmodel_type: 'assessment_attribute_definitions' };
}

/** POST: the repository's own definitions replaced by those sent (the global ones stay as they are). */
export async function saveAttributeDefinitions(s: Services, repoId: number, body: unknown): Promise<Obj> {
  const sent = isPlainObject(body) && Array.isArray(body.definitions) ? body.definitions : undefined;
  if (!sent) throw errors.mustBe('definitions', 'a list of {label, type}');
  const current = await localDefinitions(s, repoId);
  let next = Math.max(LOCAL_IDS_FROM, ...current.map((d) => Number(d.id) + 1));
  const local: Obj[] = [];
  for (const [i, d] of sent.entries()) {
    if (!isPlainObject(d) || d.global === true || (typeof d.id === 'number' && d.id < LOCAL_IDS_FROM)) continue;
    if (typeof d.label !== 'string' || !d.label.trim() || !KINDS.has(d.type)) {
      throw errors.invalidParam(`definitions/${i}`, 'needs a label and a type (rating, format or conservation_issue)');
    }
    const existing = current.find((c) => c.id === d.id);
    local.push({ id: existing ? existing.id : next++, label: d.label.trim(), type: d.type, global: false, readonly: false, position: i });
  }
  const json = JSON.stringify({ definitions: local });
  await s.db.transaction((trx) => replaceSetting(trx, { repoId, ...ATTRIBUTES }, json));
  return { status: 'Updated', uri: `/repositories/${repoId}/assessment_attribute_definitions` };
}
