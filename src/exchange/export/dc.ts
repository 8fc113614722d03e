/**
 * Simple Dublin Core from a mapping in the record type's schema, `x-archive.export.dc`: each of
 * the fifteen elements lists its sources in order, so a type dropped in with a mapping is exported
 * (and harvested by OAI as oai_dc) without code.
 *
 *   "dc": { "title": ["title"], "identifier": ["digital_object_id", "uri"], "creator": ["@creators"],
 *           "description": ["@notes:bioghist,prefercite", "@repository"], "type": ["digital_object_type"] }
 *
 * A source is a dotted path into the record (`lang_materials.language_and_script.language`: arrays
 * are walked), or a derived value: `@creators` (agents linked as creators), `@subjects` (subjects
 * and agents as subjects, terms joined " -- "), `@dates` (each date's text), `@extents`
 * ("number type"), `@notes:<type>,<type>` (the text of those notes), `@repository` ("Digital object
 * made available by <name>"), `@level` (level or other level), `@join:<field>,<field>` (the
 * fields joined with ".", as identifiers are), `@first:<field>,<field>` (the first that has a value).
 * `@creators`, `@subjects` and `@dates` take a filter: `@creators:ctb` (creators with those
 * relators), `@dates:copyright` (dates with those labels), `@subjects:geographic` (subjects with a
 * term of those types); `!` before the list keeps the others (`@creators:!ctb,pbl`); agents as
 * subjects count among `@subjects` unfiltered or negated. `@collection`: the resource a component
 * is part of ("title, identifier"). Qualified DC (`x-archive.export.dcterms`, oai_dcterms) uses
 * the same sources for DCMI terms.
 */
import type { Obj } from '../../json';
import type { XmlWriter } from '../xml';
import { type Archival, agentSortName, dateText, joinedFields, linkedVisible, mappedField, termsOf, noteText, plainText, visibleNotes } from './common';

export const DC_NS = 'http://purl.org/dc/elements/1.1/';
export const OAI_DC_NS = 'http://www.openarchives.org/OAI/2.0/oai_dc/';

/** The fifteen DCMES elements in the order simpledc lists them. */
export const DC_ELEMENTS = [
  'title', 'creator', 'subject', 'description', 'publisher', 'contributor', 'date', 'type', 'format', 'identifier',
  'source', 'language', 'relation', 'coverage', 'rights',
] as const;

export type DcMapping = Partial<Record<(typeof DC_ELEMENTS)[number], string[]>>;

function pathValues(value: unknown, path: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => pathValues(v, path));
  if (!path.length) return typeof value === 'object' ? [] : [String(value)];
  return pathValues((value as Obj)[path[0]], path.slice(1));
}

/** Whether `value` passes a derived value's filter: "" all, "a,b" those listed, "!a,b" the others. */
function passes(filter: string, values: unknown[]): boolean {
  if (!filter) return true;
  const negated = filter.startsWith('!');
  const listed = new Set((negated ? filter.slice(1) : filter).split(','));
  const hit = values.some((v) => listed.has(String(v)));
  return negated ? !hit : hit;
}

