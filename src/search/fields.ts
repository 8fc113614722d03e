/**
 * The search document's field catalogue: how each field is indexed, which follows the
 * reference's Solr schema (search.md (e) Analysis). One place decides a field's kind, and both
 * the query planner and every index adapter read it.
 */

export type FieldKind = 'text' | 'string' | 'collated' | 'boolean' | 'int' | 'date';

/** Tokenised, case- and accent-insensitive fields (Solr text_general / text_ws). */
const TEXT_FIELDS = new Set([
  'fullrecord', 'fullrecord_published', 'title', 'title_ws', 'identifier_ws', 'four_part_id', 'notes', 'notes_published',
  'subjects_text', 'creators_text', 'agents_text', 'dates', 'extents', 'display_string', 'finding_aid_title',
  'finding_aid_filing_title', 'parent_title', 'processors', 'processing_funding_source', 'summary',
]);

/** Whole-value, case- and accent-insensitive, numeric-aware fields (Solr sort_icu and sort_string). */
const COLLATED_FIELDS = new Set(['identifier', 'title_sort', 'identifier_sort', 'year_sort', 'repo_sort']);

const BOOLEAN_FIELDS = new Set([
  'publish', 'suppressed', 'system_generated', 'restrictions_apply', 'access_restrictions', 'use_restrictions',
  'restrictions', 'is_slug_auto', 'temporary', 'is_user',
]);

const INT_FIELDS = new Set(['years', 'accession_date_year']);

const DATE_FIELDS = new Set(['create_time', 'system_mtime', 'user_mtime']);

/** Fields every document may carry (search.md (f) Common fields), besides the per-type ones. */
const COMMON_FIELDS = [
  'id', 'uri', 'primary_type', 'types', 'json', 'repository', 'created_by', 'last_modified_by', 'external_id',
  'ancestors', 'langcode', 'subjects', 'subject_uris', 'agents', 'agent_uris', 'published_agents',
  'published_agent_uris', 'creators', 'level', 'used_within_repository', 'used_within_published_repository',
  'rights_statement_agent_uris', 'exclude_by_default', 'score',
];

const DYNAMIC_SUFFIXES: Array<[RegExp, FieldKind]> = [
  [/_u_(utext|stext|typeahead_utext)$/, 'text'],
  [/_u_(sbool|ubool)$/, 'boolean'],
  [/(_int_sort|_u_sint|_u_uint)$/, 'int'],
  [/_u_(sdate|udate|sortdate|ssortdate)$/, 'date'],
  [/_u_(icusort|sort|ssort)$/, 'collated'],
  [/(_u_sstr|_u_ustr|_enum_s)$/, 'string'],
];

/** Fields the copy-field rules fill from another field (search.md (e) Copy fields). */
export const COPY_FIELDS: Record<string, string> = {
  title: 'title_ws',
  identifier: 'identifier_ws',
  subjects: 'subjects_text',
  agents: 'agents_text',
  creators: 'creators_text',
};

/** Fields stored in the index but not returned in results (search.md (c) results[] entries). */
export const UNRETURNED_FIELDS = new Set(['fullrecord', 'fullrecord_published', 'title_sort', 'repo_sort', 'year_sort']);

function kindOf(field: string): FieldKind {
  if (TEXT_FIELDS.has(field)) return 'text';
  if (COLLATED_FIELDS.has(field)) return 'collated';
  if (BOOLEAN_FIELDS.has(field)) return 'boolean';
  if (INT_FIELDS.has(field)) return 'int';
  if (DATE_FIELDS.has(field)) return 'date';
  for (const [pattern, kind] of DYNAMIC_SUFFIXES) if (pattern.test(field)) return kind;
  return 'string';
}

export class FieldCatalogue {
  private readonly known = new Set<string>([
    ...TEXT_FIELDS, ...COLLATED_FIELDS, ...BOOLEAN_FIELDS, ...INT_FIELDS, ...DATE_FIELDS, ...COMMON_FIELDS,
    ...Object.values(COPY_FIELDS),
  ]);

  /** `mapped` are the per-type fields the schemas' search mappings declare. */
  constructor(mapped: Iterable<string> = []) {
    for (const f of mapped) this.known.add(f);
  }

  /** Kinds asked for before: a document's every field is asked for, and a suffix costs up to six patterns. */
  private readonly kinds = new Map<string, FieldKind>();

  kind(field: string): FieldKind {
    let kind = this.kinds.get(field);
    if (kind === undefined) {
      kind = kindOf(field);
      // Bounded: queries may name any field.
      if (this.kinds.size < 10_000) this.kinds.set(field, kind);
    }
    return kind;
  }

  /** Unknown names are not fields: `foo:bar` is then searched as the words "foo bar" (edismax). */
  isField(field: string): boolean {
    return this.known.has(field) || DYNAMIC_SUFFIXES.some(([p]) => p.test(field));
  }

  /** Whether the field's values are searched as words: text fields, and collated ones ("SC 0123" is found by SC and by 0123). */
  searchedAsWords(field: string): boolean {
    const kind = this.kind(field);
    return kind === 'text' || kind === 'collated';
  }

  /** The fields known ahead whose values are searched as words, in name order. */
  wordFields(): string[] {
    return [...this.known].filter((f) => this.searchedAsWords(f)).sort();
  }

  /** A field one can sort on: single-valued and not tokenised (search.md (f) Sortable fields). */
  isSortable(field: string): boolean {
    if (field === 'score') return true;
    if (!this.isField(field) || ['json', 'summary', 'types', 'years', 'notes', 'subjects', 'langcode'].includes(field)) return false;
    return true;
  }
}

/** Sort key of collated fields: case and accents folded, digit runs padded so "Box 2" < "Box 10". */
export function collationKey(value: string): string {
  return foldText(value).replace(/\d+/g, (d) => d.replace(/^0+(?=\d)/, '').padStart(12, '0'));
}

/** Lower-case with accents removed: the folding text and collated fields share. */
export function foldText(value: string): string {
  // Plain ASCII (most values) has nothing to decompose.
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(value)) return value.toLowerCase();
  return value.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

/** The reference's title_sort cleaning: tags dropped, "-" as space, only letters, digits, "_" and spaces kept. */
export function cleanTitle(value: string): string {
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/-/g, ' ')
    .replace(/[^\p{L}\p{N}\s_]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}
