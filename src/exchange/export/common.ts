/**
 * What the record exporters of this folder share: loading one record for export (with the links
 * it names resolved), the reply that streams an XML document, the `.../metadata` answer with
 * ArchivesSpace's file names, and small readers of the record model (names, dates, notes).
 */
import type {
  AgentCorporateEntity, AgentFamily, AgentPerson, AgentSoftware, AnyOf, ArchivalObject, Date as DateSubrecord, DigitalObject,
  DigitalObjectComponent, NameCorporateEntity, NameFamily, NamePerson, NameSoftware, NoteLangmaterial, Resource, Term,
} from '../../../generated/types';
import { errors } from '../../errors';
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import type { Registry } from '../../registry';
import { decorateRecords, uriLoader } from '../../records/load';
import { resolveLinks } from '../../records/resolve';
import { recordQueries } from '../../store/domain-reads';
import { XmlWriter } from '../xml';

/**
 * What the description exports (MARC 21, MODS, Dublin Core, METS, OAI) take: any archival record
 * type, read through its schema's interface (generated/types.ts) so a renamed field fails tsc
 * here.
 */
export type Archival = AnyOf<Resource | ArchivalObject | DigitalObject | DigitalObjectComponent>;
/** A note of an archival record or of its language materials: any note type's fields. */
export type ArchivalNote = AnyOf<NonNullable<Archival['notes']>[number] | NoteLangmaterial>;
/** A part of a multi-part note (text, lists, chronology...). */
type Subnote = AnyOf<NonNullable<ArchivalNote['subnotes']>[number]>;
/** An agent of any type, as the agent exports and the linked agents of a record read it. */
export type Agent = AnyOf<AgentPerson | AgentFamily | AgentCorporateEntity | AgentSoftware>;
/** A name form of any agent type. */
export type AgentNameForm = AnyOf<NamePerson | NameFamily | NameCorporateEntity | NameSoftware>;
export type { DateSubrecord };

/** A streamed answer as the endpoint table takes it (src/records/endpoint Reply), without importing that layer. */
export interface StreamedXml {
  contentType: string;
  stream: (send: (chunk: string | Buffer) => Promise<void>) => Promise<void>;
}

/**
 * One record as an exporter reads it: served JSON, hook-computed fields, and the links in
 * `resolve` carrying `_resolved`. Unknown ids, records of another repository and suppressed
 * records answer 404: an export never shows a suppressed record, whoever asks.
 */
export async function loadForExport(
  s: Services, typeName: string, id: number, repoId: number | undefined, resolve: string[] = [],
): Promise<Obj> {
  const type = s.registry.type(typeName);
  const row = await recordQueries(s.db).get(typeName, id);
  const inRepo = type.scope !== 'repository' || row?.repo_id === repoId;
  if (!row || !inRepo || row.suppressed || row.hidden) throw errors.notFound(type.model);
  const record = JSON.parse(row.json) as Obj;
  await decorateRecords(s, [record]);
  if (resolve.length) await resolveLinks([record], resolve, uriLoader(s));
  return record;
}

/** A whole XML document written straight to the client as it is produced. */
export function xmlReply(write: (w: XmlWriter) => Promise<void> | void): StreamedXml {
  return {
    contentType: 'application/xml',
    stream: async (send) => {
      const w = new XmlWriter(send);
      w.declaration();
      await write(w);
      await w.end();
    },
  };
}

/**
 * ArchivesSpace's export file names: `<id>_<UTC time as 20210218_182435_UTC>_<suffix>`, spaces
 * to underscores and anything but letters, digits, `_` and `.` dropped.
 */
export function exportFilename(id: string, suffix: string, now = new Date()): string {
  const utc = now.toISOString().replace(/\.\d+Z$/, '').replace('T', ' ');
  return `${id}_${utc} UTC_${suffix}`.replace(/\s+/g, '_').replace(/[^0-9A-Za-z_.]/g, '');
}

/** The `.../metadata` answer: the file name and media type a client saves the export under. */
export function exportMetadata(filename: string, mimetype = 'application/xml') {
  return { filename, mimetype };
}

/** `publish` as ArchivesSpace reads it: only `true` counts. */
export const isPublished = (x: { publish?: boolean } | undefined): boolean => x?.publish === true;

