/**
 * What other systems sync from: the update feed (long poll over the change log), the delete
 * feed, and batch deletion; and the calculators the staff interface calls.
 */
import { can } from '../access/permissions';
import { calculateDates, calculateExtent } from '../operations/calculators';
import { batchDelete, deletedSince, updatesSince } from '../operations/feeds';
import { PAGE_SIZE_PARAM, pageSize } from './paging';
import { errors } from '../errors';
import { Call, Endpoint, json } from './types';

const recordUri = { name: 'record_uri', type: 'string', required: true } as const;

/** The calculators read a record of the repository its URI names: view_repository there (as the original). */
async function mayView(call: Call): Promise<void> {
  const repoId = /^\/repositories\/(\d+)\//.exec(String(call.params.record_uri))?.[1];
  if (!(await can(call.s, call.actor, 'view_repository', repoId ? Number(repoId) : undefined))) throw errors.accessDenied();
}

export function feedEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/update-feed', permission: 'index_system',
      params: [{ name: 'last_sequence', type: 'integer', default: 0 }],
      summary: 'Get a stream of updated records (waits up to 5 s when there is nothing new)',
      handle: async (call) => json(await updatesSince(call.s, call.params.last_sequence)),
    },
    {
      method: 'get', path: '/delete-feed', permission: 'index_system',
      params: [{ name: 'page', type: 'integer', required: true, check: (v) => (v >= 1 ? undefined : `must be a positive integer but given: ${v}`) },
        PAGE_SIZE_PARAM, { name: 'modified_since', type: 'integer', default: 0 }],
      summary: 'Get a stream of deleted records',
      handle: async (call) => json(await deletedSince(call.s, call.params.modified_since, call.params.page, pageSize(call.s.config, call.params.page_size))),
    },
    {
      method: 'post', path: '/batch_delete', permission: null, params: [{ name: 'record_uris', type: 'string[]', required: true }],
      summary: 'Carry out delete requests against a list of records (all or none; each checked as its own DELETE would be)',
      handle: async (call) => json(await batchDelete(call.s, call.params.record_uris, async (typeName, repoId) => {
        const code = call.s.registry.type(typeName).permissions?.delete;
        return !!code && can(call.s, call.actor, code, repoId);
      })),
    },
    {
      method: 'get', path: '/date_calculator', permission: null, params: [recordUri, { name: 'label', type: 'string' }], errors: ['AccessDenied'],
      summary: 'Calculate the dates of an archival object tree (view_repository in the record\'s repository)',
      handle: async (call) => {
        await mayView(call);
        return json(await calculateDates(call.s, call.params.record_uri, call.params.label));
      },
    },
    {
      method: 'get', path: '/extent_calculator', permission: null, params: [recordUri, { name: 'unit', type: 'string' }], errors: ['AccessDenied'],
      summary: 'Calculate the extent of an archival object tree (unit: inches, feet, centimeters, meters; view_repository in the record\'s repository)',
      handle: async (call) => {
        await mayView(call);
        return json(await calculateExtent(call.s, call.params.record_uri, call.params.unit));
      },
    },
  ];
}
