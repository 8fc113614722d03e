import type { Registry, TypeInfo } from '../../registry';
import { createRecord, deleteRecord, setProperty, updateRecord } from '../write';
import { getRecordJson, listAll, listAllIds, listIdSet, listPage, ListOptions } from '../read';
import type { Actor, Where } from '../context';
import { errors, type ErrorKind } from '../../errors';
import { Call, Endpoint, json, rawJson } from '../endpoint';
import { setPublished, setSuppressed } from '../flags';
import { findById } from '../lookups';
import { readRecord } from '../load';
import { createSetsWithheld, keptOnUpdate } from '../guarded';
import { transferRecord } from '../transfer';

const idParam = { name: 'id', type: 'integer', required: true } as const;
const resolveParam = { name: 'resolve', type: 'string[]', default: [] } as const;

/** Who writes: a type whose writes need no permission code (its hooks decide) still needs a logged-in caller. */
export function writer(call: Call): Actor {
  if (!call.actor) throw errors.accessDenied();
  return call.actor;
}

/** Where a call's records live; repository listings and reads hide suppressed records from most callers. */
export async function where(type: TypeInfo, call: Call): Promise<Where> {
  return { type, repoId: call.repoId, showSuppressed: type.scope === 'repository' && call.maySeeSuppressed };
}

/** Express path of a type's collection: its URI template. */
function collectionPath(type: TypeInfo): string {
  return type.uri!;
}

/** Answers a paginated listing in whichever mode the caller chose (page, id_set, all_ids). */
export async function paginatedListing(call: Call, w: Where, decorate?: ListOptions['decorate']) {
  const p = call.paging!;
  const o = { modifiedSince: p.modifiedSince, sortField: p.sortField, sortDirection: p.sortDirection, resolve: p.resolve, decorate, withheld: call.withheld };
  if (p.mode === 'page') return rawJson(await listPage(call.s, w, p.page, p.pageSize, o));
  if (p.mode === 'id_set') return rawJson(await listIdSet(call.s, w, p.ids, o));
  return json(await listAllIds(call.s, w, o));
}

/** find_by_id for every type whose schema declares lookup parameters. */
export function findByIdEndpoints(registry: Registry): Endpoint[] {
  const paramsOf = (type: TypeInfo) => Object.entries(type.lookup ?? {}).filter(([, rule]) => rule.findById !== false).map(([name]) => name);
  return registry.routedTypes()
    .filter((type) => paramsOf(type).length && type.scope === 'repository')
    .map((type): Endpoint => ({
      method: 'get', path: `/repositories/:repo_id/find_by_id/${type.plural}`, permission: 'view_repository',
      params: [...paramsOf(type).map((name) => ({ name, type: 'string[]', default: [] }) as const), resolveParam],
      summary: `Find ${type.plural} by ${paramsOf(type).join(', ')}`,
      handle: async (call) => json(await findById(call.s, await where(type, call), call.params, call.params.resolve, call.withheld)),
    }));
}

