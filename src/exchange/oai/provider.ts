/**
 * The OAI-PMH 2.0 provider (`/oai`): the six verbs over the harvested record types (formats.ts),
 * answering every protocol error in the protocol's XML (HTTP 200), never a server error page.
 *
 * What a harvester sees: records that are published, not suppressed, not under an unpublished
 * ancestor, in a repository that is published and not withdrawn from OAI (`oai_is_disabled`),
 * and, when that repository lists the levels it offers (`oai_sets_available`), of one of those
 * levels. Identifiers are ArchivesSpace's: `<prefix>/<record uri>`. Datestamps are the records'
 * modification times (seconds). Deleted records are reported from the change log (persistent).
 * Sets: every archival level (`level`), every repository (`repository:<id>`), and the configured
 * repository and sponsor sets (config.ts). Lists walk each type in id order and then the
 * deletions; the resumption token holds that position (token.ts), so lists resume across
 * restarts and server processes.
 */
import type { Knex } from 'knex';
import type { Obj } from '../../json';
import { isoSeconds, Services } from '../../records/context';
import { uriLoader } from '../../records/load';
import { resolveLinks } from '../../records/resolve';
import { GLOBAL_REPO_ID, TypeInfo } from '../../registry';
import { jsonTextSql, publishedClause } from '../../store/connect';
import { underHiddenAncestor } from '../../store/visibility';
import type { XmlWriter } from '../xml';
import { OaiSettings, oaiSettings } from './config';
import { harvestedTypes, MetadataFormat, OAI_RESOLVE, oaiFormats, pageSizeFor, typesFor } from './formats';
import { decodeToken, encodeToken, ListPosition } from './token';

const OAI_NS = 'http://www.openarchives.org/OAI/2.0/';
const LEVEL_ENUM = 'archival_record_level';

type Args = Record<string, string>;

interface VerbSpec {
  required: string[];
  optional: string[];
  /** An argument that must come alone (resumptionToken). */
  exclusive?: string;
}

const VERBS: Record<string, VerbSpec> = {
  Identify: { required: [], optional: [] },
  ListMetadataFormats: { required: [], optional: ['identifier'] },
  ListSets: { required: [], optional: [], exclusive: 'resumptionToken' },
  ListIdentifiers: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], exclusive: 'resumptionToken' },
  ListRecords: { required: ['metadataPrefix'], optional: ['from', 'until', 'set'], exclusive: 'resumptionToken' },
  GetRecord: { required: ['identifier', 'metadataPrefix'], optional: [] },
};

export type OaiErrorCode =
  | 'badVerb' | 'badArgument' | 'badResumptionToken' | 'cannotDisseminateFormat' | 'idDoesNotExist'
  | 'noRecordsMatch' | 'noMetadataFormats' | 'noSetHierarchy';

class OaiError extends Error {
  constructor(readonly code: OaiErrorCode, message: string) {
    super(message);
  }
}

/** A repository whose records may be harvested, and the levels it limits them to (null: all). */
interface HarvestRepo {
  id: number;
  code: string;
  name: string;
  levels: string[] | null;
}

interface Context {
  s: Services;
  settings: OaiSettings;
  repos: HarvestRepo[];
  /** Every archival level value. */
  levels: string[];
}

type Item =
  | { kind: 'record'; type: TypeInfo; record: Obj; mtimeMs: number }
  | { kind: 'deleted'; uri: string; atMs: number };

// ---------------------------------------------------------------------------------------------
// Arguments

/** Verb and arguments, checked against the verb (badVerb, badArgument). */
function parseRequest(raw: Record<string, unknown>): { verb: string; args: Args } {
  const verb = raw.verb;
  if (typeof verb !== 'string' || !Object.hasOwn(VERBS, verb)) {
    throw new OaiError('badVerb', Array.isArray(verb) ? 'The verb argument may not be repeated' : verb === undefined ? 'The verb argument is missing' : 'Illegal OAI verb');
  }
  const spec = VERBS[verb];
  const args: Args = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name === 'verb') continue;
    if (![...spec.required, ...spec.optional, spec.exclusive].includes(name)) throw new OaiError('badArgument', `Illegal argument for ${verb}: ${name}`);
    if (typeof value !== 'string') throw new OaiError('badArgument', `The argument ${name} may be given once, as text`);
    args[name] = value;
  }
  if (spec.exclusive && args[spec.exclusive] !== undefined) {
    if (Object.keys(args).length > 1) throw new OaiError('badArgument', `${spec.exclusive} is an exclusive argument`);
    return { verb, args };
  }
  const missing = spec.required.filter((name) => args[name] === undefined || args[name] === '');
  if (missing.length) throw new OaiError('badArgument', `Missing required argument: ${missing.join(', ')}`);
  return { verb, args };
}

