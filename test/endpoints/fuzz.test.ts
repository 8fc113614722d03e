import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import supertest from 'supertest';
import { servedEndpoints } from '../../src/openapi';
import { answeredErrors, type Endpoint, type ParamSpec } from '../../src/records/endpoint';
import { ERROR_KINDS } from '../../src/errors';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * Generated bad input against every row of the endpoint table. Each generated request carries
 * the statuses it may get, decided from what it breaks and the order of checks (session 412 →
 * URL 414 → body size 413 → route 404 → repository, parameters, body 400 → permission 403 →
 * handler); a 500 is never acceptable. Every error body must have the reference's shape, and
 * the requests that must be refused may not change a row of the store.
 *
 * FUZZ_SEED and FUZZ_RUNS override the fixed seed and the number of requests.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 8_2024_05);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const ACCEPTED_RUNS = Math.max(200, Math.round(RUNS / 10));
const CONCURRENCY = 6;
const BODY_LIMIT = 64 * 1024;
const MAX_URL = 8192;

type Who = 'admin' | 'anon' | 'bogus';
type Method = 'get' | 'post' | 'delete' | 'put' | 'patch' | 'options';

interface Case {
  kind: string;
  /** The endpoint table row aimed at ("get /repositories/:repo_id/accessions"). */
  row?: string;
  method: Method;
  /** Path and query string, already encoded. */
  url: string;
  who: Who;
  contentType?: string;
  /** Sent as text: superagent would serialise a Buffer as JSON for a JSON content type. */
  body?: string;
  /** Statuses this request may get. */
  expect: number[];
  /** For kind session: the unknown token sent. */
  bogusToken?: string;
  /** After a 200, GET this URI and check that the stored text survived. */
  roundTrip?: { field: string; value: string; extraKeys: string[] };
}

interface SchemaProp {
  type?: string | string[];
  items?: { type?: string };
  maxLength?: number;
  readOnly?: boolean;
}

interface Schema {
  properties: Record<string, SchemaProp>;
  required?: string[];
}

const schemaCache = new Map<string, Schema>();
function schemaOf(type: string): Schema {
  if (!schemaCache.has(type)) {
    schemaCache.set(type, JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'schemas', `${type}.json`), 'utf8')));
  }
  return schemaCache.get(type)!;
}

// ---------------------------------------------------------------------------------------------
// Strings that break things: SQL and FTS metacharacters, unicode edge cases.

const META = ["'", '"', ';', '--', '*', '(', ')', ':', '^', '~', 'NEAR', 'AND', 'OR', 'NOT', '\\', '%', '_', '`', '/*', '*/', '{', '}', '[', ']', '?', '&', '=', '#', '+'];
const UNICODE = [
  '\u0000', '\ud800', '\udfff', '\udbff\udfff', '\u202e', '\u200f', '\u200b', '\u200d', '\ufeff', '\uffff', '\ufffe',
  '😀', '👩‍👩‍👧', '🇺🇳', 'é', 'é', 'ß', 'İ', 'ﬀ', 'שלום', 'مرحبا', '漢字', '\u0301\u0301\u0301', '\n', '\r\n', '\t', '\u2028', '\u0085',
];
const SQLISH = [
  "' OR '1'='1", "'; DROP TABLE records; --", '" OR ""="', '1; SELECT 1', "admin'--", 'a" NEAR/2 "b', 'title:(a OR b)^3',
  'x* AND NOT y', '"unterminated', '((((', '))))', '\\', '%_%', "\\'; --", 'NEAR(a b, 3)', '{!lucene}', 'a:b:c', '*:*', '~2',
];