/** CRUD and listing for every routed type in the registry: one mechanism, no per-type handler. */
export function recordEndpoints(registry: Registry): Endpoint[] {
  return registry.routedTypes().flatMap((type): Endpoint[] => {
    const base = collectionPath(type);
    const perms = type.permissions!;
    const list: Endpoint =
      type.listing === 'unlimited'
        ? {
            method: 'get', path: base, permission: perms.read, params: [resolveParam],
            summary: `List every ${type.name}`,
            handle: async (call) => rawJson(await listAll(call.s, await where(type, call), { resolve: call.params.resolve, withheld: call.withheld })),
          }
        : {
            method: 'get', path: base, permission: perms.read, paginated: true,
            summary: `List ${type.name} records (page, id_set or all_ids)`,
            handle: async (call) => paginatedListing(call, await where(type, call)),
          };
    // A type whose named hooks decide who may write it (preferences: your own) refuses in them.
    const hookDenies: ErrorKind[] = type.hooks ? ['AccessDenied'] : [];
    const endpoints: Endpoint[] = [
      list,
      {
        method: 'post', path: base, body: type.name, permission: perms.create, errors: hookDenies,
        summary: `Create a ${type.name}`,
        handle: async (call) => {
          if (createSetsWithheld(call.s.registry, type.name, call.body!.record, call.withheld)) throw errors.accessDenied();
          return json(await createRecord(call.s, writer(call), await where(type, call), call.body!.record, call.body!.warnings));
        },
      },
      {
        method: 'get', path: `${base}/:id`, params: [idParam, resolveParam], permission: perms.read, errors: ['NotFound'],
        summary: `Get a ${type.name}`,
        handle: async (call) => rawJson(await getRecordJson(call.s, await where(type, call), call.params.id, { resolve: call.params.resolve, withheld: call.withheld })),
      },
      {
        method: 'post', path: `${base}/:id`, params: [idParam], body: type.name, permission: perms.update, errors: ['NotFound', 'Conflict', ...hookDenies],
        summary: `Update a ${type.name} (send the latest lock_version)`,
        handle: async (call) =>
          json(await updateRecord(call.s, writer(call), await where(type, call), call.params.id, call.body!.record, call.body!.warnings, {
            keep: keptOnUpdate(call.s.registry, type.name, call.withheld),
          })),
      },
    ];
    for (const flag of type.flagRoutes ?? []) {
      endpoints.push(
        flag === 'suppressed'
          ? {
              method: 'post', path: `${base}/:id/suppressed`, permission: 'suppress_archival_record', errors: ['NotFound', 'Conflict'],
              params: [idParam, { name: 'suppressed', type: 'boolean', required: true }],
              summary: `Suppress or unsuppress a ${type.name} (and its tree)`,
              handle: async (call) => json(await setSuppressed(call.s, await where(type, call), call.params.id, call.params.suppressed)),
            }
          : {
              method: 'post', path: `${base}/:id/${flag}`, permission: perms.update, params: [idParam], errors: ['NotFound'],
              summary: `${flag === 'publish' ? 'Publish' : 'Unpublish'} a ${type.name} and its tree`,
              handle: async (call) => json(await setPublished(call.s, await where(type, call), call.params.id, flag === 'publish')),
            },
      );
    }
    for (const [property, permission] of Object.entries(type.propertyRoutes ?? {})) {
      endpoints.push(
        {
          method: 'get', path: `${base}/:id/${property}`, params: [idParam], permission, errors: ['NotFound'],
          summary: `Get the ${property} of a ${type.name} (null when it has none)`,
          handle: async (call) => json((await readRecord(call.s, await where(type, call), call.params.id))[property] ?? null),
        },
        {
          method: 'post', path: `${base}/:id/${property}`, params: [idParam], body: type.props[property].subrecords![0], permission, errors: ['NotFound'],
          summary: `Set the ${property} of a ${type.name}`,
          handle: async (call) => json(await setProperty(call.s, await where(type, call), call.params.id, property, call.body!.record)),
        },
      );
    }
    if (type.transfer?.route) {
      endpoints.push({
        method: 'post', path: `${base}/:id/transfer`, permission: perms.update, errors: ['NotFound', 'Conflict'],
        params: [idParam, { name: 'target_repo', type: 'string', required: true }],
        summary: `Transfer a ${type.name} to a different repository (target_repo: its URI), with what belongs to it`,
        handle: async (call) => json(await transferRecord(call.s, writer(call), type, call.repoId!, call.params.id, call.params.target_repo)),
      });
    }
    if (perms.delete !== null) {
      endpoints.push({
        method: 'delete', path: `${base}/:id`, params: [idParam], permission: perms.delete, errors: ['NotFound', 'Conflict', ...hookDenies],
        summary: `Delete a ${type.name}`,
        handle: async (call) => json(await deleteRecord(call.s, await where(type, call), call.params.id)),
      });
    }
    return endpoints;
  });
}
