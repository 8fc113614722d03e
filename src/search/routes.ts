/** The search routes of search.md (a), each GET and (where the reference has it) POST. */
import type { ParamSpec } from '../records/endpoint';
import { PAGE_SIZE_PARAM, pageSize } from '../records/paging';
import { Call, Endpoint, json } from '../records/endpoint';
import {
  PUBLIC_USERNAME,
  countTypesByRepository, findByExternalId, runRawSearch, runSearch, runSearchCsv, Scope, SearchParams, searchRecords,
} from './service';

const positive = (name: string) => (v: number) => (v >= 1 ? undefined : `${name} must be 1 or more`);

const SEARCH_PARAMS: ParamSpec[] = [
  { name: 'page', type: 'integer', required: true, check: positive('page') },
  PAGE_SIZE_PARAM,
  { name: 'q', type: 'string' },
  { name: 'aq', type: 'string' },
  { name: 'type', type: 'string[]' },
  { name: 'sort', type: 'string' },
  { name: 'facet', type: 'string[]' },
  { name: 'facet_mincount', type: 'integer' },
  { name: 'filter', type: 'string' },
  { name: 'filter_query', type: 'string[]' },
  { name: 'exclude', type: 'string[]' },
  { name: 'hl', type: 'boolean' },
  { name: 'root_record', type: 'string' },
  { name: 'dt', type: 'string' },
  { name: 'fields', type: 'string[]' },
  { name: 'resolve', type: 'string[]' },
  { name: 'csv_export_use_solr_writer', type: 'boolean' },
];

function searchParams(call: Call): SearchParams {
  const p = call.params;
  return { ...p, page_size: pageSize(call.s.config, p.page_size) } as SearchParams;
}

/** Repository routes hide suppressed records unless the caller may index everything (search.md (a)). */
async function repositoryScope(call: Call, forcedTypes?: string[]): Promise<Scope> {
  return {
    repoUri: `/repositories/${call.repoId}`,
    forcedTypes,
    showSuppressed: call.maySeeSuppressed,
    publishedOnly: isPublicUser(call),
  };
}

function isPublicUser(call: Call): boolean {
  return call.actor?.username === PUBLIC_USERNAME;
}

/** GET and POST rows of one route. */
function getOrPost(row: Omit<Endpoint, 'method'>): Endpoint[] {
  return [{ ...row, method: 'get' }, { ...row, method: 'post', jsonParams: true }];
}

export function searchEndpoints(): Endpoint[] {
  const general = (path: string, permission: string | null, summary: string, scope: (call: Call) => Promise<Scope> | Scope, csv = false) =>
    getOrPost({
      path, permission, summary, params: SEARCH_PARAMS,
      handle: async (call) => {
        const p = searchParams(call);
        const sc = await scope(call);
        if (csv && p.dt === 'csv') return { text: await runSearchCsv(call.s, p, sc), contentType: 'text/csv' };
        return json(await runSearch(call.s, p, sc));
      },
    });
  return [
    ...general('/repositories/:repo_id/search', 'view_repository', 'Search the records of a repository (and the global ones)', (call) => repositoryScope(call), true),
    ...general('/search', 'view_all_records', 'Search every record', (call) => ({ showSuppressed: true, publishedOnly: isPublicUser(call) })),
    ...general('/search/repositories', null, 'Search repositories', (call) => ({ forcedTypes: ['repository'], showSuppressed: true, publishedOnly: isPublicUser(call) })),
    ...general('/search/subjects', null, 'Search subjects', (call) => ({ forcedTypes: ['subject'], showSuppressed: true, publishedOnly: isPublicUser(call) })),
    {
      method: 'get', path: '/search/location_profile', permission: null, params: SEARCH_PARAMS,
      summary: 'Search location profiles',
      handle: async (call) => json(await runSearch(call.s, searchParams(call), { forcedTypes: ['location_profile'], showSuppressed: true })),
    },
    {
      method: 'get', path: '/repositories/:repo_id/top_containers/search', permission: 'view_repository',
      params: SEARCH_PARAMS.map((p) => ({ ...p, required: false })),
      summary: "Search a repository's top containers (Solr's raw response shape, up to 10,000 rows)",
      handle: async (call) => json(await runRawSearch(call.s, call.params, await repositoryScope(call, ['top_container']))),
    },
    ...getOrPost({
      path: '/search/records', permission: 'view_all_records', summary: 'The search documents of the given record URIs',
      params: [{ name: 'uri', type: 'string[]', required: true }, { name: 'resolve', type: 'string[]', default: [] }],
      handle: async (call) => json(await searchRecords(call.s, call.params.uri, call.params.resolve)),
    }),
    ...getOrPost({
      path: '/search/record_types_by_repository', permission: 'view_all_records',
      summary: 'Published record counts per type, per repository',
      params: [{ name: 'record_types', type: 'string[]', required: true }, { name: 'repo_uri', type: 'string' }],
      handle: async (call) => json(await countTypesByRepository(call.s, call.params.record_types, call.params.repo_uri)),
    }),
    {
      method: 'get', path: '/by-external-id', permission: 'view_all_records',
      summary: 'Find a record by external id: 303 to it, 300 with several, 404 with none',
      params: [{ name: 'eid', type: 'string', required: true }, { name: 'type', type: 'string[]', default: [] }],
      handle: async (call) => {
        const uris = await findByExternalId(call.s, call.params.eid, call.params.type);
        if (!uris.length) return json([], 404);
        if (uris.length === 1) return { status: 303, text: '', headers: { Location: uris[0] } };
        return json(uris, 300);
      },
    },
  ];
}
