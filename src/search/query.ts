/**
 * One query AST for every index adapter, built from `q` (Lucene/Solr syntax, parsed by the
 * `lucene` package) and from advanced query objects (`aq`, `filter`), with the edismax semantics
 * search.md (e) lists: default operator AND, lowercase and/or are words, unknown field prefixes
 * are text, `*:*` and `field:*`.
 */
import lucene from 'lucene';
import { ApiError, errors } from '../errors';
import type { FieldCatalogue } from './fields';

export type Query =
  | { kind: 'all' }
  | { kind: 'none' }
  | { kind: 'and'; items: Query[] }
  | { kind: 'or'; items: Query[] }
  | { kind: 'not'; item: Query }
  /** Tokenised match on a text field; `prefix` for a trailing `*`, `pattern` for other wildcards. */
  | { kind: 'text'; field: string; value: string; wildcard?: 'prefix' | 'pattern' }
  /** Whole-value match on a non-text field (`wildcard`: value is a * / ? pattern). */
  | { kind: 'term'; field: string; value: string; wildcard?: boolean }
  | { kind: 'exists'; field: string }
  | { kind: 'range'; field: string; from?: string; to?: string; fromInclusive: boolean; toInclusive: boolean };

export const ALL: Query = { kind: 'all' };

export function and(items: Query[]): Query {
  const flat = items.flatMap((q) => (q.kind === 'and' ? q.items : [q])).filter((q) => q.kind !== 'all');
  if (flat.some((q) => q.kind === 'none')) return { kind: 'none' };
  if (!flat.length) return ALL;
  return flat.length === 1 ? flat[0] : { kind: 'and', items: flat };
}

export function or(items: Query[]): Query {
  const flat = items.flatMap((q) => (q.kind === 'or' ? q.items : [q])).filter((q) => q.kind !== 'none');
  if (flat.some((q) => q.kind === 'all')) return ALL;
  if (!flat.length) return { kind: 'none' };
  return flat.length === 1 ? flat[0] : { kind: 'or', items: flat };
}

export function not(item: Query): Query {
  return { kind: 'not', item };
}

export function term(field: string, value: string): Query {
  return { kind: 'term', field, value };
}

/** Parse-time options: which field bare words search. */
export interface ParseOptions {
  fields: FieldCatalogue;
  defaultField: string;
}

export const MAX_QUERY_LENGTH = 10_000;


// ---------------------------------------------------------------------------------------------
// q: Lucene syntax

type Occur = 'must' | 'should' | 'must_not';

/** Text of a term with Lucene escapes removed. */
function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/** True when the raw term holds an unescaped `*` or `?`. */
function hasWildcard(raw: string): boolean {
  return /(^|[^\\])(\\\\)*[*?]/.test(raw);
}

const DATE_MATH = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z|NOW)((?:[+-]\d+[A-Z]+|\/[A-Z]+)*)$/;

/** Resolves Solr date math (`2020-03-01T00:00:00Z+1MONTH-1MILLISECOND`, `NOW/DAY`) to an ISO instant. */
export function resolveDateMath(value: string): string | undefined {
  const m = DATE_MATH.exec(value);
  if (!m) return undefined;
  const d = m[1] === 'NOW' ? new Date() : new Date(m[1]);
  if (Number.isNaN(d.getTime())) return undefined;
  for (const op of m[2].match(/[+-]\d+[A-Z]+|\/[A-Z]+/g) ?? []) {
    if (op.startsWith('/')) {
      const unit = op.slice(1);
      if (unit.startsWith('YEAR')) d.setUTCMonth(0, 1);
      if (unit.startsWith('MONTH')) d.setUTCDate(1);
      if (/^(YEAR|MONTH|DAY)/.test(unit)) d.setUTCHours(0, 0, 0, 0);
      continue;
    }
    const [, amount, unit] = /^([+-]\d+)([A-Z]+)$/.exec(op)!;
    const n = Number(amount);
    if (unit.startsWith('YEAR')) d.setUTCFullYear(d.getUTCFullYear() + n);
    else if (unit.startsWith('MONTH')) d.setUTCMonth(d.getUTCMonth() + n);
    else if (unit.startsWith('DAY') || unit === 'DATE') d.setUTCDate(d.getUTCDate() + n);
    else if (unit.startsWith('HOUR')) d.setUTCHours(d.getUTCHours() + n);
    else if (unit.startsWith('MINUTE')) d.setUTCMinutes(d.getUTCMinutes() + n);
    else if (unit.startsWith('SECOND')) d.setUTCSeconds(d.getUTCSeconds() + n);
    else if (unit.startsWith('MILLI')) d.setUTCMilliseconds(d.getUTCMilliseconds() + n);
    else return undefined;
  }
  return d.toISOString();
}

