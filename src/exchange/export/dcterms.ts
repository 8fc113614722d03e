/**
 * Qualified Dublin Core for OAI-PMH's oai_dcterms, from the record type's
 * `x-archive.export.dcterms` mapping: each DCMI term lists its sources in the syntax of the `dc`
 * mapping (dc.ts), in the order the mapping names the terms.
 *
 *   "dcterms": { "title": ["title"], "alternative": ["finding_aid_title"], "dateCopyrighted": ["@dates:copyright"] }
 *
 * The root is ArchivesSpace's `oai_dcterms:dcterms`. The fifteen DCMES elements are written in the
 * elements namespace (`dc:title`) and their refinements in the terms namespace
 * (`dcterms:abstract`), as DCMI's terms schema declares them (qdc dcterms.xsd, which in its
 * 2006 edition has no `dcterms:title`); ArchivesSpace writes every term as `dcterms:`.
 */
import type { XmlWriter } from '../xml';
import type { Archival } from './common';
import { DC_ELEMENTS, DC_NS, dcValues } from './dc';

export const DCTERMS_NS = 'http://purl.org/dc/terms/';
export const OAI_DCTERMS_NS = 'http://www.openarchives.org/OAI/2.0/oai_dcterms/';
/** The schema ArchivesSpace names for oai_dcterms (ListMetadataFormats). */
export const DCTERMS_SCHEMA = 'http://dublincore.org/schemas/xmls/qdc/2008/02/11/dcterms.xsd';

/** The element refinements and other terms DCMI's terms schema declares in the terms namespace. */
export const DCTERMS_REFINEMENTS = [
  'alternative', 'tableOfContents', 'abstract', 'created', 'valid', 'available', 'issued', 'modified', 'dateAccepted',
  'dateCopyrighted', 'dateSubmitted', 'extent', 'medium', 'isVersionOf', 'hasVersion', 'isReplacedBy', 'replaces',
  'isRequiredBy', 'requires', 'isPartOf', 'hasPart', 'isReferencedBy', 'references', 'isFormatOf', 'hasFormat',
  'conformsTo', 'spatial', 'temporal', 'audience', 'accrualMethod', 'accrualPeriodicity', 'accrualPolicy',
  'instructionalMethod', 'provenance', 'rightsHolder', 'mediator', 'educationLevel', 'accessRights', 'license',
  'bibliographicCitation',
] as const;

export type DctermsMapping = Record<string, string[]>;

const IN_DC = new Set<string>(DC_ELEMENTS);

/** The links a mapping reads through `<link>._resolved`, beyond those every harvested record has resolved. */
export function linksRead(mapping: DctermsMapping): string[] {
  const links = Object.values(mapping).flat().map((source) => /^(\w+)\._resolved\./.exec(source)?.[1] ?? (source === '@collection' ? 'resource' : undefined));
  return [...new Set(links.filter((l): l is string => l !== undefined))];
}

/** `oai_dcterms:dcterms` holding the record's DCMI terms. */
export function writeOaiDcterms(w: XmlWriter, record: Archival, mapping: DctermsMapping, includeUnpublished: boolean): void {
  w.open('oai_dcterms:dcterms', {
    'xmlns:oai_dcterms': OAI_DCTERMS_NS,
    'xmlns:dc': DC_NS,
    'xmlns:dcterms': DCTERMS_NS,
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': `${DCTERMS_NS} ${DCTERMS_SCHEMA}`,
  });
  for (const [term, value] of dcValues(record, mapping, includeUnpublished, Object.keys(mapping))) {
    w.leaf(`${IN_DC.has(term) ? 'dc' : 'dcterms'}:${term}`, value);
  }
  w.close();
}
