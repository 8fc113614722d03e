/**
 * What other systems sync from: the update feed (long poll over the change log), the delete
 * feed, and batch deletion; and the calculators the staff interface calls (dates, extent, space).
 */
import { can } from '../../access/permissions';
import { calculateDates, calculateExtent } from './calculators';
import { buildingData, spaceByBuilding, spaceByLocation } from './space-calculator';
import { batchDelete, deletedSince, notificationsSince, updatesSince } from './feeds';
import { PAGE_SIZE_PARAM, pageSize } from '../../records/paging';
import { errors } from '../../errors';
import { Call, Endpoint, json } from '../../records/endpoint';

const recordUri = { name: 'record_uri', type: 'string', required: true } as const;
const profileUri = { name: 'container_profile_uri', type: 'string', required: true } as const;

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
      method: 'get', path: '/notifications', permission: null,
      params: [{ name: 'last_sequence', type: 'integer', default: 0 }],
      summary: 'Get a stream of notifications (repositories, permissions, preferences, vocabularies changed; waits up to 5 s when there is nothing new)',
      handle: async (call) => json(await notificationsSince(call.s, call.params.last_sequence)),
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
    {
      method: 'get', path: '/space_calculator/by_location', permission: null,
      params: [profileUri, { name: 'location_uris', type: 'string[]', required: true }],
      summary: 'How many more containers of a container profile fit in each of a list of locations',
      handle: async (call) => json(await spaceByLocation(call.s, call.params.container_profile_uri, call.params.location_uris)),
    },
    {
      method: 'get', path: '/space_calculator/by_building', permission: null,
      params: [profileUri, { name: 'building', type: 'string', required: true }, ...['floor', 'room', 'area'].map((name) => ({ name, type: 'string' as const }))],
      summary: 'How many more containers of a container profile fit in the locations of a building (floor, room, area narrow it)',
      handle: async (call) => json(await spaceByBuilding(call.s, call.params.container_profile_uri, {
        building: call.params.building, floor: call.params.floor, room: call.params.room, area: call.params.area,
      })),
    },
    {
      method: 'get', path: '/space_calculator/buildings', permission: null,
      summary: 'The buildings of the locations, with their floors, rooms and areas',
      handle: async (call) => json(await buildingData(call.s)),
    },
  ];
}