/** A node of the lucene package's parse tree (the package ships no types). */
type LuceneNode = Obj;

class LuceneTranslator {
  constructor(private readonly o: ParseOptions, private readonly param: string) {}

  translate(text: string): Query {
    if (!text.trim()) return { kind: 'none' };
    let ast: LuceneNode;
    try {
      ast = lucene.parse(text) as LuceneNode;
    } catch (err) {
      const e = err as { message: string; location?: { start: { column: number } } };
      const where = e.location ? ` at column ${e.location.start.column}` : '';
      throw errors.querySyntax(this.param, where, e.message);
    }
    return this.node(ast, undefined);
  }

  /** A boolean sequence (the package nests it to the right) flattened into clauses with occurrences. */
  private node(node: LuceneNode, field: string | undefined): Query {
    if (node.term !== undefined || node.term_min !== undefined) return this.clause(node, field).query;
    const clauses: Array<{ query: Query; occur: Occur; explicit: boolean }> = [];
    const visit = (n: LuceneNode, conj: string | null) => {
      if (n.left !== undefined && !n.parenthesized && n.term === undefined) {
        visit(n.left, conj);
        if (n.right !== undefined) visit(n.right, n.operator);
        return;
      }
      const { query, occur: prefixOccur } = this.clause(n, field);
      const op = (conj ?? '<implicit>').toUpperCase();
      const prev = clauses[clauses.length - 1];
      if (prev && (op === 'AND' || op === '&&' || op === 'AND NOT') && prev.occur !== 'must_not') prev.occur = 'must';
      if (prev && (op === 'OR' || op === '||' || op === 'OR NOT') && prev.occur !== 'must_not' && !prev.explicit) prev.occur = 'should';
      let occur: Occur = 'must';
      if (prefixOccur) occur = prefixOccur;
      else if (op === 'NOT' || op === 'AND NOT' || op === 'OR NOT' || op === '!') occur = 'must_not';
      else if (op === 'OR' || op === '||') occur = 'should';
      clauses.push({ query, occur, explicit: prefixOccur !== undefined });
    };
    visit(node, null);
    const must = clauses.filter((c) => c.occur === 'must').map((c) => c.query);
    const should = clauses.filter((c) => c.occur === 'should').map((c) => c.query);
    const mustNot = clauses.filter((c) => c.occur === 'must_not').map((c) => c.query);
    const positive = must.length ? and(must) : should.length ? or(should) : ALL;
    return and([positive, ...mustNot.map(not)]);
  }

  private clause(n: LuceneNode, groupField: string | undefined): { query: Query; occur?: Occur } {
    let field: string | undefined = n.field && n.field !== '<implicit>' ? String(n.field) : groupField;
    let prefix: string | null = n.prefix ?? null;
    // The package reads `-field:x` as a field named "-field".
    if (field && /^[+-]/.test(field) && n.field !== '<implicit>') {
      prefix = field[0];
      field = field.slice(1);
    }
    const occur: Occur | undefined = prefix === '-' || prefix === '!' ? 'must_not' : prefix === '+' ? 'must' : undefined;
    if (n.parenthesized || (n.left !== undefined && n.term === undefined && n.term_min === undefined)) {
      const inner = { ...n, parenthesized: false, field: undefined };
      return { query: this.node(inner, field), occur };
    }
    if (n.term_min !== undefined) return { query: this.range(field, n), occur };
    return { query: this.leaf(field, String(n.term), !!n.quoted, !!n.regex), occur };
  }

  private leaf(field: string | undefined, raw: string, quoted: boolean, regex: boolean): Query {
    const { fields, defaultField } = this.o;
    if (regex) throw errors.regexUnsupported(this.param, raw);
    if (field === '*' && raw === '*') return ALL;
    if (field !== undefined && field !== '*' && !fields.isField(field)) {
      // edismax: an unknown field prefix is not a field; the whole text is searched as words.
      return this.textLeaf(defaultField, `${unescape(field)} ${quoted ? raw : unescape(raw)}`, false);
    }
    const target = field === undefined || field === '*' ? defaultField : field;
    if (!quoted && raw === '*') return target === defaultField && field === undefined ? ALL : { kind: 'exists', field: target };
    const kind = fields.kind(target);
    if (kind === 'text') return this.textLeaf(target, quoted ? raw : raw, !quoted && hasWildcard(raw));
    const value = quoted ? raw : raw;
    if (!quoted && hasWildcard(raw)) return { kind: 'term', field: target, value, wildcard: true };
    return { kind: 'term', field: target, value: unescape(value) };
  }