const nasty: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...META, ...UNICODE, ...SQLISH),
  fc.array(fc.constantFrom(...META, ...UNICODE, ...SQLISH, 'a', 'b', ' ', '1'), { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
);

const nastyText = nasty.filter((v) => v.length > 0);

// ---------------------------------------------------------------------------------------------
// The app under test, and what exists in it.

interface World {
  t: TestApp;
  agent: ReturnType<typeof supertest>;
  server: http.Server;
  token: string;
  repo: number;
  /** Existing records by type name: id and uri. */
  records: Map<string, { id: number; uri: string }>;
  userId: number;
  groupId: number;
  enumId: number;
  enumValueId: number;
}

const TYPE_OF_PREFIX: Array<[RegExp, string]> = [
  [/^\/users\/:id/, 'user'],
  [/^\/repositories\/:repo_id\/users\/:id/, 'user'],
  [/^\/repositories\/:repo_id\/groups\/:id/, 'group'],
  [/^\/repositories\/:id/, 'repository'],
];

function existingIdFor(w: World, endpoint: Endpoint, registryTypes: Array<{ name: string; uri?: string }>): number | undefined {
  for (const [re, type] of TYPE_OF_PREFIX) {
    if (re.test(endpoint.path)) return type === 'user' ? w.userId : type === 'group' ? w.groupId : w.repo;
  }
  const match = registryTypes
    .filter((t) => t.uri && endpoint.path.startsWith(`${t.uri}/:id`))
    .sort((a, b) => b.uri!.length - a.uri!.length)[0];
  return match ? w.records.get(match.name)?.id : undefined;
}

// ---------------------------------------------------------------------------------------------
// Per-endpoint facts used to decide what an answer may be.

const pathParams = (e: Endpoint) => [...e.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
const declared = (e: Endpoint, name: string) => (e.params ?? []).find((p) => p.name === name);
const requiredQueryParams = (e: Endpoint) => (e.params ?? []).filter((p) => p.required && !pathParams(e).includes(p.name));
const takesJson = (e: Endpoint) => !!(e.body || e.rawJsonBody || e.jsonParams);
/** Logging out ends the fuzzer's own session, and these GETs change state: never called with real ids. */
const SIDE_EFFECT_GETS = /\/(activate|deactivate)$/;

function fill(w: World, e: Endpoint, values: Record<string, string> = {}, existing?: number): string {
  return e.path.replace(/:([a-z_]+)/g, (_m, name: string) => {
    if (values[name] !== undefined) return values[name];
    switch (name) {
      case 'repo_id': return String(w.repo);
      case 'id': return String(existing ?? 999_999);
      case 'enum_id': return String(w.enumId);
      case 'enum_val_id': return String(w.enumValueId);
      case 'enum_name': return 'no_such_list';
      case 'username': return 'nobody-at-all';
      // Any other parameter: an integer that names nothing, or a word (a format, a name) that fits none.
      default: return declared(e, name)?.type === 'integer' ? '999999' : 'unknown';
    }
  });
}

/**
 * Percent-encoding that also carries lone surrogates (encodeURIComponent throws on them): as
 * their three generalised UTF-8 bytes, which are not valid UTF-8, as a careless client sends them.
 */
function enc(value: string): string {
  let out = '';
  for (const ch of value) {
    const c = ch.charCodeAt(0);
    if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(ch);
  }
  return out;
}
const qs = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => `${k}=${v}`).join('&');
const withQuery = (p: string, q: string) => (q ? `${p}?${q}` : p);

// ---------------------------------------------------------------------------------------------
// Generators of must-refuse requests.

const who: fc.Arbitrary<Who> = fc.constantFrom<Who>('admin', 'admin', 'admin', 'admin', 'anon');

const badIntegerText = fc.oneof(
  fc.constantFrom('abc', '1.5', '1e3', '0x1f', ' 1', '1 ', '+1', '--1', '1-', '١٢', '１', 'NaN', 'Infinity', '1,2', 'true', '99999999999999999999999', '9007199254740992', '-9007199254740993'),
  nasty.filter((v) => !/^-?\d+$/.test(v.trim()) || !Number.isSafeInteger(Number(v))),
);
const badBooleanText = fc.oneof(fc.constantFrom('maybe', '1', '0', 'yes', 'no', 'on', 't', 'truee', 'true false'), nasty.filter((v) => !/^(true|false)$/i.test(v)));

/** A query fragment giving `spec` a value of the wrong type (or failing its check). */
function badParamFragment(spec: ParamSpec): fc.Arbitrary<string> {
  const n = spec.name;
  const asArray = nasty.map((v) => `${n}[]=${enc(v)}`);
  const asObject = fc.tuple(fc.constantFrom('a', '0', 'x'), nasty).map(([k, v]) => `${n}[${k}]=${enc(v)}`);
  const twice = fc.tuple(nasty, nasty).map(([a, b]) => `${n}=${enc(a)}&${n}=${enc(b)}`);
  switch (spec.type) {
    case 'integer':
      return fc.oneof(badIntegerText.map((v) => `${n}=${enc(v)}`), asArray, asObject, twice);
    case 'boolean':
      return fc.oneof(badBooleanText.map((v) => `${n}=${enc(v)}`), asArray, asObject);
    case 'string':
      return spec.check
        ? fc.oneof(asArray, asObject, nasty.filter((v) => !!spec.check!(v)).map((v) => `${n}=${enc(v)}`))
        : fc.oneof(asArray, asObject, twice);
    case 'string[]':
      return fc.oneof(nasty.map((v) => `${n}=${enc(v)}`), fc.tuple(nasty, nasty).map(([a, b]) => `${n}[a][b]=${enc(a)}&${n}[]=${enc(b)}`));
    case 'integer[]':
      return fc.oneof(
        fc.nat().map((v) => `${n}=${v}`),
        fc.array(badIntegerText, { minLength: 1, maxLength: 4 }).map((vs) => vs.map((v) => `${n}[]=${enc(v)}`).join('&')),
      );
  }
}

const BAD_PAGING: string[] = [
  'page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=', 'page[]=1', 'page=1&page=2', 'page=99999999999999999999',
  'page=1&page_size=0', 'page=1&page_size=-1', 'page=1&page_size=abc', 'page=1&page_size=1e2',
  'page=1&modified_since=-1', 'page=1&modified_since=x', 'all_ids=1&modified_since=99999999999999999999',
  'page=1&sort_direction=sideways', 'page=1&sort_field=title%3B%20drop', 'page=1&sort_field=json',
  'page=1&resolve=subjects', 'page=1&resolve[a][b]=c', 'id_set=a', 'id_set=1,x', 'id_set=1.5', 'id_set=-1', 'id_set[]=1&id_set[]=%27',
  `id_set=${Array.from({ length: 251 }, (_, i) => i + 1).join(',')}`, 'id_set=99999999999999999999', '', 'page_size=10', 'resolve[]=subjects',
  `page=1&resolve[]=${Array(12).fill('a').join('::')}`,
];

function pagingCase(w: World, e: Endpoint): fc.Arbitrary<Case> {
  return fc.tuple(fc.constantFrom(...BAD_PAGING), who).map(([q, by]) => ({
    // The sort field is checked against the store's columns, after the permission.
    kind: 'paging', method: e.method, url: withQuery(fill(w, e), q), who: by, expect: by === 'anon' && q.includes('sort_field') && e.permission ? [403] : [400],
  }));
}

function paramCase(w: World, e: Endpoint, existing?: number): fc.Arbitrary<Case> | undefined {
  const specs = (e.params ?? []).filter((p) => !pathParams(e).includes(p.name));
  const required = requiredQueryParams(e);
  const options: fc.Arbitrary<Case>[] = [];
  if (specs.length) {
    options.push(
      fc.tuple(fc.constantFrom(...specs).chain(badParamFragment), who).map(([fragment, by]) => ({
        kind: 'param', method: e.method, url: withQuery(fill(w, e, {}, existing), fragment), who: by, expect: [400],
      })),
    );
  }
  if (required.length) {
    options.push(who.map((by) => ({ kind: 'param-missing', method: e.method, url: fill(w, e, {}, existing), who: by, expect: [400] })));
  }
  return options.length ? fc.oneof(...options) : undefined;
}

/** Values for an integer path parameter, with the status each one earns for this endpoint. */
const badIdSegment = fc.oneof(
  fc.constantFrom('-1', '0', '-0', '00', '1000000', '2147483648', '9007199254740991', '9007199254740992', '99999999999999999999999',
    '1e3', '0x1f', '1.0', '1%2C2', '%201', '%2B1', 'abc', 'null', 'NaN', '%D9%A1%D9%A2', '%EF%BC%91', '%', '%zz', '%E0%A4%A',
    '%00', '%2F', '%ED%A0%80', '%F0%9F%98%80', "1'", '1%3B--', '%27%20OR%201%3D1%20--', '%E2%80%AE1'),
  fc.integer({ min: 1_000_000, max: 2 ** 31 }).map(String),
  fc.integer({ min: -(2 ** 31), max: -1 }).map(String),
  nasty.map(enc).filter((s) => s.length > 0 && !/^\.+$/.test(s)),
);

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const USERNAME = /^[a-zA-Z0-9\-_. @]+$/;

function pathCase(w: World, e: Endpoint, existing?: number): fc.Arbitrary<Case> | undefined {
  const names = pathParams(e);
  if (!names.length) return undefined;
  return fc.tuple(fc.constantFrom(...names), badIdSegment, who).map(([name, segment, by]): Case => {
    const decoded = decodeSegment(segment);
    const numeric = decoded !== undefined && /^-?\d+$/.test(decoded) && Number.isSafeInteger(Number(decoded));
    // A leading zero or sign may name a real record ("01" is 1): those are not bad ids.
    if (numeric && Number(decoded) > 0 && Number(decoded) < 1_000_000) segment = `-${segment}`;
    // A record's history starts at lock_version 0 ("-0" and "00" name it too).
    if (numeric && name === 'version' && Number(decoded) === 0) segment = '-1';
    const spec = declared(e, name);
    const intParam = name === 'repo_id' || spec?.type === 'integer';
    const base: Omit<Case, 'expect'> = { kind: `path-${name}`, method: e.method, url: fill(w, e, { [name]: segment }, existing), who: by };
    let expect: number[];
    const needsMore = requiredQueryParams(e).length > 0 || !!e.rawJsonBody || !!e.jsonParams;
    const deny = by === 'anon' ? (e.permission === null ? [403, 404] : [403]) : [404];
    if (decoded === undefined || name === 'repo_id') expect = [400];
    // A reset-token login fails alike whatever its path holds: no token is ever given here.
    else if (e.path === '/users/:username/:token') expect = [403];
    else if (intParam) expect = numeric && !needsMore ? deny : [400];
    else if (name === 'username') {
      // login needs a password (400); become-user: a malformed name is 400, an unknown one 404.
      const wellFormed = USERNAME.test(decoded.trim().toLowerCase()) && !decoded.trim().includes('  ');
      expect = needsMore ? [400] : by === 'anon' ? [403] : wellFormed ? [404] : [400];
    } else expect = needsMore ? [400] : deny;
    const c: Case = { ...base, expect };
    if (e.body) {
      // A well-formed body, so that an unknown id is what gets the request refused.
      c.contentType = 'application/json';
      c.body = JSON.stringify({ ...sampleRecord(e.body, w.repo), lock_version: 0 });
    }
    return c;
  });
}

// Bodies.

const CONTENT_TYPES = [
  'application/json', 'application/json', 'application/json; charset=utf-8', 'text/json', 'text/plain', 'application/xml',
  'application/octet-stream', 'multipart/form-data; boundary=xyz', 'application/json; charset=utf-16', 'image/png', '*/*',
];

const malformedJson: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom('', ' ', '{', '}', '[', '{"a":1,}', "{'a':1}", '{"a":}', '{"a" 1}', 'NaN', 'undefined', '{"a":01}', '{"a":.5}',
      '{"a":"\\x41"}', '{"a":"\u0001"}', '\ufeff{}', '{"a":1}}', '{"a":1}{"b":2}', '[1,]', 'nul', 'tru', '"unterminated', '{"a":"\\ud800', '/* c */{}',
      '{"a":Infinity}', '{"__proto__":}', '\u0000'),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.tuple(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ v })), fc.nat()).map(([text, cut]) => text.slice(0, 1 + (cut % Math.max(1, text.length - 1)))),
  )
  .filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  });