/** A datestamp argument as a time range bound (ms), with its granularity. */
function parseDatestamp(text: string, name: string, end: boolean): { ms: number; seconds: boolean } {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const second = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/.exec(text);
  const m = day ?? second;
  if (!m) throw new OaiError('badArgument', `${name} must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ`);
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1).map((v) => v);
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(ms);
  if (Number.isNaN(ms) || back.getUTCMonth() !== Number(mo) - 1 || back.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    throw new OaiError('badArgument', `${name} is not a valid date: ${text}`);
  }
  // An until of a day or second includes all of it.
  return { ms: end ? ms + (day ? 86_400_000 : 1000) - 1 : ms, seconds: !day };
}

function timeRange(from?: string, until?: string): { fromMs?: number; untilMs?: number } {
  const f = from !== undefined ? parseDatestamp(from, 'from', false) : undefined;
  const u = until !== undefined ? parseDatestamp(until, 'until', true) : undefined;
  if (f && u && f.seconds !== u.seconds) throw new OaiError('badArgument', 'from and until must have the same granularity');
  if (f && u && f.ms > u.ms) throw new OaiError('badArgument', 'from must not be later than until');
  return { fromMs: f?.ms, untilMs: u?.ms };
}

function formatFor(prefix: string): MetadataFormat {
  const format = oaiFormats().find((f) => f.prefix === prefix);
  if (!format) throw new OaiError('cannotDisseminateFormat', `The metadata format ${prefix} is not supported by this repository`);
  return format;
}

// ---------------------------------------------------------------------------------------------
// What may be harvested