  private textLeaf(field: string, raw: string, wildcard: boolean): Query {
    if (!wildcard) return { kind: 'text', field, value: unescape(raw) };
    const prefixOnly = /^[^*?]+\*$/.test(raw) && !hasWildcard(raw.slice(0, -1));
    return { kind: 'text', field, value: prefixOnly ? unescape(raw.slice(0, -1)) : raw, wildcard: prefixOnly ? 'prefix' : 'pattern' };
  }

  private range(field: string | undefined, n: LuceneNode): Query {
    const target = field ?? this.o.defaultField;
    const bound = (v: string) => (v === '*' ? undefined : unescape(v));
    const inclusive = String(n.inclusive ?? 'both');
    return {
      kind: 'range',
      field: target,
      from: bound(String(n.term_min)),
      to: bound(String(n.term_max)),
      fromInclusive: inclusive === 'both' || inclusive === 'left',
      toInclusive: inclusive === 'both' || inclusive === 'right',
    };
  }
}

/** `q` text → query; a syntax error is a 400 naming the parameter. */
export function parseLucene(text: string, o: ParseOptions, param = 'q'): Query {
  if (text.length > MAX_QUERY_LENGTH) throw errors.searchParamTooLong(param, MAX_QUERY_LENGTH);
  return new LuceneTranslator(o, param).translate(text);
}

// ---------------------------------------------------------------------------------------------
// aq / filter: advanced query objects (search.md (d))

/** Advanced field names → index fields (search.md (d) Field-name mapping). */
const ADVANCED_FIELDS: Record<string, string | null> = {
  keyword: null,
  title: 'title',
  identifier: 'identifier',
  creators: 'creators_text',
  notes: 'notes',
  subjects: 'subjects_text',
  published: 'publish',
  suppressed: 'suppressed',
  created_by: 'created_by',
  last_modified_by: 'last_modified_by',
  create_time: 'create_time',
  user_mtime: 'user_mtime',
};

const LEAF_TYPES = ['field_query', 'date_field_query', 'boolean_field_query', 'range_query'];

export interface AdvancedOptions extends ParseOptions {
  /** `filter` makes every field_query literal (search.md (d) Context differences). */
  literal: boolean;
  param: string;
  /** The field `notes` searches (notes_published for the public user). */
  notesField?: string;
}

import type { Obj } from '../json';

function blank(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** Pads 2020 → 2020-01-01 and 2020-03 → 2020-03-01; the instant is midnight UTC of that day. */
function dateStart(value: string, param: string): Date {
  const m = /^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?$/.exec(value.trim());
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2] ?? 1) - 1, Number(m[3] ?? 1))) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw errors.notADate(param, value);
  return d;
}

function addUnit(d: Date, unit: string, n: number): Date {
  const r = new Date(d.getTime());
  if (unit === 'year') r.setUTCFullYear(r.getUTCFullYear() + n);
  else if (unit === 'month') r.setUTCMonth(r.getUTCMonth() + n);
  else r.setUTCDate(r.getUTCDate() + n);
  return r;
}

class AdvancedTranslator {
  constructor(private readonly o: AdvancedOptions) {}

  translate(aq: unknown): Query {
    if (typeof aq !== 'object' || aq === null || Array.isArray(aq)) throw this.bad('must be a JSON object (an advanced_query)');
    const query = (aq as Obj).query;
    if (blank(query)) return ALL;
    return this.node(query, 'query', 0);
  }

  private bad(message: string): ApiError {
    return errors.badSearchParam(this.o.param, message);
  }

  private node(n: unknown, path: string, depth: number): Query {
    if (depth > 64) throw this.bad('is nested more than 64 levels deep');
    if (typeof n !== 'object' || n === null || Array.isArray(n)) throw this.bad(`${path} must be an object`);
    const node = n as Obj;
    if (Array.isArray(node.subqueries)) return this.boolean(node, path, depth);
    if (blank(node.jsonmodel_type)) throw this.bad(`${path} has no jsonmodel_type; add one of boolean_query, ${LEAF_TYPES.join(', ')}`);
    if (!LEAF_TYPES.includes(node.jsonmodel_type)) throw this.bad(`${path}: unknown query type ${JSON.stringify(node.jsonmodel_type)}`);
    if (typeof node.field !== 'string' || !node.field) throw this.bad(`${path}.field is required`);
    const leaf = this.leaf(node, path);
    return leaf;
  }

  private boolean(node: Obj, path: string, depth: number): Query {
    const subs = (node.subqueries as unknown[]).map((s, i) => this.node(s, `${path}.subqueries[${i}]`, depth + 1));
    if (!subs.length) throw this.bad(`${path}.subqueries must hold at least one query`);
    const op = String(node.op ?? '').toUpperCase();
    if (op === 'AND') return and(subs);
    if (op === 'OR') return or(subs);
    // As the original: NOT with one subquery only groups it; with several, the rest are excluded.
    if (op === 'NOT') return subs.length === 1 ? subs[0] : and([subs[0], ...subs.slice(1).map(not)]);
    throw this.bad(`${path}.op must be AND, OR or NOT`);
  }

