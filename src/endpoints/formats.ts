/**
 * Export routes of the record formats other than EAD: MARCXML of resources, EAC-CPF and MARC
 * authority records of agents, MODS / METS / Dublin Core of digital objects. Paths, parameters
 * and metadata answers as ArchivesSpace's exports controller; each document is streamed.
 */
import type { Registry } from '../registry';
import { exportFilename, exportMetadata, loadForExport, xmlReply } from '../exchange/export/common';
import { MARC21_RESOLVE, marc21Mapping, writeMarc21Document } from '../exchange/export/marc21';
import { PUBLIC_USERNAME } from '../search/service';
import { Call, Endpoint, json } from './types';

const id = { name: 'id', type: 'integer', required: true } as const;
const fmt = { name: 'fmt', type: 'string' } as const;

/** Unpublished content goes out only when asked for, and never to the public (PUI) user. */
export function unpublishedWanted(call: Call, asked: boolean | undefined): boolean {
  return !!asked && call.actor?.username !== PUBLIC_USERNAME;
}

function resourceIdentifier(record: Record<string, unknown>): string {
  return ['id_0', 'id_1', 'id_2', 'id_3'].map((k) => record[k]).filter((v) => v !== undefined && v !== null && v !== '').join('.');
}

function marcEndpoints(): Endpoint[] {
  const unpublished = { name: 'include_unpublished_marc', type: 'boolean' } as const;
  return [
    {
      method: 'get', path: '/repositories/:repo_id/resources/marc21/:id.xml', permission: 'view_repository',
      params: [id, unpublished], produces: 'application/xml',
      summary: 'Get a MARC 21 representation of a Resource',
      handle: async (call) => {
        const record = await loadForExport(call.s, 'resource', call.params.id, call.repoId, MARC21_RESOLVE);
        const includeUnpublished = unpublishedWanted(call, call.params.include_unpublished_marc);
        return xmlReply(async (w) => writeMarc21Document(w, record, marc21Mapping(call.s, 'resource') ?? {}, { includeUnpublished }));
      },
    },
    {
      method: 'get', path: '/repositories/:repo_id/resources/marc21/:id.:fmt/metadata', permission: 'view_repository',
      params: [id, fmt, unpublished],
      summary: 'Get metadata for a MARC21 export',
      handle: async (call) => {
        const record = await loadForExport(call.s, 'resource', call.params.id, call.repoId);
        return json(exportMetadata(exportFilename(resourceIdentifier(record), '_marc21.xml')));
      },
    },
  ];
}

export function formatEndpoints(_registry: Registry): Endpoint[] {
  return [...marcEndpoints()];
}