/** A value of a type other than the declared one, never one that clean-up drops (null, "", {}). */
function wrongValue(type: string | string[] | undefined): fc.Arbitrary<unknown> {
  const types = Array.isArray(type) ? type : [type];
  const all: Array<[string, fc.Arbitrary<unknown>]> = [
    ['string', nastyText],
    ['integer', fc.integer()],
    ['number', fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d))],
    ['boolean', fc.boolean()],
    ['array', fc.array(fc.oneof(fc.integer(), nastyText), { minLength: 1, maxLength: 3 })],
    ['object', fc.dictionary(fc.constantFrom('a', 'ref', 'x'), fc.oneof(fc.integer(), nastyText), { minKeys: 1, maxKeys: 2 })],
  ];
  const allowed = new Set(types.flatMap((t) => (t === 'integer' ? ['integer'] : t === 'number' ? ['integer', 'number'] : [t as string])));
  return fc.oneof(...all.filter(([name]) => !allowed.has(name)).map(([, arb]) => arb));
}

const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];
const extraKeys = fc.array(fc.oneof(fc.constantFrom(...PROTO_KEYS), nastyText.map((k) => `x_${k}`)), { minLength: 1, maxLength: 3 });

/** Typed, writable top-level properties of a body type. */
function typedProps(type: string): Array<[string, SchemaProp]> {
  return Object.entries(schemaOf(type).properties).filter(
    ([name, p]) => p.type !== undefined && !p.readOnly && !['jsonmodel_type', 'lock_version', 'uri'].includes(name),
  );
}

