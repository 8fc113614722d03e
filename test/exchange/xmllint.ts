/**
 * Validation of exported documents against the official schemas in ../shared/standards/, offline
 * (xmllint --nonet), as the standards README says. Invalid output fails the calling test with
 * xmllint's messages.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const STANDARDS = process.env.STANDARDS_DIR ?? path.resolve(__dirname, '../../../../shared/standards');

function standardsDir(): string {
  for (const dir of [STANDARDS, '/work/shared/standards']) if (fs.existsSync(path.join(dir, 'MARC21slim.xsd'))) return dir;
  throw new Error(`the official schemas were not found (set STANDARDS_DIR); looked in ${STANDARDS}`);
}

/** Validates `xml` against `schema` (a file name in the standards folder); returns the document. */
export function assertValid(xml: string, schema: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xmllint-'));
  const file = path.join(dir, 'doc.xml');
  fs.writeFileSync(file, xml);
  try {
    execFileSync('xmllint', ['--nonet', '--noout', '--schema', path.join(standardsDir(), schema), file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, XML_CATALOG_FILES: path.join(standardsDir(), 'catalog.xml') },
    });
  } catch (err) {
    const e = err as { stderr?: Buffer };
    assert.fail(`not valid against ${schema}:\n${String(e.stderr ?? err).slice(0, 3000)}\n--- document ---\n${xml.slice(0, 3000)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return xml;
}

/** Only well-formed (for documents no schema describes as a whole). */
export function assertWellFormed(xml: string): void {
  try {
    execFileSync('xmllint', ['--nonet', '--noout', '-'], { input: xml, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    assert.fail(`not well-formed:\n${String((err as { stderr?: Buffer }).stderr ?? err)}`);
  }
}

/**
 * The string value of an XPath 1.0 expression over `xml` (xmllint --xpath). Namespaced documents
 * are queried by local-name: `el('datafield')` writes `*[local-name()="datafield"]`.
 */
export function xpath(xml: string, expr: string): string {
  try {
    return execFileSync('xmllint', ['--nonet', '--xpath', expr, '-'], { input: xml, stdio: ['pipe', 'pipe', 'pipe'] }).toString().replace(/\n$/, '');
  } catch (err) {
    const e = err as { status?: number; stderr?: Buffer };
    // xmllint exits 10 when the expression matches nothing.
    if (e.status === 10 || /XPath set is empty/.test(String(e.stderr))) return '';
    throw err;
  }
}

export const el = (name: string) => `*[local-name()="${name}"]`;
