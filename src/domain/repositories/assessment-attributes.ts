import { errors } from '../../errors';
import type { Obj } from '../../json';
import { isPlainObject } from '../../json';
import type { Services } from '../../records/context';
import { ATTRIBUTE_SETTING, type AttributeKind, attributeDefinitionsOf, localAttributeDefinitions } from '../../store/assessment-attributes';
import { replaceSetting } from '../../store/repositories';
import { writeTransaction } from '../../records/context';

type Kind = AttributeKind;
const KINDS = new Set<Kind>(['rating', 'format', 'conservation_issue']);
const LOCAL_IDS_FROM = 1000;
const ATTRIBUTES = ATTRIBUTE_SETTING;
const localDefinitions = (s: Services, repoId: number) => localAttributeDefinitions(s.db, repoId);

/** GET /repositories/:repo_id/assessment_attribute_definitions: the installation's and the repository's own. */
export async function attributeDefinitions(s: Services, repoId: number): Promise<Obj> {
  return { definitions: await attributeDefinitionsOf(s.db, repoId), jsonmodel_type: 'assessment_attribute_definitions' };
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
  await writeTransaction(s, (trx) => replaceSetting(trx, { repoId, ...ATTRIBUTES }, json));
  return { status: 'Updated', uri: `/repositories/${repoId}/assessment_attribute_definitions` };
}