/** JSON text of an object with extra keys, written by hand so that "__proto__" is an own key. */
function withExtraKeys(record: Record<string, unknown>, keys: string[], value: unknown): string {
  const text = JSON.stringify(record);
  const extra = keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(value)}`).join(',');
  return text === '{}' ? `{${extra}}` : `${text.slice(0, -1)},${extra}}`;
}

function invalidRecordBody(w: World, type: string): fc.Arbitrary<{ variant: string; text: string }> {
  const props = typedProps(type);
  const required = schemaOf(type).required ?? [];
  const sample = () => sampleRecord(type, w.repo);
  const variants: fc.Arbitrary<{ variant: string; text: string }>[] = [];
  if (props.length) {
    variants.push(
      fc.array(fc.constantFrom(...props).chain(([name, p]) => wrongValue(p.type).map((v) => [name, v] as const)), { minLength: 1, maxLength: 3 })
        .map((changes) => ({ variant: 'wrong-type', text: JSON.stringify({ ...sample(), ...Object.fromEntries(changes) }) })),
    );
    const arrays = props.filter(([, p]) => p.type === 'array');
    if (arrays.length) {
      variants.push(
        fc.tuple(fc.constantFrom(...arrays), fc.integer({ min: 500, max: 4000 }), fc.constantFrom<unknown>(7, true, [1], 'x')).map(([[name, p], n, item]) => ({
          variant: 'huge-array',
          // Items of the wrong type: no strings in a list of strings.
          text: JSON.stringify({ ...sample(), [name]: Array(n).fill(p.items?.type === 'string' && item === 'x' ? 7 : item) }),
        })),
      );
    }
    const bounded = props.filter(([, p]) => p.type === 'string' && p.maxLength !== undefined && p.maxLength < BODY_LIMIT / 2);
    if (bounded.length) {
      variants.push(
        fc.tuple(fc.constantFrom(...bounded), fc.nat(1000), nastyText).map(([[name, p], extra, unit]) => ({
          // maxLength counts characters (code points), not UTF-16 units.
          variant: 'huge-string', text: JSON.stringify({ ...sample(), [name]: unit.repeat(Math.ceil((p.maxLength! + 1 + extra) / [...unit].length)) }),
        })),
      );
    }
  }
  if (required.length) {
    variants.push(
      fc.tuple(fc.subarray(required, { minLength: 1 }), fc.constantFrom<unknown>(undefined, null, '', {})).map(([names, blank]) => {
        const record: Record<string, unknown> = sample();
        for (const name of names) record[name] = blank;
        return { variant: 'missing', text: JSON.stringify(record) };
      }),
    );
    // Extra keys (also ones named like Object.prototype's members) beside a missing required field.
    variants.push(
      fc.tuple(extraKeys, nastyText).map(([keys, value]) => {
        const record: Record<string, unknown> = sample();
        delete record[required[0]];
        return { variant: 'extra-fields', text: withExtraKeys(record, keys, value) };
      }),
    );
  }
  variants.push(
    fc.oneof(fc.integer(), fc.boolean(), nastyText, fc.constant(null), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }))
      .map((v) => ({ variant: 'not-an-object', text: JSON.stringify(v) })),
  );
  variants.push(
    fc.tuple(fc.integer({ min: 101, max: 12_000 }), fc.constantFrom('[', '{"a":'), fc.constantFrom(...(props.length ? props.map(([n]) => n) : ['x']))).map(([depth, open, name]) => {
      const close = open === '[' ? ']' : '}';
      const inner = open === '[' ? '' : '1';
      return { variant: 'deep', text: `{${JSON.stringify(name)}:${open.repeat(depth)}${inner}${close.repeat(depth)}}` };
    }),
  );
  return fc.oneof(...variants);
}

/** Whatever a body gets wrong, one over the size limit is refused for its size first. */
const sized = (c: Case): Case => (c.body !== undefined && Buffer.byteLength(c.body) > BODY_LIMIT ? { ...c, expect: [413] } : c);

function bodyCase(w: World, e: Endpoint, existing?: number): fc.Arbitrary<Case> | undefined {
  const arb = bodyCaseOf(w, e, existing);
  return arb?.map(sized);
}

function bodyCaseOf(w: World, e: Endpoint, existing?: number): fc.Arbitrary<Case> | undefined {
  if (!takesJson(e)) return undefined;
  const url = fill(w, e, {}, existing);
  const ct = fc.constantFrom(...CONTENT_TYPES);
  const malformed = fc.tuple(malformedJson, ct, who).map(([text, contentType, by]): Case => ({
    kind: 'body-malformed', method: e.method, url, who: by, contentType, body: text, expect: [400],
  }));
  if (e.body) {
    return fc.oneof(
      malformed,
      fc.tuple(invalidRecordBody(w, e.body), ct, who).map(([{ variant, text }, contentType, by]): Case => ({
        kind: `body-${variant}`, method: e.method, url, who: by, contentType, body: text, expect: [400],
      })),
    );
  }
  // Raw JSON bodies are checked by the handler, after the permission; JSON parameters before it
  // (and a missing required parameter, which this case does not send, before both).
  const shapeStatus = (by: Who) => (e.rawJsonBody && by === 'anon' && !requiredQueryParams(e).length ? [403] : [400]);
  // Integers in a non-empty list: an empty list is a well-formed (empty) batch for the routes that take one (batch_imports).
  const wrongShape = fc.oneof(
    fc.oneof(fc.integer(), fc.boolean(), nastyText, fc.constant(null), fc.array(fc.integer(), { minLength: 1, maxLength: 3 })).map((v) => JSON.stringify(v)),
    e.jsonParams
      ? fc.tuple(fc.constantFrom('page', 'page_size'), fc.oneof(badIntegerText, fc.constant([1, 2]), fc.constant({ a: 1 }), fc.constant(true)))
        .map(([k, v]) => JSON.stringify({ [k]: v }))
      : fc.dictionary(nastyText, fc.oneof(fc.integer(), fc.array(fc.integer()), fc.constant(false)), { minKeys: 1, maxKeys: 3 }).map((v) => JSON.stringify(v)),
  );
  return fc.oneof(
    malformed,
    fc.tuple(wrongShape, ct, who).map(([text, contentType, by]): Case => ({
      kind: 'body-shape', method: e.method, url, who: by, contentType, body: text, expect: shapeStatus(by),
    })),
  );
}

function anyEndpointCase(w: World, endpoints: Endpoint[]): fc.Arbitrary<Case> {
  const endpoint = fc.constantFrom(...endpoints);
  return fc.oneof(
    // Bodies over the limit: refused before anything reads them. (Uploads, multipart rows, have
    // IMPORT_MAX_BYTES as their limit instead; their own tests send files over it.)
    fc.tuple(fc.constantFrom(...endpoints.filter((e) => !e.multipart)), fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT + 4096 }), fc.constantFrom('application/json', 'text/plain'), who)
      .map(([e, size, contentType, by]): Case => ({
        kind: 'oversized', method: e.method, url: fill(w, e), who: by, contentType, body: '['.repeat(size), expect: [413],
      })),
    // URLs over the limit.
    fc.tuple(endpoint, fc.integer({ min: MAX_URL + 1, max: MAX_URL + 4000 }), fc.constantFrom<Who>('admin', 'anon', 'bogus'))
      .map(([e, size, by]): Case => {
        const p = fill(w, e);
        return { kind: 'url-too-long', method: e.method, url: `${p}?q=${'a'.repeat(size - p.length - 3)}`, who: by, expect: [414] };
      }),
    // Unknown sessions, whatever else is wrong.
    fc.tuple(endpoint, fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 64 }), fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')), fc.constant('')), fc.option(malformedJson))
      .map(([e, token, body]): Case => ({
        kind: 'session', method: e.method, url: fill(w, e), who: 'bogus', body: body ?? undefined, contentType: body ? 'application/json' : undefined,
        expect: [412], bogusToken: token,
      })),
    // Methods the path does not have, and paths with a trailing slash.
    fc.tuple(endpoint, fc.constantFrom<Method>('put', 'patch', 'options'), who).map(([e, method, by]): Case => ({
      kind: 'method', method, url: fill(w, e), who: by, expect: [404],
    })),
    // `//` is `/` (doubled slashes are one, as Rack reads them), so the root answers.
    fc.tuple(endpoint, who).map(([e, by]): Case => ({
      kind: 'trailing-slash', method: e.method, url: `${fill(w, e)}/`, who: by, expect: e.path === '/' ? [200] : [404],
    })),
    fc.tuple(fc.array(badIdSegment, { minLength: 1, maxLength: 4 }), who).map(([segments, by]): Case => ({
      kind: 'unknown-route', method: 'get', url: `/nowhere/${segments.join('/')}`, who: by, expect: [404],
    })),
  );
}

