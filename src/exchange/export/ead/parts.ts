/**
 * How the finding-aid writers (EAD 2002, EAD3, PDF) read a resource and its components: which
 * parts show, a note's text, the agents and subjects as names and access points, the digital
 * objects and containers of the instances, the repository's address and agency code. The writers
 * differ only in what they write for each.
 */
import type {
  ArchivalObject, ContainerProfile, FileVersion, Instance, Repository, Resource, SubContainer, TopContainer,
} from '../../../../generated/types';
import type { Obj } from '../../../json';
import type { Services } from '../../../records/context';
import { recordQueries } from '../../../store/domain-reads';
import { type Agent, type AgentNameForm, isPublished, termsOf } from '../common';
import { AGENT_ELEMENTS, SUBJECT_ELEMENTS } from './tables';

export type { ArchivalObject, Repository, Resource };
/**
 * What the writers describe: a resource or a component, typed by their schemas (generated/types.ts),
 * so a field renamed there fails to compile here. Notes stay loosely typed: their union is read by
 * each note's type at run time.
 */
export type Described = Resource | ArchivalObject;

/** A record's notes, as the writers read them (by note type). */
export const notesOf = (r: Described): Obj[] => (r.notes ?? []) as Obj[];

/** What a resource and each component are loaded with. */
export const EAD_RESOLVE = ['subjects', 'linked_agents', 'digital_object', 'top_container', 'top_container::container_profile'];

export interface EadOptions {
  includeUnpublished: boolean;
  includeDaos: boolean;
  includeUris: boolean;
  numberedCs: boolean;
}

/** An enumeration value as ArchivesSpace's English labels show most of them ("linear_feet" → "Linear Feet"). */
export const humanise = (v: string) => v.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
export const present = (v: unknown) => v !== undefined && v !== null && v !== '';
export const identifierOf = (r: Resource) => [r.id_0, r.id_1, r.id_2, r.id_3].filter(present).join('.');
/** IDs are XML IDs: ArchivesSpace's "aspace_" prefix makes any ref_id start with a letter. */
export const prefixId = (id: unknown) => (present(id) && id !== 'null' ? `aspace_${String(id).replace(/[^\w.-]/g, '_')}` : undefined);

/** A part of a record (note, date, extent, subnote...) shows when published, or when unpublished content is asked for. */
export const shownIn = (o: EadOptions) => (x: Obj | undefined): boolean => !!x && (o.includeUnpublished || x.publish !== false);

/** The finding aid's status, unless it is marked unpublished and only published content is asked for. */
export function findingAidStatus(r: Resource, o: EadOptions) {
  return o.includeUnpublished || r.is_finding_aid_status_published !== false ? r.finding_aid_status : undefined;
}

/** The repository's ISO 3166 country and ISO 15511 agency code (country-org_code), where it has them. */
export function agencyOf(repo: Repository): { country?: string; code?: string } {
  const country = /^[A-Z]{2}$/.test(String(repo.country ?? '')) ? String(repo.country) : undefined;
  const code = country && present(repo.org_code) ? `${country}-${String(repo.org_code).replace(/[^A-Za-z0-9:/-]/g, '')}`.slice(0, 14) : undefined;
  return { country, code };
}

/** A note's own content as a list of texts (one text or several). */
export function noteContents(note: Obj): string[] {
  return (Array.isArray(note.content) ? note.content : present(note.content) ? [note.content] : []).map(String);
}

/** A note's text: its content and its published text subnotes (did notes and other one-part notes). */
export function noteContent(note: Obj, includeUnpublished: boolean): string {
  const parts = noteContents(note);
  for (const sub of note.subnotes ?? []) {
    if (sub.jsonmodel_type === 'note_text' && (includeUnpublished || sub.publish !== false) && present(sub.content)) parts.push(String(sub.content));
  }
  return parts.join(' ');
}

/** The repository's address lines (its agent representation's first contact), as ArchivesSpace's. */
export async function repositoryAddress(s: Services, repository: Repository): Promise<string[]> {
  const ref = repository.agent_representation?.ref;
  if (!ref) return [];
  const [row] = await recordQueries(s.db).getByUris([ref]);
  const contact = row ? JSON.parse(row.json).agent_contacts?.[0] : undefined;
  if (!contact) return [];
  const lines = [contact.address_1, contact.address_2, contact.address_3].filter(present).map(String);
  const place = [[contact.city, contact.region].filter(present).join(', '), contact.post_code].filter(present).join(' ').trim();
  if (place) lines.push(place);
  for (const t of contact.telephones ?? []) {
    if (!present(t.number)) continue;
    lines.push(`${t.number_type ? `${humanise(t.number_type)} Number` : 'Telephone'}: ${t.number}${t.ext ? ` (ext: ${t.ext})` : ''}`);
  }
  if (present(contact.email)) lines.push(String(contact.email));
  return lines;
}

/** A name's or term's texts, each with its kind (a subject's term type), in order. */
export type Terms = Array<[string, string | undefined]>;

/** A linked agent as the finding aids name it: origination (creators and sources) or an access point. */
export interface NamedAgent {
  element: string;
  role: string;
  relator?: string;
  name: string;
  source?: string;
  rules?: string;
  authority?: string;
  internal: boolean;
  terms: Terms;
}

