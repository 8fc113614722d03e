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
 * restarts and server processes. Arguments: request.ts; sets: sets.ts; lists: lists.ts; verbs: verbs.ts.
 */
import { isoSeconds, Services } from '../../records/context';
import type { XmlWriter } from '../xml';
import { Args, OaiError, parseRequest } from './request';
import { harvestContext } from './sets';
import { Body, getRecord, identify, listItems, listMetadataFormats, listSets } from './verbs';

export type { OaiErrorCode } from './request';

const OAI_NS = 'http://www.openarchives.org/OAI/2.0/';

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