const DERIVED: Record<string, (record: Archival, includeUnpublished: boolean, arg: string) => string[]> = {
  creators: (r, u, relators) => (r.linked_agents ?? [])
    .filter((l) => l.role === 'creator' && passes(relators, [l.relator]))
    .map((l) => linkedVisible(l, u))
    .filter((a) => a !== undefined)
    .map((a) => agentSortName(a)),
  subjects: (r, u, termTypes) => [
    ...(r.subjects ?? []).map((l) => linkedVisible(l, u)).filter((s) => s !== undefined)
      .filter((s) => passes(termTypes, termsOf(s).map((t) => t.term_type)))
      .map((s) => termsOf(s).map((t) => t.term).join(' -- ')),
    ...(termTypes && !termTypes.startsWith('!') ? [] : r.linked_agents ?? []).filter((l) => l.role === 'subject')
      .map((l) => {
        const a = linkedVisible(l, u);
        return a ? [agentSortName(a), ...termsOf(l).map((t) => t.term)].join(' -- ') : '';
      }),
  ],
  dates: (r, _u, labels) => (r.dates ?? []).filter((d) => passes(labels, [d.label])).map((d) => dateText(d)),
  extents: (r) => (r.extents ?? []).map((e) => `${e.number ?? ''} ${String(e.extent_type ?? '').replace(/_/g, ' ')}`.trim()),
  notes: (r, u, types) => {
    const wanted = new Set(types.split(','));
    return visibleNotes(r, u).filter((n) => n.type !== undefined && wanted.has(n.type)).map((n) => plainText(noteText(n, u)));
  },
  repository: (r) => {
    const repo = r.repository?._resolved;
    return repo?.name ? [`Digital object made available by ${repo.name}${repo.url ? ` (${repo.url})` : ''}`] : [];
  },
  level: (r) => [r.level === 'otherlevel' ? r.other_level : r.level].filter((v) => v !== undefined),
  first: (r, _u, fields) => fields.split(',').map((f) => mappedField(r, f)).filter((v): v is string => v !== undefined && v !== '').slice(0, 1),
  join: (r, _u, fields) => [joinedFields(r, fields.split(','))],
  collection: (r) => {
    const resource = r.resource?._resolved;
    return resource ? [[resource.title, joinedFields(resource, ['id_0', 'id_1', 'id_2', 'id_3'])].filter(Boolean).join(', ')] : [];
  },
};

/** The values of each DC element for a record, in DC_ELEMENTS order (or `elements`), empty ones left out. */
export function dcValues(record: Archival, mapping: Record<string, string[] | undefined>, includeUnpublished: boolean, elements: readonly string[] = DC_ELEMENTS): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const element of elements) {
    for (const source of mapping[element] ?? []) {
      let values: string[];
      if (source.startsWith('@')) {
        const [name, arg = ''] = source.slice(1).split(':');
        const derive = DERIVED[name];
        if (!derive) throw new Error(`x-archive.export: unknown derived value ${source}`);
        values = derive(record, includeUnpublished, arg);
      } else values = pathValues(record, source.split('.'));
      for (const v of values) if (v && v.trim()) out.push([element, v]);
    }
  }
  return out;
}

/** The `/dublin_core` export: a `dc` root in the DC namespace (no schema declares one) holding the elements. */
export function writeDublinCore(w: XmlWriter, record: Archival, mapping: DcMapping, includeUnpublished: boolean): void {
  w.open('dc', {
    xmlns: DC_NS,
    'xmlns:dcterms': 'http://purl.org/dc/terms/',
    'xmlns:xlink': 'http://www.w3.org/1999/xlink',
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': `${DC_NS} https://dublincore.org/schemas/xmls/qdc/2006/01/06/dc.xsd http://purl.org/dc/terms/ https://dublincore.org/schemas/xmls/qdc/2006/01/06/dcterms.xsd`,
  });
  for (const [element, value] of dcValues(record, mapping, includeUnpublished)) w.leaf(element, value);
  w.close();
}

/** `oai_dc:dc` with `dc:` elements (OAI-PMH and the METS dmdSec with dmd=dc). */
export function writeOaiDc(w: XmlWriter, record: Archival, mapping: DcMapping, includeUnpublished: boolean, withSchemaLocation = true): void {
  w.open('oai_dc:dc', {
    'xmlns:oai_dc': OAI_DC_NS,
    'xmlns:dc': DC_NS,
    'xmlns:xsi': withSchemaLocation ? 'http://www.w3.org/2001/XMLSchema-instance' : undefined,
    'xsi:schemaLocation': withSchemaLocation ? `${OAI_DC_NS} http://www.openarchives.org/OAI/2.0/oai_dc.xsd` : undefined,
  });
  for (const [element, value] of dcValues(record, mapping, includeUnpublished)) w.leaf(`dc:${element}`, value);
  w.close();
}
