/**
 * An OAI-PMH request's arguments checked against its verb (badVerb, badArgument), its datestamps
 * read as a time range, its metadata prefix as a format; and the protocol's errors, answered in
 * the protocol's XML.
 */
import { MetadataFormat, oaiFormats } from './formats';

export type Args = Record<string, string>;

export interface VerbSpec {
  required: string[];
  optional: string[];
  /** An argument that must come alone (resumptionToken). */
  exclusive?: string;
}

export const VERBS: Record<string, VerbSpec> = {
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

export class OaiError extends Error {
  constructor(readonly code: OaiErrorCode, message: string) {
    super(message);
  }
}


/** Verb and arguments, checked against the verb (badVerb, badArgument). */
export function parseRequest(raw: Record<string, unknown>): { verb: string; args: Args } {
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
export function parseDatestamp(text: string, name: string, end: boolean): { ms: number; seconds: boolean } {
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

export function timeRange(from?: string, until?: string): { fromMs?: number; untilMs?: number } {
  const f = from !== undefined ? parseDatestamp(from, 'from', false) : undefined;
  const u = until !== undefined ? parseDatestamp(until, 'until', true) : undefined;
  if (f && u && f.seconds !== u.seconds) throw new OaiError('badArgument', 'from and until must have the same granularity');
  if (f && u && f.ms > u.ms) throw new OaiError('badArgument', 'from must not be later than until');
  return { fromMs: f?.ms, untilMs: u?.ms };
}

export function formatFor(prefix: string): MetadataFormat {
  const format = oaiFormats().find((f) => f.prefix === prefix);
  if (!format) throw new OaiError('cannotDisseminateFormat', `The metadata format ${prefix} is not supported by this repository`);
  return format;
}
