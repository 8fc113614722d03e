/**
 * Export routes of the record formats other than EAD: MARCXML of resources, EAC-CPF and MARC
 * authority records of agents, MODS / METS / Dublin Core of digital objects. Paths, parameters
 * and metadata answers as ArchivesSpace's exports controller; each document is streamed.
 */
import type { Resource } from '../../../generated/types';
import type { Registry } from '../../registry';
import { type Agent, type Archival, agentName, exportFilename, exportMapping, exportMetadata, loadForExport, typesExportedAs, xmlReply } from '../export/common';
import { Marc21Mapping, MARC21_RESOLVE, writeMarc21Document } from '../export/marc21';
import { EacMapping, MarcAuthMapping, recordsLinkingTo } from '../export/agents';
import { writeEacCpf } from '../export/eac-cpf';
import { writeMarcAuthDocument } from '../export/marc-auth';
import { componentTree } from '../export/components';
import { DcMapping, writeDublinCore } from '../export/dc';
import { writeMets } from '../export/mets';
import { ModsMapping, writeMods } from '../export/mods';
import { can } from '../../access/permissions';
import { recordQueries } from '../../store/domain-reads';
import { errors } from '../../errors';
import { PUBLIC_USERNAME } from '../../search/service';
import { Call, Endpoint, json } from '../../records/endpoint';

const id = { name: 'id', type: 'integer', required: true } as const;
const fmt = { name: 'fmt', type: 'string' } as const;
/** In `:id.:fmt/metadata` the id is what comes before the last dot: taken as text, checked below. */
export const idBeforeFormat = { name: 'id', type: 'string', required: true } as const;

/**
 * The record id of a metadata route. Express splits `:id.:fmt` at the last dot, so `12.1.xml`
 * gives the id "12.1": a name no record has, which is answered as an unknown record (404).
 */
export function metadataId(call: Call, typeName: string): number {
  const raw = String(call.params.id);
  if (!/^\d{1,15}$/.test(raw)) throw errors.notFound(call.s.registry.type(typeName).model);
  return Number(raw);
}

/** Unpublished content goes out only when asked for, and never to the public (PUI) user. */
export function unpublishedWanted(call: Call, asked: boolean | undefined): boolean {
  return !!asked && call.actor?.username !== PUBLIC_USERNAME;
}

export function resourceIdentifier(record: Partial<Pick<Resource, 'id_0' | 'id_1' | 'id_2' | 'id_3'>>): string {
  return [record.id_0, record.id_1, record.id_2, record.id_3].filter((v) => v !== undefined && v !== null && v !== '').join('.');
}

function marcEndpoints(): Endpoint[] {
  const unpublished = { name: 'include_unpublished_marc', type: 'boolean' } as const;
  return [
    {
      method: 'get', path: '/repositories/:repo_id/resources/marc21/:id.xml', permission: 'view_repository',
      params: [id, unpublished], produces: 'application/xml', errors: ['NotFound'],
      summary: 'Get a MARC 21 representation of a Resource',
      handle: async (call) => {
        const record = await loadForExport(call.s, 'resource', call.params.id, call.repoId, MARC21_RESOLVE);
        const includeUnpublished = unpublishedWanted(call, call.params.include_unpublished_marc);
        return xmlReply(async (w) => writeMarc21Document(w, record, exportMapping<Marc21Mapping>(call.s.registry, 'resource', 'marc21') ?? {}, { includeUnpublished }));
      },
    },
    {
      method: 'get', path: '/repositories/:repo_id/resources/marc21/:id.:fmt/metadata', permission: 'view_repository',
      params: [idBeforeFormat, fmt, unpublished], errors: ['NotFound'],
      summary: 'Get metadata for a MARC21 export',
      handle: async (call) => {
        const record = await loadForExport(call.s, 'resource', metadataId(call, 'resource'), call.repoId);
        return json(exportMetadata(exportFilename(resourceIdentifier(record), '_marc21.xml')));
      },
    },
  ];
}

