/**
 * Writes generated/openapi.json: the OpenAPI document the server answers at GET /openapi.json,
 * committed so that it can be read (and diffed) without starting anything.
 * Usage: tsx scripts/openapi.ts [generatedDir] [outDir]
 */
import fs from 'node:fs';
import path from 'node:path';
import { apiDocument, servedEndpoints } from '../src/openapi';
import { Manifest, Registry } from '../src/registry';

/** Builds the document from the registry in `generatedDir` and writes it to `outDir`; returns the file names. */
export function writeOpenApi(generatedDir: string, outDir = generatedDir): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(generatedDir, 'registry.json'), 'utf8')) as Manifest;
  // The description needs no validators, and a generated folder outside the project could not load them.
  const registry = new Registry(manifest, {});
  const doc = apiDocument(registry, servedEndpoints(registry));
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'openapi.json'), JSON.stringify(doc, null, 2) + '\n');
  return ['openapi.json'];
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const generatedDir = path.resolve(process.argv[2] ?? path.join(root, 'generated'));
  const outDir = path.resolve(process.argv[3] ?? generatedDir);
  try {
    const files = writeOpenApi(generatedDir, outDir);
    console.log(`generated ${files.join(', ')} in ${path.relative(process.cwd(), outDir) || '.'}`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
