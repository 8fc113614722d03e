/**
 * What the OAI-PMH provider harvests and in which formats, from the schemas: a record type is
 * harvested when its `x-archive.export` has an `oai` block, and is offered in each metadata
 * format whose mapping it carries (`dc` → oai_dc, `dcterms` → oai_dcterms, `marc21` → oai_marc,
 * `mods` → oai_mods, `ead` → oai_ead, the finding aid with its tree). oai_dc is the protocol's required format,
 * so a harvested type needs at least its `dc` mapping.
 *
 *   "export": { "oai": {}, "dc": {...}, "dcterms": {...}, "mods": {...}, "marc21": {...} }
 */
import type { Obj } from '../../json';
import type { Services } from '../../records/context';
import { uriLoader } from '../../records/load';
import { resolveLinks } from '../../records/resolve';
import type { Registry, TypeInfo } from '../../registry';
import type { XmlWriter } from '../xml';
import { DcMapping, OAI_DC_NS, writeOaiDc } from '../export/dc';
import { DCTERMS_NS, DCTERMS_SCHEMA, DctermsMapping, linksRead, writeOaiDcterms } from '../export/dcterms';
import { EAD_NS, EAD_RESOLVE, writeEad } from '../export/ead';
import { buildMarc21, Marc21Mapping } from '../export/marc21';
import { writeMarcRecord } from '../export/marc-record';
import { MARC_NS } from '../export/marc-tables';
import { ModsMapping, MODS_NS, writeMods } from '../export/mods';

export interface MetadataFormat {
  prefix: string;
  schema: string;
  namespace: string;
  /** The `x-archive.export` key a type needs to be offered in this format. */
  mappingKey: string;
  /** Records per page at most (finding aids are large: one a page). */
  pageSize?: number;
  /** Writes one record's metadata (its links resolved: repository, agents, subjects). */
  write(w: XmlWriter, record: Obj, type: TypeInfo, s: Services): Promise<void> | void;
}

/** The links a harvested record's metadata reads resolved. */
export const OAI_RESOLVE = ['repository', 'linked_agents', 'subjects'];

const mapping = <T>(type: TypeInfo, key: string) => (type.export?.[key] ?? {}) as T;

const FORMATS: MetadataFormat[] = [
  {
    prefix: 'oai_dc', schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd', namespace: OAI_DC_NS, mappingKey: 'dc',
    write: (w, record, type) => writeOaiDc(w, record, mapping<DcMapping>(type, 'dc'), false),
  },
  {
    // ArchivesSpace advertises the terms namespace, though the root element is oai_dcterms:dcterms.
    prefix: 'oai_dcterms', schema: DCTERMS_SCHEMA, namespace: DCTERMS_NS, mappingKey: 'dcterms',
    write: async (w, record, type, s) => {
      const terms = mapping<DctermsMapping>(type, 'dcterms');
      const unresolved = linksRead(terms).filter((link) => !OAI_RESOLVE.includes(link));
      if (unresolved.length) await resolveLinks([record], unresolved, uriLoader(s));
      writeOaiDcterms(w, record, terms, false);
    },
  },
  {
    prefix: 'oai_marc', schema: 'https://www.loc.gov/standards/marcxml/schema/MARC21slim.xsd', namespace: MARC_NS, mappingKey: 'marc21',
    write: (w, record, type) => writeMarcRecord(w, buildMarc21(record, mapping<Marc21Mapping>(type, 'marc21'), { includeUnpublished: false }), true),
  },
  {
    prefix: 'oai_mods', schema: 'https://www.loc.gov/standards/mods/v3/mods-3-6.xsd', namespace: MODS_NS, mappingKey: 'mods',
    write: (w, record, type) => writeMods(w, record, [], { includeUnpublished: false, mapping: mapping<ModsMapping>(type, 'mods'), version: '3.6' }),
  },
  {
    // The finding aid with its whole component tree, streamed: one a page. (ArchivesSpace advertises
    // http://www.loc.gov/ead/ as the namespace; the documents are in EAD 2002's own, named here.)
    prefix: 'oai_ead', schema: 'https://www.loc.gov/ead/ead.xsd', namespace: EAD_NS, mappingKey: 'ead', pageSize: 1,
    write: async (w, record, _type, s) => {
      await resolveLinks([record], EAD_RESOLVE, uriLoader(s));
      await writeEad(s, w, record, record.repository?._resolved ?? {}, { includeUnpublished: false, includeDaos: false, includeUris: true, numberedCs: false });
    },
  },
];

export function oaiFormats(): readonly MetadataFormat[] {
  return FORMATS;
}

/** Harvested record types, in a fixed order (the order of a list's walk). */
export function harvestedTypes(registry: Registry): TypeInfo[] {
  return Object.values(registry.types)
    .filter((t) => t.kind === 'record' && t.scope === 'repository' && t.export?.oai && t.export?.dc)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The harvested types offered in a format. */
export function typesFor(registry: Registry, format: MetadataFormat): TypeInfo[] {
  return harvestedTypes(registry).filter((t) => t.export?.[format.mappingKey]);
}

/** Items per page of a list in this format: the configured size, or the format's own cap (finding aids). */
export function pageSizeFor(format: MetadataFormat, configured: number): number {
  return Math.max(1, Math.min(configured, format.pageSize ?? configured));
}
