import fs from 'node:fs';
import path from 'node:path';
import { endpointTable } from '../endpoints';
import { projectRoot, Registry } from '../registry';
import { buildOpenApiDocument } from './document';

export { buildOpenApiDocument, openApiPath } from './document';

const version = (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;

// The document changes only with the registry and the code, so each registry's is built once.
const documents = new WeakMap<Registry, object>();

/** This installation's OpenAPI document: its registry and the endpoint table it serves. */
export function apiDocument(registry: Registry): object {
  let doc = documents.get(registry);
  if (!doc) {
    doc = buildOpenApiDocument(registry, endpointTable(registry), { version }) as object;
    documents.set(registry, doc);
  }
  return doc;
}