  private field(name: string): string | null {
    if (name === 'notes' && this.o.notesField) return this.o.notesField;
    return name in ADVANCED_FIELDS ? ADVANCED_FIELDS[name] : name;
  }

  private leaf(node: Obj, path: string): Query {
    const field = this.field(node.field);
    const negated = node.negated === true || node.negated === 'true';
    const maybeNot = (q: Query) => (negated ? not(q) : q);
    switch (node.jsonmodel_type) {
      case 'field_query': {
        if (node.comparator === 'empty') {
          const exists: Query = field === null ? ALL : { kind: 'exists', field };
          return negated ? exists : not(exists);
        }
        if (!blank(node.comparator) && node.comparator !== 'contains') throw this.bad(`${path}.comparator must be contains or empty`);
        const value = blank(node.value) ? '' : String(node.value);
        if (!value) return maybeNot(ALL);
        const literal = this.o.literal || node.literal === true || node.literal === 'true';
        const target = field ?? this.o.defaultField;
        if (literal) {
          const kind = this.o.fields.isField(target) ? this.o.fields.kind(target) : 'text';
          return maybeNot(kind === 'text' ? { kind: 'text', field: target, value } : { kind: 'term', field: target, value });
        }
        // Non-literal values are query syntax (colons become spaces), parsed like q within the field.
        const text = value.replace(/:/g, ' ');
        const parsed = parseLucene(field === null ? `(${text})` : `${field}:(${text})`, this.o, this.o.param);
        return maybeNot(parsed);
      }
      case 'date_field_query': {
        const f = field ?? 'create_time';
        if (node.comparator === 'empty') {
          const exists: Query = { kind: 'exists', field: f };
          return negated ? exists : not(exists);
        }
        const precision = String(node.precision ?? '');
        if (!['day', 'month', 'year'].includes(precision)) throw this.bad(`${path}.precision must be day, month or year`);
        if (blank(node.value)) throw this.bad(`${path}.value is required`);
        const t = dateStart(String(node.value), this.o.param);
        const iso = (d: Date) => d.toISOString();
        const before = (d: Date) => new Date(d.getTime() - 1);
        let range: Query;
        if (node.comparator === 'greater_than') range = { kind: 'range', field: f, from: iso(addUnit(t, precision, 1)), fromInclusive: true, toInclusive: true };
        else if (node.comparator === 'lesser_than') range = { kind: 'range', field: f, to: iso(before(t)), fromInclusive: true, toInclusive: true };
        else if (node.comparator === 'equal') range = { kind: 'range', field: f, from: iso(t), to: iso(before(addUnit(t, precision, 1))), fromInclusive: true, toInclusive: true };
        else throw this.bad(`${path}.comparator must be greater_than, lesser_than, equal or empty`);
        return maybeNot(range);
      }
      case 'boolean_field_query': {
        // A flag is true or false; any other value is matched as given (primary_type = resource), as the original's field:value.
        const raw = node.value === undefined ? 'true' : String(node.value);
        const value = /^(true|false)$/i.test(raw) ? raw.toLowerCase() : raw;
        return maybeNot({ kind: 'term', field: field ?? 'publish', value });
      }
      default: {
        // range_query has no `negated` (search.md (d)): a sent one is ignored.
        return {
          kind: 'range',
          field: field ?? this.o.defaultField,
          from: blank(node.from) || node.from === '*' ? undefined : String(node.from),
          to: blank(node.to) || node.to === '*' ? undefined : String(node.to),
          fromInclusive: true,
          toInclusive: true,
        };
      }
    }
  }
}

/** `aq` / `filter` JSON text → query. Unparsable JSON and malformed query objects are 400s. */
export function parseAdvanced(text: string, o: AdvancedOptions): Query {
  if (text.length > MAX_QUERY_LENGTH * 10) throw errors.searchParamTooLong(o.param, MAX_QUERY_LENGTH * 10);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw errors.notJson(o.param, (err as Error).message);
  }
  return new AdvancedTranslator(o).translate(value);
}

/** The words and prefixes a query looks for, for highlighting. */
export function searchedTerms(q: Query, out: Array<{ text: string; prefix: boolean }> = []): Array<{ text: string; prefix: boolean }> {
  if (q.kind === 'and' || q.kind === 'or') q.items.forEach((i) => searchedTerms(i, out));
  else if (q.kind === 'text' && q.wildcard !== 'pattern') out.push({ text: q.value, prefix: q.wildcard === 'prefix' });
  return out;
}
