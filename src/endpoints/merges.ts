/**
 * Merge requests (POST /merge_requests/<route>), one row per route that the schemas declare
 * (x-archive.merge): subject, agent, container_profile, top_container, resource, digital_object.
 * Repository-scoped types take the repository as the `repo_id` parameter, as ArchivesSpace's.
 */
import { mergeRecords } from '../operations/merge';
import type { Registry } from '../registry';
import { Endpoint, json } from './types';

export function mergeEndpoints(registry: Registry): Endpoint[] {
  const routes = new Map<string, { permission: string; scoped: boolean }>();
  for (const type of Object.values(registry.types)) {
    if (type.merge) routes.set(type.merge.route, { permission: type.merge.permission, scoped: type.scope === 'repository' });
  }
  return [...routes].map(([route, { permission, scoped }]): Endpoint => ({
    method: 'post', path: `/merge_requests/${route}`, permission, rawJsonBody: true, errors: ['NotFound'],
    params: scoped ? [{ name: 'repo_id', type: 'integer', required: true }] : [],
    summary: `Carry out a merge request against ${route} records: every link to a candidate points at the destination, the candidates are deleted`,
    handle: async (call) => json(await mergeRecords(call.s, route, (call.rawBody ?? {}) as Record<string, unknown>, scoped ? call.params.repo_id : undefined)),
  }));
}
