/**
 * Merge requests (POST /merge_requests/<route>), one row per route that the schemas declare
 * (x-archive.merge): subject, agent, container_profile, top_container, resource, digital_object.
 * Repository-scoped types take the repository as the `repo_id` parameter, as ArchivesSpace's.
 */
import { mergeDetailed, mergeRecords } from '../merge';
import type { Registry } from '../../registry';
import { Endpoint, json } from '../endpoint';

export function mergeEndpoints(registry: Registry): Endpoint[] {
  const routes = new Map<string, { permission: string; scoped: boolean }>();
  for (const type of Object.values(registry.types)) {
    if (type.merge) routes.set(type.merge.route, { permission: type.merge.permission, scoped: type.scope === 'repository' });
  }
  const detailed = [...routes].filter(([route]) => Object.values(registry.types).some((t) => t.merge?.route === route && t.merge.detail));
  return [...[...routes].map(([route, { permission, scoped }]): Endpoint => ({
    method: 'post', path: `/merge_requests/${route}`, permission, rawJsonBody: true, errors: ['NotFound'],
    params: scoped ? [{ name: 'repo_id', type: 'integer', required: true }] : [],
    summary: `Carry out a merge request against ${route} records: every link to a candidate points at the destination, the candidates are deleted`,
    handle: async (call) => json(await mergeRecords(call.s, route, (call.rawBody ?? {}) as Record<string, unknown>, scoped ? call.params.repo_id : undefined)),
  })), ...detailed.map(([route, { permission }]): Endpoint => ({
    method: 'post', path: `/merge_requests/${route}_detail`, permission, rawJsonBody: true, errors: ['Conflict'],
    params: [{ name: 'dry_run', type: 'boolean', default: false }],
    summary: `Carry out a detailed merge request against ${route} records: the candidate's chosen subrecords and fields go into the destination (dry_run: only show the result)`,
    handle: async (call) => json(await mergeDetailed(call.s, call.actor!, route, (call.rawBody ?? {}) as Record<string, unknown>, call.params.dry_run, call.withheld)),
  }))];
}