const AGENT_RESOLVE = ['related_agents', 'subjects'];

/** `<authority id>_<name>`, the stem of ArchivesSpace's agent export file names. */
function agentFileStem(agent: Agent): string {
  const n = agentName(agent);
  return [n.authority_id, n.primary_name ?? n.family_name ?? n.software_name].filter(Boolean).join('_');
}

/**
 * An agent for the agent exports. EAC-CPF needs no permission (as in ArchivesSpace), so an
 * unpublished agent is shown only to callers who may view the repository.
 */
async function loadAgent(call: Call, typeName: string, resolve: string[] = [], agentId: number = call.params.id): Promise<Agent> {
  const agent: Agent = await loadForExport(call.s, typeName, agentId, undefined, resolve);
  if (agent.publish !== true && !(await can(call.s, call.actor, 'view_repository', call.repoId))) {
    throw errors.notFound(call.s.registry.type(typeName).model);
  }
  return agent;
}

/** EAC-CPF and MARC authority routes for every agent type whose schema maps it (x-archive.export). */
function agentEndpoints(registry: Registry): Endpoint[] {
  const eac = typesExportedAs(registry, 'eac_cpf').flatMap(({ name, plural }): Endpoint[] => [
    {
      method: 'get', path: `/repositories/:repo_id/archival_contexts/${plural}/:id.xml`, permission: null,
      params: [id], produces: 'application/xml', errors: ['NotFound'],
      summary: `Get an EAC-CPF representation of an agent (${plural})`,
      handle: async (call) => {
        const agent = await loadAgent(call, name, AGENT_RESOLVE);
        const repository = JSON.parse((await recordQueries(call.s.db).get('repository', call.repoId!))!.json);
        const viewer = await can(call.s, call.actor, 'view_repository', call.repoId);
        const linkedRecords = await recordsLinkingTo(call.s, agent.uri!, (repoId) => viewer && repoId === call.repoId);
        const mapping = exportMapping<EacMapping>(call.s.registry, name, 'eac_cpf')!;
        return xmlReply((w) => writeEacCpf(w, { agent, mapping, repository, linkedRecords }));
      },
    },
    {
      method: 'get', path: `/repositories/:repo_id/archival_contexts/${plural}/:id.:fmt/metadata`, permission: null,
      params: [idBeforeFormat, fmt], errors: ['NotFound'],
      summary: `Get metadata for an EAC-CPF export (${plural})`,
      handle: async (call) => json(exportMetadata(exportFilename(agentFileStem(await loadAgent(call, name, [], metadataId(call, name))), '_eac.xml'))),
    },
  ]);
  const marcAuth = typesExportedAs(registry, 'marc_auth').flatMap(({ name, plural }): Endpoint[] => [
    {
      method: 'get', path: `/repositories/:repo_id/agents/${plural}/marc21/:id.xml`, permission: 'view_repository',
      params: [id], produces: 'application/xml', errors: ['NotFound'],
      summary: `Get a MARC Auth representation of an agent (${plural})`,
      handle: async (call) => {
        const agent = await loadAgent(call, name, AGENT_RESOLVE);
        const mapping = exportMapping<MarcAuthMapping>(call.s.registry, name, 'marc_auth')!;
        return xmlReply((w) => writeMarcAuthDocument(w, agent, mapping));
      },
    },
    {
      method: 'get', path: `/repositories/:repo_id/agents/${plural}/marc21/:id.:fmt/metadata`, permission: 'view_repository',
      params: [idBeforeFormat, fmt], errors: ['NotFound'],
      summary: `Get metadata for a MARC Auth export (${plural})`,
      handle: async (call) => json(exportMetadata(exportFilename(agentFileStem(await loadAgent(call, name, [], metadataId(call, name))), '_marc.xml'))),
    },
  ]);
  return [...eac, ...marcAuth];
}

const DIGITAL_OBJECT_RESOLVE = ['repository', 'linked_agents', 'subjects'];
const COMPONENT_RESOLVE = ['linked_agents', 'subjects'];

