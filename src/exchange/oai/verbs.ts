/**
 * The six verbs' answers: each checks what it was asked and reads what it needs before it
 * returns the function that writes its element of the response, so a protocol error is found
 * before anything is written.
 */
import type { Obj } from '../../json';
import { isoSeconds } from '../../records/context';
import { uriLoader } from '../../records/load';
import { resolveLinks } from '../../records/resolve';
import type { XmlWriter } from '../xml';
import { MetadataFormat, OAI_RESOLVE, oaiFormats, pageSizeFor } from './formats';
import { findItem, Item, walk } from './lists';
import { Args, formatFor, OaiError, timeRange } from './request';
import { Context, setDefinitions, setSpecsOf } from './sets';
import { decodeToken, encodeToken, ListPosition } from './token';

function identifierOf(ctx: Context, uri: string): string {
  return `${ctx.settings.recordPrefix}/${uri}`;
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

export type Body = (w: XmlWriter) => Promise<void> | void;

export async function identify(ctx: Context): Promise<Body> {
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


export async function listMetadataFormats(ctx: Context, args: Args): Promise<Body> {
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

export async function listSets(ctx: Context, args: Args): Promise<Body> {
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

export async function listItems(ctx: Context, verb: 'ListRecords' | 'ListIdentifiers', args: Args): Promise<Body> {
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

export async function getRecord(ctx: Context, args: Args): Promise<Body> {
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

