/**
 * GET <subrecord uri>/:id for each subrecord type with a URI of its own (subrecord-addresses.ts):
 * ArchivesSpace's GET /repositories/:repo_id/collection_management/:id, which its staff interface's
 * URI resolver uses to find a collection management's record.
 */
import type { Registry } from '../../registry';
import { Endpoint, json } from '../endpoint';
import { addressableSubrecordTypes, getAddressedSubrecord } from '../subrecord-addresses';

export function subrecordEndpoints(registry: Registry): Endpoint[] {
  return addressableSubrecordTypes(registry).map((sub): Endpoint => ({
    method: 'get', path: `${sub.uri}/:id`, permission: 'view_repository', errors: ['NotFound'],
    params: [{ name: 'id', type: 'integer', required: true }, { name: 'resolve', type: 'string[]', default: [] }],
    summary: `Get a ${sub.name} record by id (it is kept inside the record its parent names)`,
    handle: async (call) => json(await getAddressedSubrecord(call.s, sub, { repoId: call.repoId, showSuppressed: call.maySeeSuppressed }, call.params.id, {
      resolve: call.params.resolve, withheld: call.withheld,
    })),
  }));
}
