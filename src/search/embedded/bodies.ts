/**
 * Documents as the embedded index stores them: the body returned in results (compressed), and a
 * document prepared for writing (its text by field, its exact values by field).
 */
import zlib from 'node:zlib';
import type { SearchDoc } from '../documents';
import type { FieldCatalogue } from '../fields';
import { integerRuns } from './doc-sets';
import { MAX_VALUE } from './values';

/** Fields kept out of the stored body: never returned in results. */
const UNSTORED = new Set(['fullrecord', 'fullrecord_published']);

/** Stored documents are compressed: read a page at a time, they would otherwise be most of the file. */
export function pack(body: string | Uint8Array): Buffer {
  return zlib.deflateRawSync(body, { level: 1 });
}

/**
 * A stored body: the document's fields as JSON, then a newline and the record's JSON as it is
 * (JSON text holds no raw newline). Written inside the fields' JSON, the record's JSON was escaped
 * on every write and unescaped on every read: a tenth of a rebuild's building thread, and larger to compress.
 */
function bodyText(fields: SearchDoc, json: string | undefined): string {
  const text = JSON.stringify(fields);
  return json === undefined ? text : `${text}\n${json}`;
}

/** The document a stored body holds (bodyText's inverse). */
export function documentOf(text: string): SearchDoc {
  const split = text.indexOf('\n');
  if (split < 0) return JSON.parse(text) as SearchDoc;
  const doc = JSON.parse(text.slice(0, split)) as SearchDoc;
  doc.json = text.slice(split + 1);
  return doc;
}

/**
 * A document as the index writes it: its stored body (compressed by the thread that writes it),
 * its text by field, its exact values by field. Pure (no index state), so the work can be done by
 * either thread: a rebuild prepares its pages in the thread that builds them, leaving the index's
 * thread the compression and the writes (a profile of make reindex: the building thread was busy
 * 95 % of the time, a fifth of it in zlib, and waited for by the index's thread).
 */
export interface PreparedDoc {
  uri: string;
  type: string;
  /** bodyText(): the fields stored and the record's JSON; as UTF-8 when moved between threads (bodiesAsBytes). */
  body: string | Uint8Array;
  /**
   * Field, text, field, text...: flat, as `values` (field, value or values, ...), since a page's
   * message is cloned object by object, and a pair array per field was a third of its objects.
   */
  texts: string[];
  values: Array<string | string[]>;
}

export function prepareDocument(doc: SearchDoc, fields: FieldCatalogue): PreparedDoc {
  const stored: SearchDoc = {};
  let json: string | undefined;
  const texts: string[] = [];
  const values: Array<string | string[]> = [];
  for (const field in doc) {
    const value = doc[field];
    if (field === 'json' && typeof value === 'string') json = value;
    else if (!UNSTORED.has(field)) stored[field] = value;
    const kind = fields.kind(field);
    const list = Array.isArray(value) ? value : [value];
    // Identifiers (collated) are words too, as Solr's analysed identifier field.
    if (fields.searchedAsWords(field)) texts.push(field, list.join('\n'));
    // Text fields live in FTS; id repeats uri; json is only returned.
    if (kind !== 'text' && field !== 'json' && field !== 'id') {
      const strings = list.map((v) => String(v).slice(0, MAX_VALUE));
      const exact = kind === 'int' ? integerRuns(strings) : strings;
      values.push(field, exact.length === 1 ? exact[0] : exact);
    }
  }
  return { uri: String(doc.uri), type: String(doc.primary_type), body: bodyText(stored, json), texts, values };
}

/**
 * Makes a page's bodies UTF-8 in one buffer, each document's body a view of it, and returns that
 * buffer for the page's message to transfer: the index thread gets them without a copy, and
 * compresses the bytes as they are, where a string was copied into the message, copied out into
 * a new string, then encoded again for zlib.
 */
export function bodiesAsBytes(docs: PreparedDoc[]): ArrayBuffer {
  let total = 0;
  for (const doc of docs) total += typeof doc.body === 'string' ? Buffer.byteLength(doc.body) : doc.body.length;
  const bytes = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const doc of docs) {
    const length = typeof doc.body === 'string' ? bytes.write(doc.body, at) : (bytes.set(doc.body, at), doc.body.length);
    doc.body = bytes.subarray(at, at + length);
    at += length;
  }
  return bytes.buffer;
}

export function unpack(body: Buffer): string {
  return zlib.inflateRawSync(body).toString('utf8');
}