// ---------------------------------------------------------------------------------------------
// Requests that may be accepted.

function acceptedCases(w: World, endpoints: Endpoint[], baselines: Map<string, number>, routed: Array<{ name: string; uri?: string }>): fc.Arbitrary<Case> {
  const gets = endpoints.filter((e) => e.method === 'get' && baselines.has(e.path));
  const declaredNames = (e: Endpoint) => new Set([...(e.params ?? []).map((p) => p.name), 'page', 'page_size', 'id_set', 'all_ids', 'resolve', 'modified_since', 'sort_field', 'sort_direction']);
  const titled = routed.filter((t) => t.uri && schemaOf(t.name).properties.title?.type === 'string' && !schemaOf(t.name).properties.title.readOnly);
  const options: fc.Arbitrary<Case>[] = [
    // Unknown query parameters change nothing.
    fc.tuple(fc.constantFrom(...gets), fc.array(fc.tuple(nastyText, nastyText), { minLength: 1, maxLength: 4 }), who).map(([e, extras, by]): Case => {
      const known = declaredNames(e);
      const pairs = extras.filter(([k]) => !known.has(k.replace(/\[.*$/, ''))).map(([k, v]): [string, string] => [enc(`z${k}`), enc(v)]);
      const base = baselineUrl(w, e, routed);
      return { kind: 'extra-query', method: 'get', url: `${base}${base.includes('?') ? '&' : '?'}${qs(pairs)}`, who: by, expect: [by === 'anon' ? baselines.get(`anon ${e.path}`)! : baselines.get(e.path)!] };
    }),
    // all_ids takes any value.
    fc.tuple(fc.constantFrom(...endpoints.filter((e) => e.paginated && e.method === 'get')), fc.constantFrom('all_ids=maybe', 'all_ids=', 'all_ids=0', 'all_ids[]=x', 'all_ids=%00')).map(([e, q]): Case => ({
      kind: 'all-ids', method: 'get', url: withQuery(fill(w, e), q), who: 'admin', expect: [200],
    })),
    // Search text is a query language: a syntax error is a 400, anything else a result.
    fc.tuple(nastyText, fc.constantFrom(`/repositories/${w.repo}/search`, '/search', '/search/subjects', '/search/repositories', '/search/location_profile', `/repositories/${w.repo}/top_containers/search`))
      .map(([q, p]): Case => ({ kind: 'search-text', method: 'get', url: `${p}?page=1&q=${enc(q)}`, who: 'admin', expect: [200, 400] })),
    fc.tuple(nastyText, fc.constantFrom(`/repositories/${w.repo}/search`, '/search'))
      .map(([q, p]): Case => ({ kind: 'search-json', method: 'post', url: p, who: 'admin', contentType: 'application/json', body: JSON.stringify({ page: 1, q }), expect: [200, 400] })),
    fc.tuple(nastyText, fc.constantFrom('/users/complete?query=', `/repositories/${w.repo}/find_by_id/archival_objects?ref_id[]=`, `/repositories/${w.repo}/find_by_id/top_containers?barcode[]=`))
      .map(([v, p]): Case => ({ kind: 'lookup-text', method: 'get', url: `${p}${enc(v)}`, who: 'admin', expect: [200] })),
    // Resource identifiers are JSON arrays of the four parts: text that is not JSON is a 400.
    fc.tuple(fc.array(nastyText, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([parts, asJson]): Case => {
      const value = asJson ? JSON.stringify(parts) : parts.join('');
      let isJson = true;
      try {
        JSON.parse(value);
      } catch {
        isJson = false;
      }
      return { kind: 'lookup-text', method: 'get', url: `/repositories/${w.repo}/find_by_id/resources?identifier[]=${enc(value)}`, who: 'admin', expect: isJson ? [200, 400] : [400] };
    }),
    // Creates whose free text is full of metacharacters and odd unicode, with unknown keys.
    fc.tuple(fc.constantFrom(...titled), nastyText, extraKeys).map(([type, title, keys]): Case => ({
      kind: 'create-text', method: 'post', url: type.uri!.replace(':repo_id', String(w.repo)), who: 'admin', contentType: 'application/json',
      body: withExtraKeys({ ...sampleRecord(type.name, w.repo), title }, keys, 'extra'), expect: [200],
      roundTrip: { field: 'title', value: title, extraKeys: keys },
    })),
  ];
  return fc.oneof(...options);
}

function baselineUrl(w: World, e: Endpoint, routed: Array<{ name: string; uri?: string }>): string {
  const url = fill(w, e, {}, existingIdFor(w, e, routed));
  return e.paginated ? `${url}?page=1` : url;
}

// ---------------------------------------------------------------------------------------------
// Checking answers.

const LEAK = /at .*\.[jt]s:\d+|\bselect\b.+\bfrom\b|insert into|SQLITE_|\bER_[A-Z_]+|Internal server error/i;

function shapeProblem(status: number, contentType: string | undefined, text: string): string | undefined {
  if (status < 400) return undefined;
  if (!/^application\/json/.test(contentType ?? '')) return `content type ${contentType}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not a JSON object';
  const b = body as Record<string, unknown>;
  if (status === 412) {
    if (Object.keys(b).join() !== 'code,error' || !['SESSION_GONE', 'SESSION_EXPIRED'].includes(b.code as string)) return '412 without the session shape';
    return typeof b.error === 'string' ? undefined : '412 error is not a string';
  }
  if (!('error' in b)) return 'no error key';
  const extra = Object.keys(b).filter((k) => !['error', 'warning', 'invalid_object'].includes(k));
  if (extra.length) return `unexpected keys ${extra.join(',')}`;
  if (typeof b.error === 'string') return b.error ? undefined : 'empty error';
  if (typeof b.error !== 'object' || b.error === null || Array.isArray(b.error)) return 'error is neither text nor an object';
  for (const [k, v] of Object.entries(b.error)) {
    if (!Array.isArray(v) || !v.every((m) => typeof m === 'string')) return `error.${k} is not a list of messages`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The store digest: every row of the tables a write touches.

const DIGEST_TABLES = ['records', 'unique_keys', 'lookup_keys', 'record_refs', 'change_log', 'index_queue', 'enumerations', 'enumeration_values', 'credentials', 'group_members', 'group_grants'];

async function storeDigest(t: TestApp): Promise<Record<string, string>> {
  const knex = t.services.db.knex;
  const out: Record<string, string> = {};
  for (const table of DIGEST_TABLES) {
    if (!(await knex.schema.hasTable(table))) continue;
    const rows = await knex(table).select('*');
    const lines = rows.map((row: Record<string, unknown>) =>
      JSON.stringify(Object.keys(row).sort().map((k) => [k, Buffer.isBuffer(row[k]) ? (row[k] as Buffer).toString('hex') : String(row[k])])),
    ).sort();
    out[table] = `${rows.length}:${crypto.createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  contentType?: string;
  text: string;
}

/**
 * The answer as text, whatever it claims to be: a JSON parse error must be a finding, not a crash.
 * Node's own 408 (an empty body: the test's server has no clientError handler) is not an answer
 * of the app: under CI's load a connection of this in-process client sometimes sent nothing for
 * the server's headersTimeout (60 s), and the request that then used it read Node's 408. That
 * request is sent once more.
 */
async function send(w: World, c: Case): Promise<Answer> {
  const answer = await sendOnce(w, c);
  return answer.status === 408 && !answer.text ? sendOnce(w, c) : answer;
}

async function sendOnce(w: World, c: Case): Promise<Answer> {
  let req = w.agent[c.method](c.url).buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => done(null, text));
  });
  if (c.who === 'admin') req = req.set('X-ArchivesSpace-Session', w.token);
  if (c.who === 'bogus') req = req.set('X-ArchivesSpace-Session', c.bogusToken ?? 'not-a-session');
  if (c.contentType) req = req.set('Content-Type', c.contentType);
  if (c.body !== undefined) req = req.send(c.body);
  const res = await req;
  return { status: res.status, contentType: res.headers['content-type'], text: res.body as string };
}

