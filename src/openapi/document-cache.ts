import fs from 'node:fs';
import path from 'node:path';
import { projectRoot, Registry } from '../registry';
import type { Endpoint } from '../records/endpoint';
import { buildOpenApiDocument } from './document';

const version = (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;

// The document changes only with the registry and the table an app serves: built once per pair.
const texts = new WeakMap<Registry, WeakMap<Endpoint[], string>>();

/** The OpenAPI document of one registry and the endpoint rows served with it. */
export function apiDocument(registry: Registry, served: Endpoint[]): object {
  return buildOpenApiDocument(registry, served, { version }) as object;
}

/** apiDocument as the JSON text GET /openapi.json answers, built on first request. */
export function apiDocumentText(registry: Registry, served: Endpoint[]): string {
  let byTable = texts.get(registry);
  if (!byTable) texts.set(registry, (byTable = new WeakMap()));
  let text = byTable.get(served);
  if (text === undefined) byTable.set(served, (text = JSON.stringify(apiDocument(registry, served))));
  return text;
}
