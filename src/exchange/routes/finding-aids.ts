/**
 * Finding aids of resources: EAD 2002 or EAD3 (`resource_descriptions/:id.xml`), PDF (`.pdf`, or
 * `.xml?print_pdf=true`), the export metadata
 * routes, and container labels (`resource_labels/:id.tsv`), with ArchivesSpace's paths and
 * parameters. Unpublished content only when asked for (never for the public user); suppressed
 * resources and components never.
 */
import { exportFilename, exportMetadata, loadForExport, xmlReply } from '../export/common';
import { EAD_RESOLVE, writeEad } from '../export/ead';
import { writeEad3, writePdf } from '../export/ead';
import type { Obj } from '../../json';
import { writeLabels } from '../export/labels';
import { readRecord } from '../../records/load';
import type { Services } from '../../records/context';
import { REPOSITORY_TYPE } from '../../registry';
import { idBeforeFormat, metadataId, resourceIdentifier, unpublishedWanted } from './formats';
import { Call, Endpoint, json, Reply } from '../../records/endpoint';

const id = { name: 'id', type: 'integer', required: true } as const;
const fmt = { name: 'fmt', type: 'string' } as const;
const flag = (name: string, fallback?: boolean) => ({ name, type: 'boolean', default: fallback } as const);

/** A resource as its finding aid is exported from (links resolved), and its repository: the routes and the PDF and labels jobs read them so. */
export async function findingAidSources(s: Services, repoId: number, resourceId: number): Promise<{ resource: Obj; repository: Obj }> {
  const resource = await loadForExport(s, 'resource', resourceId, repoId, EAD_RESOLVE);
  const repository = await readRecord(s, { type: s.registry.type(REPOSITORY_TYPE) }, repoId);
  return { resource, repository };
}

const load = (call: Call, resourceId: number) => findingAidSources(call.s, call.repoId!, resourceId);

function findingAidOptions(call: Call) {
  return {
    includeUnpublished: unpublishedWanted(call, call.params.include_unpublished),
    includeDaos: !!call.params.include_daos, includeUris: call.params.include_uris !== false, numberedCs: !!call.params.numbered_cs,
  };
}

function pdfReply(call: Call, resource: Obj, repository: Obj, options: ReturnType<typeof findingAidOptions>): Reply {
  return {
    contentType: 'application/pdf',
    headers: { 'Content-Disposition': `inline; filename="${exportFilename(resourceIdentifier(resource), '_ead.pdf')}"` },
    stream: (send) => writePdf(call.s, (chunk) => send(chunk), resource, repository, options),
  };
}

export function findingAidEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/repositories/:repo_id/resource_descriptions/:id.xml', permission: 'view_repository', errors: ['NotFound'],
      params: [id, flag('include_unpublished'), flag('include_daos'), flag('include_uris', true), flag('numbered_cs'), flag('ead3'), flag('print_pdf')],
      produces: 'application/xml',
      summary: 'Get an EAD representation of a Resource',
      handle: async (call) => {
        const { resource, repository } = await load(call, call.params.id);
        const options = findingAidOptions(call);
        // print_pdf answers the printable finding aid, as ArchivesSpace does.
        if (call.params.print_pdf) return pdfReply(call, resource, repository, options);
        return xmlReply((w) => (call.params.ead3 ? writeEad3 : writeEad)(call.s, w, resource, repository, options));
      },
    },
    {
      method: 'get', path: '/repositories/:repo_id/resource_descriptions/:id.pdf', permission: 'view_repository', errors: ['NotFound'],
      params: [id, flag('include_unpublished'), flag('include_uris', true)],
      produces: 'application/pdf',
      summary: 'Get a printable (PDF) finding aid of a Resource: title page, collection overview, container list',
      handle: async (call) => {
        const { resource, repository } = await load(call, call.params.id);
        return pdfReply(call, resource, repository, findingAidOptions(call));
      },
    },
    {
      method: 'get', path: '/repositories/:repo_id/resource_descriptions/:id.:fmt/metadata', permission: 'view_repository', errors: ['NotFound'],
      params: [idBeforeFormat, fmt],
      summary: 'Get export metadata for a Resource Description',
      handle: async (call) => {
        const record = await loadForExport(call.s, 'resource', metadataId(call, 'resource'), call.repoId);
        const format = String(call.params.fmt ?? 'xml');
        return json(exportMetadata(exportFilename(resourceIdentifier(record), `_ead.${format}`), `application/${format}`));
      },
    },
    {
      method: 'get', path: '/repositories/:repo_id/resource_labels/:id.tsv', permission: 'view_repository', errors: ['NotFound'],
      params: [id], produces: 'text/tab-separated-values',
      summary: 'Get a tsv list of printable labels for a Resource',
      handle: async (call) => {
        const { resource, repository } = await load(call, call.params.id);
        return { contentType: 'text/tab-separated-values; charset=utf-8', stream: (send) => writeLabels(call.s, resource, repository, (chunk) => send(chunk)) };
      },
    },
    {
      method: 'get', path: '/repositories/:repo_id/resource_labels/:id.:fmt/metadata', permission: 'view_repository', errors: ['NotFound'],
      params: [idBeforeFormat, fmt],
      summary: 'Get export metadata for Resource labels',
      handle: async (call) => {
        const record = await loadForExport(call.s, 'resource', metadataId(call, 'resource'), call.repoId);
        return json(exportMetadata(exportFilename(resourceIdentifier(record), '_labels.tsv'), 'text/tab-separated-values'));
      },
    },
  ];
}