interface Failure {
  c: Case;
  status: number;
  problem: string;
  text: string;
}

function describeCase(c: Case): string {
  const body = c.body === undefined ? '' : ` body(${c.body.length}${c.contentType ? `, ${c.contentType}` : ''}): ${String(c.body).slice(0, 300)}`;
  return `[${c.kind}] ${c.who} ${c.method.toUpperCase()} ${c.url.slice(0, 300)}${body}`;
}

/** Each row's declared error kinds as statuses (answeredErrors), by "method path". */
let declaredStatuses = new Map<string, Set<number>>();

/**
 * An error status the row does not declare (its OpenAPI responses would not list it). Limits the
 * HTTP layer applies before routing (413 body, 414 URL) and unrouted requests are every row's.
 */
function undeclaredError(c: Case, res: Answer): string | undefined {
  const declared = c.row ? declaredStatuses.get(c.row) : undefined;
  if (!declared || res.status < 400 || res.status === 413 || res.status === 414) return undefined;
  if (res.status === 404 && res.text.includes('Sinatra::NotFound')) return undefined;
  return declared.has(res.status) ? undefined : `status ${res.status} is not among the errors its row declares (${[...declared].join(', ')})`;
}

async function runAll(w: World, cases: Case[], check: (c: Case, res: Answer) => Promise<string | undefined>): Promise<{ failures: Failure[]; statuses: Record<number, number> }> {
  const failures: Failure[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++];
      const res = await send(w, c);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      let problem: string | undefined;
      if (!c.expect.includes(res.status)) problem = `status ${res.status}, expected ${c.expect.join('/')}`;
      problem ??= shapeProblem(res.status, res.contentType, res.text);
      if (!problem && res.status === 200 && /^application\/json/.test(res.contentType ?? '')) {
        try {
          JSON.parse(res.text);
        } catch {
          problem = 'a 200 answer that is not JSON';
        }
      }
      const sent = `${c.url} ${c.body ?? ''}`;
      if (!problem && res.status >= 400 && LEAK.test(res.text) && !LEAK.test(sent)) problem = 'error body leaks internals';
      problem ??= undeclaredError(c, res);
      problem ??= await check(c, res);
      if (problem) failures.push({ c, status: res.status, problem, text: res.text.slice(0, 400) });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { failures, statuses };
}

