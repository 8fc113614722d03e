import type { Obj } from '../json';
import { PAGE_SIZE_PARAM, pageSize } from '../records/paging';
import type { ParamSpec, Paging } from '../records/endpoint';
import { ErrorMap, errors, failedValidation, PARAM_REQUIRED_MESSAGE, wantedType } from '../errors';
import type { Config } from '../config';

const TYPE_NAMES: Record<ParamSpec['type'], string> = {
  integer: 'Integer',
  string: 'String',
  boolean: 'RESTHelpers::BooleanParam',
  'string[]': '[String]',
  'integer[]': '[Integer]',
};

const INTEGER = /^-?\d+$/;

function show(value: unknown): string {
  return Array.isArray(value) ? JSON.stringify(value) : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function coerceScalar(type: ParamSpec['type'], value: unknown): { ok: boolean; value?: unknown } {
  if (typeof value !== 'string') return { ok: false };
  if (type === 'integer' || type === 'integer[]') return INTEGER.test(value) ? { ok: true, value: Number(value) } : { ok: false };
  if (type === 'boolean') return /^(true|false)$/i.test(value) ? { ok: true, value: value.toLowerCase() === 'true' } : { ok: false };
  return { ok: true, value };
}

/**
 * Declared parameters, checked and coerced; the reference's messages and its order
 * (missing, then wrong types, then failed checks). Undeclared parameters are ignored.
 */
export function parseParams(specs: ParamSpec[], source: Record<string, unknown>): Obj {
  const missing: ErrorMap = {};
  const wrong: ErrorMap = {};
  const failed: ErrorMap = {};
  const out: Obj = {};
  for (const spec of specs) {
    const raw = source[spec.name];
    if (raw === undefined || raw === '') {
      if (spec.required) missing[spec.name] = [PARAM_REQUIRED_MESSAGE];
      else if (spec.default !== undefined) out[spec.name] = spec.default;
      continue;
    }
    const isArray = spec.type.endsWith('[]');
    if (isArray) {
      const items = Array.isArray(raw) ? raw : isPlainObject(raw) ? Object.values(raw) : undefined;
      if (!items) {
        const text = show(raw);
        wrong[spec.name] = [
          `${wantedType(TYPE_NAMES[spec.type], text)}.  Perhaps you meant to specify an array like: ${spec.name}[]=${encodeURIComponent(text)}`,
        ];
        continue;
      }
      const coerced = items.map((item) => coerceScalar(spec.type, item));
      if (coerced.some((c) => !c.ok)) {
        wrong[spec.name] = [wantedType(TYPE_NAMES[spec.type], show(raw))];
        continue;
      }
      out[spec.name] = coerced.map((c) => c.value);
    } else {
      const c = coerceScalar(spec.type, raw);
      if (!c.ok) {
        wrong[spec.name] = [wantedType(TYPE_NAMES[spec.type], show(raw))];
        continue;
      }
      out[spec.name] = c.value;
    }
    const problem = (spec.type.startsWith('integer') ? unsafeInteger(raw) : undefined) ?? spec.check?.(out[spec.name]);
    if (problem) failed[spec.name] = [failedValidation(problem)];
  }
  const all = { ...missing, ...wrong, ...failed };
  if (Object.keys(all).length) throw errors.params(all);
  return out;
}

/**
 * Digits beyond 2^53 lose precision in a JavaScript number (page=1e23 became page 1e+23), so
 * they are refused rather than rounded into some other id or offset.
 */
function unsafeInteger(raw: unknown): string | undefined {
  const values = Array.isArray(raw) ? raw : isPlainObject(raw) ? Object.values(raw) : [raw];
  const bad = values.find((v) => typeof v === 'string' && !Number.isSafeInteger(Number(v)));
  if (bad === undefined) return undefined;
  return `must be between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} but given: ${bad}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const positive = (v: number) => (v >= 1 ? undefined : `must be a positive integer but given: ${v}`);
const nonNegative = (v: number) => (v >= 0 ? undefined : `must be a non-negative integer but given: ${v}`);

/**
 * page / page_size / id_set / all_ids and their companions (pagination-and-resolve.md).
 * Where the original answers 500 for bad numbers, this answers 400 in the usual shape.
 */
export function parsePaging(config: Config, source: Record<string, unknown>): Paging {
  // all_ids counts by mere presence (all_ids= selects it); an empty page is no page (it gave a listing of page NaN).
  const present = (name: string) => source[name] !== undefined && (name === 'all_ids' || source[name] !== '');
  const p = parseParams(
    [
      { name: 'page', type: 'integer', check: positive },
      PAGE_SIZE_PARAM,
      { name: 'modified_since', type: 'integer', default: 0, check: nonNegative },
      { name: 'sort_field', type: 'string' },
      {
        name: 'sort_direction',
        type: 'string',
        default: 'asc',
        check: (v) => (v === 'asc' || v === 'desc' ? undefined : `must be either 'asc' or 'desc' but given: ${v}`),
      },
      { name: 'resolve', type: 'string[]', default: [] },
    ],
    source,
  );
  let mode: Paging['mode'];
  if (present('page')) mode = 'page';
  else if (present('id_set')) mode = 'id_set';
  else if (present('all_ids')) mode = 'all_ids';
  else throw errors.paramRequired('page', 'id_set', 'all_ids');

  let ids: number[] = [];
  if (mode === 'id_set') ids = parseIdSet(config, source.id_set);
  return {
    mode,
    page: p.page,
    pageSize: pageSize(config, p.page_size),
    ids,
    modifiedSince: p.modified_since,
    sortField: p.sort_field,
    sortDirection: p.sort_direction,
    resolve: p.resolve,
  };
}

function parseIdSet(config: Config, raw: unknown): number[] {
  const parts = (Array.isArray(raw) ? raw : isPlainObject(raw) ? Object.values(raw) : [raw])
    .flatMap((item) => (typeof item === 'string' ? item.split(',') : [item]))
    .map((item) => (typeof item === 'string' ? item.trim() : item));
  const bad = parts.find((item) => typeof item !== 'string' || !/^\d+$/.test(item));
  if (bad !== undefined) throw errors.wrongType('id_set', '[Integer]', show(raw));
  const ids = [...new Set(parts.map(Number))];
  const unsafe = unsafeInteger(parts);
  if (unsafe) throw errors.invalidParam('id_set', unsafe);
  if (ids.length > config.maxPageSize) {
    throw errors.invalidParam('id_set', `must not list more than ${config.maxPageSize} ids but given: ${ids.length}`);
  }
  return ids;
}
