import type { Registry } from '../../registry';
import { containerId, containersOfRecord, currentLocation, updateContainers } from './containers';
import { createLocationBatch, updateLocationBatch } from './locations';
import type { TopContainer } from '../../../generated/types';
import { isPlainObject } from '../../json';
import { errors } from '../../errors';
import { Call, Endpoint, json } from '../../records/endpoint';

const ids = { name: 'ids', type: 'integer[]', required: true } as const;

function readJsonObject(call: Call): Record<string, string> {
  const body = call.rawBody;
  if (!isPlainObject(body) || Object.values(body).some((v) => typeof v !== 'string')) {
    throw errors.expectedBody('a JSON object of "<top container uri>": "<value>"');
  }
  return body as Record<string, string>;
}

/** Top container and location batch/bulk routes, and the record → top containers listings. */
export function containerEndpoints(registry: Registry): Endpoint[] {
  const type = registry.type('top_container');
  const base = `${type.uri}`;
  const where = (call: Call) => ({ type, repoId: call.repoId });
  const batch = (path: string, param: string, summary: string, change: (value: string) => (r: TopContainer) => void): Endpoint => ({
    method: 'post', path: `${base}/batch/${path}`, permission: 'manage_container_record',
    params: [ids, { name: param, type: 'string', required: true }], summary,
    handle: async (call) => {
      const updated = await updateContainers(call.s, call.actor!, where(call),
        (call.params.ids as number[]).map((id) => ({ id, change: change(call.params[param]) })));
      return json({ records_updated: updated.length, uris: updated });
    },
  });
  const bulk = (path: string, summary: string, change: (value: string) => (r: TopContainer) => void): Endpoint => ({
    method: 'post', path: `${base}/bulk/${path}`, permission: 'manage_container_record', rawJsonBody: true, summary,
    handle: async (call) => {
      const w = where(call);
      const entries = Object.entries(readJsonObject(call));
      const updated = await updateContainers(call.s, call.actor!, w,
        entries.map(([uri, value]) => ({ id: containerId(w, uri), uri, change: change(value) })));
      return json({ updated });
    },
  });
  const listings = registry.routedTypes().filter((t) => t.containerCollection).map((owner): Endpoint => {
    const name = owner.name;
    return {
      method: 'get', path: `${owner.uri}/:id/top_containers`, permission: 'view_repository', errors: ['NotFound'],
      params: [{ name: 'id', type: 'integer', required: true }, { name: 'resolve', type: 'string[]', default: [] }],
      summary: `The top containers of a ${name}'s instances`,
      handle: async (call) => json(await containersOfRecord(call.s, { type: owner, repoId: call.repoId, showSuppressed: call.maySeeSuppressed }, call.params.id)),
    };
  });
  return [
    batch('ils_holding_id', 'ils_holding_id', 'Set the ILS holding id of several top containers', (v) => (r) => { r.ils_holding_id = v; }),
    batch('container_profile', 'container_profile_uri', 'Set the container profile of several top containers', (v) => (r) => { r.container_profile = { ref: v }; }),
    batch('location', 'location_uri', 'Set the current location of several top containers', (v) => (r) => {
      r.container_locations = [...(r.container_locations ?? []).filter((l) => l.status !== 'current'), currentLocation(v)];
    }),
    bulk('barcodes', 'Set barcodes: {"<top container uri>": "<barcode>"}', (v) => (r) => { r.barcode = v; }),
    bulk('indicators', 'Set indicators: {"<top container uri>": "<indicator>"}', (v) => (r) => { r.indicator = v; }),
    bulk('locations', 'Set current locations: {"<top container uri>": "<location uri>"}', (v) => (r) => {
      r.container_locations = [...(r.container_locations ?? []).filter((l) => l.status !== 'current'), currentLocation(v)];
    }),
    ...listings,
    {
      method: 'post', path: '/locations/batch', permission: 'update_location_record', rawJsonBody: true,
      params: [{ name: 'dry_run', type: 'boolean', default: false }],
      summary: 'Create one location per combination of coordinate ranges (dry_run: only their titles)',
      handle: async (call) => json(await createLocationBatch(call.s, call.actor!, call.rawBody, call.params.dry_run)),
    },
    {
      method: 'post', path: '/locations/batch_update', permission: 'update_location_record', rawJsonBody: true,
      summary: 'Set the same fields on several locations',
      handle: async (call) => json(await updateLocationBatch(call.s, call.actor!, call.rawBody)),
    },
  ];
}