function report(label: string, failures: Failure[]): void {
  if (!failures.length) return;
  const lines = failures.slice(0, 25).map((f) => `  ${f.problem}\n    ${describeCase(f.c)}\n    → ${f.status} ${f.text}`);
  assert.fail(`${label}: ${failures.length} bad answers (seed ${SEED}); first ones:\n${lines.join('\n')}`);
}

function tally(cases: Case[]): string {
  const counts: Record<string, number> = {};
  for (const c of cases) counts[c.kind.replace(/^path-.*/, 'path')] = (counts[c.kind.replace(/^path-.*/, 'path')] ?? 0) + 1;
  return Object.entries(counts).sort().map(([k, n]) => `${k} ${n}`).join(', ');
}

describe(`generated bad input (${STORE})`, function () {
  this.timeout(600_000);
  const w = {} as World;
  let endpoints: Endpoint[];
  let routed: Array<{ name: string; uri?: string }>;

  before(async () => {
    w.t = await startTestApp({ BODY_LIMIT_BYTES: String(BODY_LIMIT), MAX_URL_LENGTH: String(MAX_URL), LOGIN_MAX_FAILURES: '1000000000' });
    // One listening server for every request, instead of one per request.
    w.server = http.createServer(w.t.app).listen(0, '127.0.0.1');
    await new Promise((resolve) => w.server.once('listening', resolve));
    w.agent = supertest(`http://127.0.0.1:${(w.server.address() as AddressInfo).port}`);
    w.token = await w.t.adminToken();
    w.repo = await createRepository(w.t, 'FUZZ');
    const H = { 'X-ArchivesSpace-Session': w.token };
    endpoints = servedEndpoints(w.t.services.registry);
    declaredStatuses = new Map(endpoints.map((e) => [`${e.method} ${e.path}`, new Set(answeredErrors(e).map((k) => ERROR_KINDS[k].status))]));
    routed = w.t.services.registry.routedTypes();
    w.records = new Map();
    const create = async (type: string, url: string) => {
      const res = await w.t.http.post(url).set(H).send(sampleRecord(type, w.repo));
      assert.equal(res.status, 200, `${type}: ${res.text}`);
      w.records.set(type, { id: res.body.id, uri: res.body.uri });
    };
    // Link targets of the samples first (resources/1, digital_objects/1 ...), then one of every type.
    for (const type of ['resource', 'digital_object', 'accession', 'agent_person']) await create(type, routed.find((t) => t.name === type)!.uri!.replace(':repo_id', String(w.repo)));
    for (const type of routed) if (!w.records.has(type.name)) await create(type.name, type.uri!.replace(':repo_id', String(w.repo)));
    const user = await w.t.http.post('/users').query({ password: 'fuzz-pass' }).set(H).send(sampleRecord('user', w.repo));
    w.userId = user.body.id;
    const group = await w.t.http.post(`/repositories/${w.repo}/groups`).set(H).send(sampleRecord('group', w.repo));
    w.groupId = group.body.id;
    const enums = await w.t.http.get('/config/enumerations').set(H);
    w.enumId = Number(String(enums.body[0].uri).split('/').pop());
    w.enumValueId = Number(String(enums.body[0].enumeration_values[0].uri).split('/').pop());
    assert.ok(w.enumId > 0 && w.enumValueId > 0, 'an enumeration and a value to aim at');
  });

  after(async () => {
    await new Promise((resolve) => w.server.close(resolve));
    await w.t.close();
  });

  it(`refuses ${RUNS} generated bad requests over every endpoint with 4xx answers in the reference shape, changing nothing`, async () => {
    const started = Date.now();
    // Logging out would end the fuzzer's own session: /logout only gets anonymous and unknown sessions.
    const usable = endpoints.filter((e) => e.path !== '/logout');
    const perEndpoint: fc.Arbitrary<Case>[] = [];
    for (const e of usable) {
      const existing = SIDE_EFFECT_GETS.test(e.path) ? undefined : existingIdFor(w, e, routed);
      const arbs = [
        e.paginated ? pagingCase(w, e) : undefined,
        paramCase(w, e, existing),
        pathCase(w, e, existing),
        bodyCase(w, e, existing),
      ].filter((a): a is fc.Arbitrary<Case> => a !== undefined);
      // A row with nothing to get wrong still has a session, a size, a method and a path.
      if (!arbs.length) arbs.push(anyEndpointCase(w, [e]));
      perEndpoint.push(fc.oneof(...arbs).map((c) => ({ ...c, row: `${e.method} ${e.path}` })));
    }
    const arbitrary = fc.oneof(
      { weight: 8, arbitrary: fc.oneof(...perEndpoint) },
      { weight: 1, arbitrary: anyEndpointCase(w, endpoints) },
    );
    const cases = fc.sample(arbitrary, { seed: SEED, numRuns: RUNS });
    const covered = new Set(cases.map((c) => c.url.split('?')[0]));
    const rows = new Set(cases.map((c) => c.row));
    console.log(`      fuzz seed ${SEED} (FUZZ_SEED to change), ${cases.length} requests over ${rows.size} of ${endpoints.length} endpoints, ${covered.size} distinct paths`);
    if (RUNS >= 10_000) {
      const missed = usable.filter((e) => !rows.has(`${e.method} ${e.path}`)).map((e) => `${e.method} ${e.path}`);
      assert.deepEqual(missed, [], 'every endpoint gets bad requests of its own');
    }
    console.log(`      kinds: ${tally(cases)}`);

    const before = await storeDigest(w.t);
    const { failures, statuses } = await runAll(w, cases, async () => undefined);
    const after = await storeDigest(w.t);
    console.log(`      statuses: ${JSON.stringify(statuses)}; ${((Date.now() - started) / 1000).toFixed(1)} s`);
    report('bad requests', failures);
    assert.deepEqual(after, before, 'a refused request changed the store');
  });

  it(`answers ${ACCEPTED_RUNS} generated odd but valid requests as valid, and stores odd text as sent`, async () => {
    const started = Date.now();
    const H = { 'X-ArchivesSpace-Session': w.token };
    // The status each GET gets with no extra parameters, as admin and anonymously.
    const baselines = new Map<string, number>();
    for (const e of endpoints) {
      if (e.method !== 'get' || SIDE_EFFECT_GETS.test(e.path) || requiredQueryParams(e).length) continue;
      const url = baselineUrl(w, e, routed);
      const admin = await w.t.http.get(url).set(H);
      const anon = await w.t.http.get(url);
      if (admin.status === 200) {
        baselines.set(e.path, admin.status);
        baselines.set(`anon ${e.path}`, anon.status);
      }
    }
    const cases = fc.sample(acceptedCases(w, endpoints, baselines, routed), { seed: SEED + 1, numRuns: ACCEPTED_RUNS });
    console.log(`      ${cases.length} requests; kinds: ${tally(cases)}`);
    const { failures, statuses } = await runAll(w, cases, async (c, res) => {
      if (!c.roundTrip || res.status !== 200) return undefined;
      const got = await w.t.http.get(JSON.parse(res.text).uri).set(H);
      if (got.status !== 200) return `created record reads back with ${got.status}`;
      if (got.body[c.roundTrip.field] !== c.roundTrip.value) return `${c.roundTrip.field} reads back as ${JSON.stringify(got.body[c.roundTrip.field])}`;
      const kept = c.roundTrip.extraKeys.filter((k) => Object.hasOwn(got.body, k));
      return kept.length ? `unknown keys were stored: ${kept.join(', ')}` : undefined;
    });
    console.log(`      statuses: ${JSON.stringify(statuses)}; ${((Date.now() - started) / 1000).toFixed(1)} s`);
    report('valid requests', failures);
  });
});
