import { endpointTable } from '../http/table';
import type { Endpoint } from '../records/endpoint';
import type { Registry } from '../registry';
import { withDocs } from './routes';

export { buildOpenApiDocument, openApiPath } from './document';
export { apiDocument } from './document-cache';
export { withDocs } from './routes';

/** Every row an app built from this registry serves: the endpoint table and the API's own description. */
export function servedEndpoints(registry: Registry): Endpoint[] {
  return withDocs(endpointTable(registry));
}