/** The name an agent goes by: the display name, else its first name form. */
export function agentName(agent: Agent): AgentNameForm {
  const names: AgentNameForm[] = agent.names ?? [];
  return agent.display_name ?? names.find((n) => n.is_display_name) ?? names.find((n) => n.authorized) ?? names[0] ?? {};
}

/** The sort name of an agent's display name, or what the parts add up to when it has none. */
export function agentSortName(agent: Agent): string {
  const n = agentName(agent);
  if (n.sort_name) return n.sort_name;
  return [n.primary_name ?? n.family_name ?? n.software_name, n.rest_of_name, n.subordinate_name_1, n.subordinate_name_2]
    .filter(Boolean).join(', ');
}

/**
 * A field a schema's export mapping names (`x-archive.export.<format>`): read by name, as the
 * mapping is data; the fields the code itself reads go through the interfaces.
 */
export function mappedField(record: object, field: string): string | undefined {
  const value: unknown = (record as Obj)[field];
  return value === undefined || value === null ? undefined : String(value);
}

/** The mapped fields that have a value, joined with "." (identifiers: id_0.id_1...). */
export function joinedFields(record: object, fields: string[]): string {
  return fields.map((f) => mappedField(record, f)).filter((v) => v !== undefined && v !== '').join('.');
}

/**
 * The terms of a subject (or of an agent link): the schema allows a term's URI in place of the
 * term, which a stored record never holds; only embedded terms have words to show.
 */
export function termsOf(holder: { terms?: Array<string | Term> }): Term[] {
  return (holder.terms ?? []).filter((t): t is Term => typeof t === 'object');
}

/** A date's text: its expression, else begin or "begin - end". */
export function dateText(date: DateSubrecord, joiner = ' - '): string {
  if (date.expression) return date.expression;
  if (date.end && date.end !== date.begin) return `${date.begin ?? ''}${joiner}${date.end}`;
  return date.begin ?? '';
}

/** Inline markup (EAD tags typed into notes) reduced to its text, for formats that carry plain text. */
export function plainText(text: string): string {
  // Inline tags (emph, title, extref) sit inside words' flow; block tags (p, lb, item...) part them.
  return text
    .replace(/<\/?(p|lb|list|item|chronitem|defitem|head|blockquote)\b[^>]*>/g, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/**
 * The text of a note: its own content and its text sub-notes (published ones, unless unpublished
 * content is wanted), as one string.
 */
export function noteText(note: ArchivalNote, includeUnpublished: boolean): string {
  const parts: string[] = [];
  for (const c of Array.isArray(note.content) ? note.content : note.content ? [note.content] : []) parts.push(String(c));
  const subnotes: Subnote[] = note.subnotes ?? [];
  for (const sub of subnotes) {
    if (sub.jsonmodel_type !== 'note_text') continue;
    if (sub.publish === false && !includeUnpublished) continue;
    if (sub.content) parts.push(String(sub.content));
  }
  return parts.join(' ').trim();
}

/** Notes to export: published ones, or all of them when unpublished content is asked for and allowed. */
export function visibleNotes(record: Archival, includeUnpublished: boolean): ArchivalNote[] {
  const notes: ArchivalNote[] = record.notes ?? [];
  return notes.filter((n) => includeUnpublished || n.publish !== false);
}

/** A linked record's target, when it was resolved and may be shown. */
export function linkedVisible<T extends { publish?: boolean }>(link: { _resolved?: T }, includeUnpublished: boolean): T | undefined {
  const target = link._resolved;
  if (!target) return undefined;
  if (!includeUnpublished && target.publish !== true) return undefined;
  return target;
}

/** A type's export mapping for a format (`x-archive.export.<format>`), when its schema has one. */
export function exportMapping<T>(registry: Registry, typeName: string, format: string): T | undefined {
  return registry.types[typeName]?.export?.[format] as T | undefined;
}

/** Record types exported in `format` (their schema maps it), with their URI plural (people, families...). */
export function typesExportedAs(registry: Registry, format: string): Array<{ name: string; plural: string }> {
  return Object.values(registry.types)
    .filter((t) => t.kind === 'record' && t.export?.[format] && t.plural)
    .map((t) => ({ name: t.name, plural: t.plural! }));
}
