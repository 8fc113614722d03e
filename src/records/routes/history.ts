import type { Registry } from '../../registry';
import { Endpoint, json } from '../endpoint';
import { keptOnUpdate } from '../guarded';
import { diffVersions, getVersion, listHistory, restoreVersion } from '../history';
import { PAGE_SIZE_PARAM, pageSize } from '../paging';
import { where, writer } from './records';

const positive = (v: number) => (v >= 1 ? undefined : `must be a positive integer but given: ${v}`);
const idParam = { name: 'id', type: 'integer', required: true } as const;
/** A lock_version; one never kept (a negative one included) is 404, as an id that names no record is. */
const versionParam = { name: 'version', type: 'integer', required: true } as const;

/** Revision history for every routed type (docs/history.md): read as the record is read, restored as it is updated. */
export function historyEndpoints(registry: Registry): Endpoint[] {
  return registry.routedTypes().flatMap((type): Endpoint[] => {
    const base = `${type.uri!}/:id/history`;
    const perms = type.permissions!;
    const endpoints: Endpoint[] = [
      {
        method: 'get', path: base, permission: perms.read, errors: ['NotFound'],
        params: [idParam, { name: 'page', type: 'integer', default: 1, check: positive }, PAGE_SIZE_PARAM],
        summary: `List the versions of a ${type.name}, newest first (a deleted one's too)`,
        handle: async (call) =>
          json(await listHistory(call.s, await where(type, call), call.params.id, call.params.page, pageSize(call.s.config, call.params.page_size))),
      },
      {
        method: 'get', path: `${base}/:version`, permission: perms.read, errors: ['NotFound'], params: [idParam, versionParam],
        summary: `Get a ${type.name} as it was at a lock_version`,
        handle: async (call) => json(await getVersion(call.s, await where(type, call), call.params.id, call.params.version, call.withheld)),
      },
      {
        method: 'get', path: `${base}/:version/diff`, permission: perms.read, errors: ['NotFound'],
        params: [idParam, versionParam, { name: 'to', type: 'integer' }],
        summary: `What changed from one version of a ${type.name} to another (to: by default the next), as a JSON Patch (RFC 6902)`,
        handle: async (call) => json(await diffVersions(call.s, await where(type, call), call.params.id, call.params.version, call.params.to, call.withheld)),
      },
    ];
    if (perms.update) {
      endpoints.push({
        method: 'post', path: `${base}/:version/restore`, permission: perms.update, errors: ['NotFound', 'Conflict'],
        params: [idParam, versionParam, { name: 'lock_version', type: 'integer' }],
        summary: `Write a version of a ${type.name} back as a new version (lock_version: the current one; none for a deleted record)`,
        handle: async (call) =>
          json(await restoreVersion(call.s, writer(call), await where(type, call), call.params.id, call.params.version, call.params.lock_version,
            keptOnUpdate(call.s.registry, type.name, call.withheld))),
      });
    }
    return endpoints;
  });
}
