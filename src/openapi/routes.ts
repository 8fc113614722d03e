/** The API's own description: the OpenAPI document and a browsable page over it. */
import type { Endpoint } from '../records/endpoint';
import { DOCS_ASSET_TYPES, DOCS_CONTENT_SECURITY_POLICY, DOCS_PAGE, docsAsset } from './swagger';
import { apiDocumentText } from './document-cache';

/**
 * The endpoint table an app serves: the given rows plus the rows of the API's own description,
 * which describes exactly those rows (its own included).
 */
export function withDocs(table: Endpoint[]): Endpoint[] {
  const served: Endpoint[] = [...table];
  served.push(...docsEndpoints(served));
  return served;
}

function docsEndpoints(served: Endpoint[]): Endpoint[] {
  return [
    {
      method: 'get', path: '/openapi.json', permission: null,
      summary: 'This API described as an OpenAPI 3.1 document (generated from the schemas and the endpoint table)',
      handle: async (call) => ({ json: apiDocumentText(call.s.registry, served) }),
    },
    {
      method: 'get', path: '/docs', permission: null, produces: 'text/html', contentSecurityPolicy: DOCS_CONTENT_SECURITY_POLICY,
      summary: 'A browsable page of the API (Swagger UI over /openapi.json)',
      handle: async () => ({ text: DOCS_PAGE, contentType: 'text/html; charset=utf-8' }),
    },
    // One row per asset rather than a :file parameter: the table names every path the app answers.
    ...Object.entries(DOCS_ASSET_TYPES).map(([name, type]): Endpoint => ({
      method: 'get', path: `/docs/${name}`, permission: null, produces: type,
      summary: `An asset of the API page (${name})`,
      handle: async () => {
        const asset = docsAsset(name)!;
        // The assets are public and change only with the installed package: caches may keep them.
        return { text: asset.text, contentType: `${type}; charset=utf-8`, headers: { 'Cache-Control': 'public, max-age=3600' } };
      },
    })),
  ];
}