/** A set spec from a configured name: characters a setSpec cannot hold become `_`. */
const asSetSpec = (name: string) => name.replace(/[^A-Za-z0-9\-_.!~*'()]/g, '_');

async function harvestContext(s: Services): Promise<Context> {
  const settings = await oaiSettings(s);
  const levelRows: Array<{ id: number | null; value: string }> = await s.db.knex('enumeration_values')
    .where({ enum_name: LEVEL_ENUM }).orderBy('position').select('id', 'value');
  const levelById = new Map(levelRows.map((r) => [String(r.id), r.value]));
  // The global repository holds no archival records (and is no repository a harvester knows).
  const repoRows: Array<{ id: number; json: string }> = await s.db.knex('records').where({ type: 'repository', hidden: false })
    .whereNot('id', GLOBAL_REPO_ID).select('id', 'json');
  const repos: HarvestRepo[] = [];
  for (const row of repoRows) {
    const repo = JSON.parse(row.json) as Obj;
    if (repo.publish === false || repo.oai_is_disabled === true) continue;
    let offered: string[] = [];
    try {
      offered = repo.oai_sets_available ? JSON.parse(repo.oai_sets_available) : [];
    } catch {
      offered = [];
    }
    const levels = Array.isArray(offered) && offered.length ? offered.map((id) => levelById.get(String(id)) ?? String(id)) : null;
    repos.push({ id: Number(row.id), code: String(repo.repo_code ?? ''), name: String(repo.name ?? repo.repo_code ?? row.id), levels });
  }
  return { s, settings, repos, levels: levelRows.map((r) => r.value) };
}

interface SetDef {
  spec: string;
  name: string;
  description?: string;
  /** Narrows a type's record query to the set's members. */
  restrict(q: Knex.QueryBuilder, type: TypeInfo, ctx: Context): Promise<void> | void;
  /** Deletions in the set, by URI (unknown for level sets: every deletion is reported). */
  deletion?(uri: string): boolean;
}

function repoOfUri(uri: string): number | undefined {
  const m = /^\/repositories\/(\d+)\//.exec(uri);
  return m ? Number(m[1]) : undefined;
}

/** Keeps the rows whose JSON text at `path` is one of `values` (none: no rows). */
function whereJsonIn(q: Knex.QueryBuilder, ctx: Context, path: string, values: string[]): void {
  if (!values.length) q.whereRaw('1 = 0');
  else q.whereRaw(`${jsonTextSql(ctx.s.db, path)} IN (${values.map(() => '?').join(', ')})`, values);
}

function setDefinitions(ctx: Context): SetDef[] {
  const { settings } = ctx;
  const sets: SetDef[] = [];
  if (settings.repoSetCodes.length && settings.repoSetName && !ctx.levels.includes(settings.repoSetName)) {
    const ids = ctx.repos.filter((r) => settings.repoSetCodes.includes(r.code)).map((r) => r.id);
    sets.push({
      spec: asSetSpec(settings.repoSetName), name: settings.repoSetName, description: settings.repoSetDescription,
      restrict: (q) => void q.whereIn('repo_id', ids.length ? ids : [-1]),
      deletion: (uri) => ids.includes(repoOfUri(uri) ?? -1),
    });
  }
  if (settings.sponsorSetNames.length && settings.sponsorSetName && !ctx.levels.includes(settings.sponsorSetName)) {
    sets.push({
      spec: asSetSpec(settings.sponsorSetName), name: settings.sponsorSetName, description: settings.sponsorSetDescription,
      // Finding aids of these sponsors, and the records in their trees.
      restrict: async (q, type, c) => {
        if (type.props.finding_aid_sponsor) {
          whereJsonIn(q, c, '$.finding_aid_sponsor', settings.sponsorSetNames);
        } else if (type.tree) {
          const roots = c.s.db.knex('records').where({ type: type.tree.root });
          whereJsonIn(roots, c, '$.finding_aid_sponsor', settings.sponsorSetNames);
          whereJsonIn(q, c, `$.${type.tree.rootProperty}.ref`, await roots.pluck('uri'));
        } else q.whereRaw('1 = 0');
      },
    });
  }
  for (const repo of ctx.repos) {
    sets.push({
      spec: `repository:${repo.id}`, name: repo.name,
      restrict: (q) => void q.where('repo_id', repo.id),
      deletion: (uri) => repoOfUri(uri) === repo.id,
    });
  }
  // A level is a set when some harvested repository offers it.
  for (const level of ctx.levels) {
    if (!ctx.repos.some((r) => !r.levels || r.levels.includes(level))) continue;
    sets.push({ spec: level, name: level, restrict: (q) => whereJsonIn(q, ctx, '$.level', [level]) });
  }
  return sets;
}

/**
 * The visible records of one type, in id order, after `lastId`. The builder comes back wrapped:
 * a Knex builder is a thenable, and returning it bare from an async function would run it.
 */
async function recordsQuery(ctx: Context, type: TypeInfo, pos: ListPosition, set: SetDef | undefined): Promise<{ query: Knex.QueryBuilder }> {
  const { knex } = ctx.s.db;
  const q = knex('records').where({ type: type.name, hidden: false }).andWhereRaw(publishedClause(ctx.s.db)).andWhere('id', '>', pos.lastId);
  if (!ctx.repos.length) q.whereRaw('1 = 0');
  else {
    q.where((any) => {
      for (const repo of ctx.repos) {
        any.orWhere((one) => {
          one.where('repo_id', repo.id);
          if (repo.levels) whereJsonIn(one, ctx, '$.level', repo.levels);
        });
      }
    });
  }
  const { fromMs, untilMs } = timeRange(pos.from, pos.until);
  if (fromMs !== undefined) q.where('system_mtime_ms', '>=', fromMs);
  if (untilMs !== undefined) q.where('system_mtime_ms', '<=', untilMs);
  if (set) await set.restrict(q, type, ctx);
  return { query: q.orderBy('id') };
}

interface PageRow {
  json: string;
  system_mtime_ms: number;
  parent_rid: number | null;
  root_uri: string | null;
}

/** Records a harvester may see after the query's checks: not under an unpublished ancestor. */
async function visibleRecords(ctx: Context, rows: PageRow[], type: TypeInfo): Promise<Item[]> {
  const hidden = await underHiddenAncestor(ctx.s.db.knex, rows);
  return rows
    .filter((row) => !hidden.has(row))
    .map((row): Item => ({ kind: 'record', type, record: JSON.parse(row.json) as Obj, mtimeMs: Number(row.system_mtime_ms) }));
}

/**
 * Up to `max` items from `pos` on: records type by type, then deletions. Returns the items and
 * the position after the last one. Pure in `pos`: a token's page is the same in any process.
 */
async function walk(ctx: Context, format: MetadataFormat, start: ListPosition, max: number): Promise<{ items: Item[]; pos: ListPosition }> {
  const types = typesFor(ctx.s.registry, format);
  const set = start.set !== undefined ? setDefinitions(ctx).find((d) => d.spec === start.set) : undefined;
  const pos = { ...start };
  const items: Item[] = [];
  if (start.set !== undefined && !set) return { items, pos: { ...pos, phase: 'deletes', typeIndex: types.length, lastSeq: Number.MAX_SAFE_INTEGER } };
  while (pos.phase === 'records' && items.length < max) {
    if (pos.typeIndex >= types.length) {
      pos.phase = 'deletes';
      pos.lastSeq = 0;
      break;
    }
    const type = types[pos.typeIndex];
    const limit = max - items.length;
    const rows = await (await recordsQuery(ctx, type, pos, set)).query.limit(limit + 1).select('id', 'json', 'system_mtime_ms', 'parent_rid', 'root_uri');
    const taken = rows.slice(0, limit);
    items.push(...(await visibleRecords(ctx, taken, type)));
    if (rows.length <= limit) {
      pos.typeIndex += 1;
      pos.lastId = 0;
    } else pos.lastId = Number(taken[taken.length - 1].id);
  }
  if (pos.phase === 'deletes' && items.length < max) {
    const { fromMs, untilMs } = timeRange(pos.from, pos.until);
    const harvestable = new Set(ctx.repos.map((r) => r.id));
    const typeNames = types.map((t) => t.name);
    while (items.length < max) {
      const limit = max - items.length;
      const q = ctx.s.db.knex('change_log').where({ op: 'delete' }).whereIn('type', typeNames.length ? typeNames : ['']).andWhere('seq', '>', pos.lastSeq);
      if (fromMs !== undefined) q.where('at_ms', '>=', fromMs);
      if (untilMs !== undefined) q.where('at_ms', '<=', untilMs);
      const rows: Array<{ seq: number; uri: string; at_ms: number }> = await q.orderBy('seq').limit(limit + 1).select('seq', 'uri', 'at_ms');
      const taken = rows.slice(0, limit);
      for (const row of taken) {
        if (!harvestable.has(repoOfUri(row.uri) ?? -1)) continue;
        if (set?.deletion && !set.deletion(row.uri)) continue;
        items.push({ kind: 'deleted', uri: row.uri, atMs: Number(row.at_ms) });
      }
      if (taken.length) pos.lastSeq = Number(taken[taken.length - 1].seq);
      if (rows.length <= limit) {
        pos.lastSeq = Number.MAX_SAFE_INTEGER;
        break;
      }
    }
  }
  return { items, pos };
}

// ---------------------------------------------------------------------------------------------
// Writing

function identifierOf(ctx: Context, uri: string): string {
  return `${ctx.settings.recordPrefix}/${uri}`;
}

function setSpecsOf(ctx: Context, record: Obj): string[] {
  const specs: string[] = [];
  const repoId = repoOfUri(String(record.uri));
  const repo = ctx.repos.find((r) => r.id === repoId);
  if (record.level && ctx.levels.includes(record.level)) specs.push(record.level);
  if (repo) specs.push(`repository:${repo.id}`);
  if (repo && ctx.settings.repoSetName && ctx.settings.repoSetCodes.includes(repo.code)) specs.push(asSetSpec(ctx.settings.repoSetName));
  return specs;
}

function writeHeader(w: XmlWriter, ctx: Context, item: Item): void {
  if (item.kind === 'deleted') {
    w.open('header', { status: 'deleted' }).leaf('identifier', identifierOf(ctx, item.uri)).leaf('datestamp', isoSeconds(item.atMs)).close();
    return;
  }
  w.open('header');
  w.leaf('identifier', identifierOf(ctx, item.record.uri));
  w.leaf('datestamp', isoSeconds(item.mtimeMs));
  for (const spec of setSpecsOf(ctx, item.record)) w.leaf('setSpec', spec);
  w.close();
}

async function writeRecord(w: XmlWriter, ctx: Context, item: Item, format: MetadataFormat): Promise<void> {
  w.open('record');
  writeHeader(w, ctx, item);
  if (item.kind === 'record') {
    w.open('metadata');
    await format.write(w, item.record, item.type, ctx.s);
    w.close();
  }
  w.close();
  await w.flush();
}

function writeToken(w: XmlWriter, start: ListPosition, count: number, next: ListPosition | undefined, continued: boolean): void {
  if (next) w.leaf('resumptionToken', encodeToken({ ...next, cursor: start.cursor + count }), { cursor: start.cursor });
  // The last page of a list that was resumed ends it with an empty token.
  else if (continued) w.empty('resumptionToken', { cursor: start.cursor });
}

// ---------------------------------------------------------------------------------------------
// Verbs

type Body = (w: XmlWriter) => Promise<void> | void;

async function identify(ctx: Context): Promise<Body> {
  return (w) => {
    w.open('Identify');
    w.leaf('repositoryName', ctx.settings.repositoryName);
    w.leaf('baseURL', ctx.s.config.oaiBaseUrl);
    w.leaf('protocolVersion', '2.0');
    w.leaf('adminEmail', ctx.settings.adminEmail);
    w.leaf('earliestDatestamp', '1970-01-01T00:00:00Z');
    w.leaf('deletedRecord', 'persistent');
    w.leaf('granularity', 'YYYY-MM-DDThh:mm:ssZ');
    w.close();
  };
}

/** The record an identifier names: the visible record, or its deletion, or idDoesNotExist. */
async function findItem(ctx: Context, identifier: string): Promise<Item> {
  const prefix = `${ctx.settings.recordPrefix}/`;
  const uri = identifier.startsWith(prefix) ? identifier.slice(prefix.length) : '';
  const type = uri ? ctx.s.registry.typeOfUri(uri) : undefined;
  const harvested = harvestedTypes(ctx.s.registry);
  if (!type || !harvested.some((t) => t.name === type.name)) throw new OaiError('idDoesNotExist', `No record has the identifier ${identifier}`);
  const id = Number(uri.split('/').pop());
  const { query } = await recordsQuery(ctx, type, { prefix: '', phase: 'records', typeIndex: 0, lastId: id - 1, lastSeq: 0, cursor: 0 }, undefined);
  const rows = Number.isSafeInteger(id) && id > 0 ? await query.andWhere('id', id).select('id', 'json', 'system_mtime_ms', 'parent_rid', 'root_uri') : [];
  const [item] = await visibleRecords(ctx, rows, type);
  if (item) return item;
  const deleted = await ctx.s.db.knex('change_log').where({ uri, op: 'delete' }).orderBy('seq', 'desc').first('at_ms');
  if (deleted && ctx.repos.some((r) => r.id === repoOfUri(uri))) return { kind: 'deleted', uri, atMs: Number(deleted.at_ms) };
  throw new OaiError('idDoesNotExist', `No record has the identifier ${identifier}`);
}

async function listMetadataFormats(ctx: Context, args: Args): Promise<Body> {
  let formats = [...oaiFormats()];
  if (args.identifier !== undefined) {
    const item = await findItem(ctx, args.identifier);
    const type = item.kind === 'record' ? item.type : ctx.s.registry.typeOfUri(item.uri)!;
    formats = formats.filter((f) => type.export?.[f.mappingKey]);
    if (!formats.length) throw new OaiError('noMetadataFormats', 'No metadata formats are available for this item');
  }
  return (w) => {
    w.open('ListMetadataFormats');
    for (const f of formats) w.open('metadataFormat').leaf('metadataPrefix', f.prefix).leaf('schema', f.schema).leaf('metadataNamespace', f.namespace).close();
    w.close();
  };
}

async function listSets(ctx: Context, args: Args): Promise<Body> {
  if (args.resumptionToken !== undefined) throw new OaiError('badResumptionToken', 'ListSets is answered whole: there is no token to resume');
  const sets = setDefinitions(ctx);
  if (!sets.length) throw new OaiError('noSetHierarchy', 'This repository has no sets');
  return (w) => {
    w.open('ListSets');
    for (const set of sets) {
      w.open('set').leaf('setSpec', set.spec).leaf('setName', set.name);
      if (set.description) {
        w.open('setDescription');
        w.open('oai_dc:dc', {
          'xmlns:oai_dc': 'http://www.openarchives.org/OAI/2.0/oai_dc/', 'xmlns:dc': 'http://purl.org/dc/elements/1.1/',
        });
        w.leaf('dc:description', set.description);
        w.close().close();
      }
      w.close();
    }
    w.close();
  };
}

async function listItems(ctx: Context, verb: 'ListRecords' | 'ListIdentifiers', args: Args): Promise<Body> {
  let start: ListPosition;
  const continued = args.resumptionToken !== undefined;
  if (continued) {
    const decoded = decodeToken(args.resumptionToken);
    if (!decoded || !oaiFormats().some((f) => f.prefix === decoded.prefix)) throw new OaiError('badResumptionToken', 'The resumption token is not valid');
    start = decoded;
    try {
      timeRange(start.from, start.until);
    } catch {
      throw new OaiError('badResumptionToken', 'The resumption token is not valid');
    }
  } else {
    const format = formatFor(args.metadataPrefix);
    timeRange(args.from, args.until);
    start = { prefix: format.prefix, set: args.set, from: args.from, until: args.until, phase: 'records', typeIndex: 0, lastId: 0, lastSeq: 0, cursor: 0 };
  }
  const format = formatFor(start.prefix);
  const pageSize = pageSizeFor(format, ctx.s.config.oaiPageSize);
  const page = await walk(ctx, format, start, pageSize);
  if (!page.items.length) {
    if (continued) throw new OaiError('badResumptionToken', 'The resumption token names a position past the end of the list');
    throw new OaiError('noRecordsMatch', 'No records match the request');
  }
  // One item looked for past the page: a list ends on its last page, never on an empty one.
  const more = (await walk(ctx, format, page.pos, 1)).items.length > 0;
  if (verb === 'ListRecords') {
    const records = page.items.filter((i) => i.kind === 'record').map((i) => (i as { record: Obj }).record);
    await resolveLinks(records, OAI_RESOLVE, uriLoader(ctx.s));
  }
  return async (w) => {
    w.open(verb);
    for (const item of page.items) {
      if (verb === 'ListRecords') await writeRecord(w, ctx, item, format);
      else writeHeader(w, ctx, item);
    }
    writeToken(w, start, page.items.length, more ? page.pos : undefined, continued);
    w.close();
  };
}

async function getRecord(ctx: Context, args: Args): Promise<Body> {
  const format = formatFor(args.metadataPrefix);
  const item = await findItem(ctx, args.identifier);
  if (item.kind === 'record') {
    if (!item.type.export?.[format.mappingKey]) {
      throw new OaiError('cannotDisseminateFormat', `The record cannot be disseminated as ${format.prefix}`);
    }
    await resolveLinks([item.record], OAI_RESOLVE, uriLoader(ctx.s));
  }
  return async (w) => {
    w.open('GetRecord');
    await writeRecord(w, ctx, item, format);
    w.close();
  };
}

/**
 * Answers one OAI-PMH request (the query string or form parameters as sent) with a function that
 * writes the response document. Everything that can fail runs before it is returned, so a
 * protocol error is a complete error document.
 */
export async function oaiResponse(s: Services, raw: Record<string, unknown>, now = new Date()): Promise<(w: XmlWriter) => Promise<void>> {
  let verb: string | undefined;
  let args: Args = {};
  let body: Body;
  let echo = false;
  try {
    ({ verb, args } = parseRequest(raw));
    echo = true;
    const ctx = await harvestContext(s);
    switch (verb) {
      case 'Identify': body = await identify(ctx); break;
      case 'ListMetadataFormats': body = await listMetadataFormats(ctx, args); break;
      case 'ListSets': body = await listSets(ctx, args); break;
      case 'GetRecord': body = await getRecord(ctx, args); break;
      default: body = await listItems(ctx, verb as 'ListRecords' | 'ListIdentifiers', args);
    }
  } catch (err) {
    if (!(err instanceof OaiError)) throw err;
    // The request element repeats the arguments only when they were acceptable.
    if (err.code === 'badVerb' || err.code === 'badArgument') echo = false;
    const e = err;
    body = (w) => void w.leaf('error', e.message, { code: e.code });
  }
  return async (w) => {
    w.open('OAI-PMH', {
      xmlns: OAI_NS,
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': `${OAI_NS} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd`,
    });
    w.leaf('responseDate', isoSeconds(now.getTime()));
    w.leaf('request', s.config.oaiBaseUrl, echo ? { verb, ...args } : undefined);
    await body(w);
    w.close();
  };
}