/**
 * The digital-object exports (MODS, METS, Dublin Core): a digital object with its published
 * components; unpublished notes, agents and file versions stay out (the routes take no
 * parameter asking for them).
 */
function digitalObjectEndpoints(registry: Registry): Endpoint[] {
  const root = 'digital_object';
  const node = Object.values(registry.types).find((t) => t.tree?.root === root)?.name;
  const mapping = <T>(typeName: string | undefined, format: string) => (typeName ? exportMapping<T>(registry, typeName, format) : undefined) ?? ({} as T);
  const load = async (call: Call) => {
    const record: Archival = await loadForExport(call.s, root, call.params.id, call.repoId, DIGITAL_OBJECT_RESOLVE);
    const children = await componentTree(call.s, record.uri!, false, COMPONENT_RESOLVE);
    return { record, children };
  };
  const metadata = (format: string, suffix: string): Endpoint => ({
    method: 'get', path: `/repositories/:repo_id/digital_objects/${format}/:id.:fmt/metadata`, permission: 'view_repository',
    params: [idBeforeFormat, fmt], errors: ['NotFound'],
    summary: `Get metadata for a ${format === 'dublin_core' ? 'Dublin Core' : format.toUpperCase()} export`,
    handle: async (call) => {
      const record: Archival = await loadForExport(call.s, root, metadataId(call, root), call.repoId);
      return json(exportMetadata(exportFilename(String(record.digital_object_id ?? ''), suffix)));
    },
  });
  const dmd = {
    name: 'dmd', type: 'string', default: 'mods',
    check: (v: string) => (['mods', 'dc'].includes(v) ? undefined : `must be one of mods, dc but given: ${v}`),
  } as const;
  return [
    {
      method: 'get', path: '/repositories/:repo_id/digital_objects/mods/:id.xml', permission: 'view_repository',
      params: [id], produces: 'application/xml', errors: ['NotFound'],
      summary: 'Get a MODS representation of a Digital Object',
      handle: async (call) => {
        const { record, children } = await load(call);
        return xmlReply((w) => writeMods(w, record, children, {
          includeUnpublished: false, mapping: mapping<ModsMapping>(root, 'mods'), componentMapping: mapping<ModsMapping>(node, 'mods'),
        }));
      },
    },
    metadata('mods', '_mods.xml'),
    {
      method: 'get', path: '/repositories/:repo_id/digital_objects/mets/:id.xml', permission: 'view_repository',
      params: [id, dmd], produces: 'application/xml', errors: ['NotFound'],
      summary: 'Get a METS representation of a Digital Object (dmd: mods or dc)',
      handle: async (call) => {
        const { record, children } = await load(call);
        return xmlReply((w) => writeMets(w, {
          record, children, dmd: call.params.dmd,
          mods: mapping<ModsMapping>(root, 'mods'), dc: mapping<DcMapping>(root, 'dc'),
          componentMods: mapping<ModsMapping>(node, 'mods'), componentDc: mapping<DcMapping>(node, 'dc'),
        }));
      },
    },
    metadata('mets', '_mets.xml'),
    {
      method: 'get', path: '/repositories/:repo_id/digital_objects/dublin_core/:id.xml', permission: 'view_repository',
      params: [id], produces: 'application/xml', errors: ['NotFound'],
      summary: 'Get a Dublin Core representation of a Digital Object',
      handle: async (call) => {
        const record = await loadForExport(call.s, root, call.params.id, call.repoId, DIGITAL_OBJECT_RESOLVE);
        return xmlReply((w) => writeDublinCore(w, record, mapping<DcMapping>(root, 'dc'), false));
      },
    },
    metadata('dublin_core', '_dc.xml'),
  ];
}

export function formatEndpoints(registry: Registry): Endpoint[] {
  return [...marcEndpoints(), ...agentEndpoints(registry), ...digitalObjectEndpoints(registry)];
}
