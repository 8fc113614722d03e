/** Regenerates into a temporary folder and fails on any difference from generated/ (CI runs it). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from './generate';
import { writeOpenApi } from './openapi';

async function main() {
  const root = path.resolve(__dirname, '..');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-generated-'));
  try {
    const files = [...(await generate(path.join(root, 'schemas'), tmp)), ...writeOpenApi(tmp)];
    const stale = files.filter((f) => {
      const committed = path.join(root, 'generated', f);
      return !fs.existsSync(committed) || fs.readFileSync(committed, 'utf8') !== fs.readFileSync(path.join(tmp, f), 'utf8');
    });
    if (stale.length) {
      console.error(`generated/ is stale (${stale.join(', ')}): run \`make generate\` and commit the result.`);
      process.exit(1);
    }
    console.log(`generated/ is current (${files.length} files).`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
