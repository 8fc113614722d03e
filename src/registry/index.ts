import fs from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { Manifest, TypeInfo } from './types';

export * from './types';

/** The compiled schema registry: manifest plus standalone validators, both from generated/. */
export class Registry {
  readonly types: Record<string, TypeInfo>;
  /** JSON Schema of each type (see Manifest.schemas). */
  readonly schemas: Record<string, Record<string, unknown>>;
  private readonly uriMatchers: Array<{ type: TypeInfo; re: RegExp }>;

  constructor(manifest: Manifest, private readonly validators: Record<string, ValidateFunction>) {
    this.types = manifest.types;
    this.schemas = manifest.schemas ?? {};
    this.uriMatchers = Object.values(this.types)
      .filter((t) => t.uriPattern)
      .map((type) => ({ type, re: new RegExp(type.uriPattern!) }));
  }

  type(name: string): TypeInfo {
    const t = this.types[name];
    if (!t) throw new Error(`unknown jsonmodel_type ${name}`);
    return t;
  }

  validator(name: string): ValidateFunction {
    const v = this.validators[name];
    if (!v) throw new Error(`no validator generated for ${name}`);
    return v;
  }

  /** The permissions that guard properties of some type (x-archive.guardedProperties): what a caller's read may withhold. */
  guardingPermissions(): string[] {
    this.guarding ??= [...new Set(Object.values(this.types).flatMap((t) => Object.values(t.guardedProperties ?? {})))];
    return this.guarding;
  }

  private guarding?: string[];

  /**
   * The record as search documents hold it: without its guarded properties (search results show
   * them to no one, and they are not searched; the indexer resolves linked records without theirs).
   */
  withoutGuarded<T extends Record<string, unknown>>(record: T): T {
    const guards = this.types[String(record.jsonmodel_type)]?.guardedProperties;
    if (!guards) return record;
    const copy: Record<string, unknown> = { ...record };
    for (const property of Object.keys(guards)) delete copy[property];
    return copy as T;
  }

  /** Top-level types served by the generic record routes. */
  routedTypes(): TypeInfo[] {
    return Object.values(this.types).filter((t) => t.kind === 'record' && t.routes !== false);
  }

  /** The type whose URI pattern a record URI matches (a tree URI does not). */
  typeOfUri(uri: string): TypeInfo | undefined {
    return this.uriMatchers.find((m) => m.re.test(uri) && !uri.endsWith('/tree'))?.type;
  }
}

/** The project's root folder (holding package.json), found from this file in src/ or in dist/src/. */
export function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the project root (package.json) above ' + __dirname);
    dir = up;
  }
  return dir;
}

export function defaultGeneratedDir(): string {
  return path.join(projectRoot(), 'generated');
}

export function loadRegistry(generatedDir = process.env.GENERATED_DIR || defaultGeneratedDir()): Registry {
  const manifest = JSON.parse(fs.readFileSync(path.join(generatedDir, 'registry.json'), 'utf8')) as Manifest;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const validators = require(path.join(generatedDir, 'validators.js')) as Record<string, ValidateFunction>;
  return new Registry(manifest, validators);
}