/**
 * The shown linked agents of a record with the roles asked for: unpublished ones only when asked;
 * origination wants agents marked published, access points leave out only those marked unpublished
 * (as ArchivesSpace's serializers).
 */
export function namedAgents(r: Described, o: EadOptions, keep: (role: string) => boolean, only: 'published' | 'not-unpublished' = 'published'): NamedAgent[] {
  const out: NamedAgent[] = [];
  for (const link of r.linked_agents ?? []) {
    const agent: Agent | undefined = link._resolved;
    const hidden = only === 'published' ? agent?.publish !== true : agent?.publish === false;
    if (!agent || !keep(String(link.role)) || (!o.includeUnpublished && hidden)) continue;
    const name: AgentNameForm = agent.display_name ?? {};
    out.push({
      element: AGENT_ELEMENTS[agent.jsonmodel_type ?? ''] ?? 'name', role: String(link.role), relator: link.relator,
      name: String(name.sort_name ?? agent.title ?? ''), source: name.source, rules: name.rules, authority: name.authority_id,
      internal: agent.publish !== true,
      terms: termsOf(link).filter((t) => present(t.term)).map((t) => [String(t.term), t.term_type] as [string, string | undefined]),
    });
  }
  return out;
}

/** The agents named in origination: creators and sources. */
export const originators = (r: Described, o: EadOptions) => namedAgents(r, o, (role) => role === 'creator' || role === 'source');

/** The attributes of a name or term, whatever each format calls them. */
export interface NameAttributes {
  relator?: string;
  source?: string;
  rules?: string;
  authority?: string;
}

/** A controlled access point: a subject (by its first term's type) or an agent other than a creator. */
export interface AccessPoint extends NameAttributes {
  element: string;
  /** The agent's role (subjects have none). */
  role?: string;
  /** The heading's parts: a subject's terms, or an agent's name and then its terms. */
  terms: Terms;
}

/** A record's access points in order: subjects, then agents (a source without relator as fmo). */
export function accessPoints(r: Described, o: EadOptions): AccessPoint[] {
  const out: AccessPoint[] = [];
  for (const link of r.subjects ?? []) {
    const subject = link._resolved;
    const terms = subject ? termsOf(subject) : [];
    const element = terms.length ? SUBJECT_ELEMENTS[terms[0].term_type] : undefined;
    if (!subject || !element) continue;
    out.push({ element, source: subject.source, authority: subject.authority_id, terms: terms.map((t) => [String(t.term), t.term_type] as [string, string | undefined]) });
  }
  for (const a of namedAgents(r, o, (role) => role !== 'creator', 'not-unpublished')) {
    out.push({
      element: a.element, role: a.role, relator: a.relator ?? (a.role === 'source' ? 'fmo' : undefined), source: a.source, rules: a.rules,
      authority: a.authority, terms: [[a.name, undefined], ...a.terms],
    });
  }
  return out;
}

/** The digital objects of a record's instances as the finding aids show them (include_daos). */
export function shownDigitalObjects(r: Described, o: EadOptions) {
  const out = [];
  for (const inst of r.instances ?? []) {
    const dobj = inst.digital_object?._resolved;
    if (!dobj || dobj.suppressed === true || !(o.includeUnpublished || dobj.publish !== false)) continue;
    const versions = (dobj.file_versions ?? []).filter((fv) => fv.publish === true || o.includeUnpublished);
    const date = dobj.dates?.[0];
    const when = !date ? '' : date.expression ?? (date.begin ? `${date.begin}${date.end && date.end !== date.begin ? `-${date.end}` : ''}` : '');
    out.push({
      inst, dobj, versions, description: `${dobj.title ?? ''}${when ? `: ${when}` : ''}`,
      /** audience="internal" for an unpublished digital object or file version. */
      internal: (fv?: FileVersion) => (!isPublished(dobj) || (fv && fv.publish !== true) ? 'internal' : undefined),
    });
  }
  return out;
}

/** The instances held in a top container: the instance, its sub-container, the container and its profile. */
export function containedInstances(r: Described): Array<{ inst: Instance; sub: SubContainer; top: TopContainer; profile?: ContainerProfile }> {
  const out = [];
  for (const inst of r.instances ?? []) {
    const sub = inst.sub_container;
    const top = sub?.top_container?._resolved;
    if (sub && top) out.push({ inst, sub, top, profile: top.container_profile?._resolved });
  }
  return out;
}

/** A child (2) or grandchild (3) level of a sub-container. */
export interface SubLevel {
  n: 2 | 3;
  type: string;
  indicator?: string;
  barcode?: string;
}

/** The child and grandchild levels a sub-container fills. */
export function subLevels(sub: SubContainer): SubLevel[] {
  const levels: SubLevel[] = [
    { n: 2, type: sub.type_2 ?? '', indicator: sub.indicator_2, barcode: sub.barcode_2 },
    { n: 3, type: sub.type_3 ?? '', indicator: sub.indicator_3 },
  ];
  return levels.filter((l) => present(l.type));
}
