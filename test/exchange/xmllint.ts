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

let dctermsDriver: string | undefined;

/**
 * A schema written here (DCMI publishes no root element for qualified DC, nor OAI one for
 * oai_dcterms): ArchivesSpace's `oai_dcterms:dcterms` root holding DCMI's terms
 * (dcterms.xsd's elementOrRefinementContainer), loaded with what oai-pmh-all.xsd loads, so a
 * whole OAI-PMH response in any of the five formats validates. DCMI's dc.xsd comes in first, so
 * oai_dc's import of simpledc.xsd (the same namespace) is skipped and both formats use DCMI's.
 * Answers the path of the driver, for assertValid.
 */
export function oaiWithDcterms(): string {
  if (dctermsDriver && fs.existsSync(dctermsDriver)) return dctermsDriver;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oai-dcterms-'));
  const at = (file: string) => path.join(standardsDir(), file);
  fs.writeFileSync(path.join(dir, 'oai_dcterms.xsd'), `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:dcterms="http://purl.org/dc/terms/"
           targetNamespace="http://www.openarchives.org/OAI/2.0/oai_dcterms/" elementFormDefault="qualified">
  <xs:import namespace="http://purl.org/dc/terms/" schemaLocation="${at('dcterms.xsd')}"/>
  <xs:element name="dcterms" type="dcterms:elementOrRefinementContainer"/>
</xs:schema>
`);
  dctermsDriver = path.join(dir, 'oai-pmh-dcterms.xsd');
  fs.writeFileSync(dctermsDriver, `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:local:oai-pmh-dcterms" elementFormDefault="qualified">
  <xs:import namespace="http://www.openarchives.org/OAI/2.0/oai_dcterms/" schemaLocation="${path.join(dir, 'oai_dcterms.xsd')}"/>
  <xs:import namespace="http://www.openarchives.org/OAI/2.0/" schemaLocation="${at('OAI-PMH.xsd')}"/>
  <xs:import namespace="http://www.openarchives.org/OAI/2.0/oai_dc/" schemaLocation="${at('oai_dc.xsd')}"/>
  <xs:import namespace="http://www.loc.gov/MARC21/slim" schemaLocation="${at('MARC21slim.xsd')}"/>
  <xs:import namespace="http://www.loc.gov/mods/v3" schemaLocation="${at('mods.xsd')}"/>
  <xs:import namespace="urn:isbn:1-931666-22-9" schemaLocation="${at('ead.xsd')}"/>
</xs:schema>
`);
  return dctermsDriver;
}

/** Validates `xml` against `schema` (a file name in the standards folder, or a path); returns the document. */
export function assertValid(xml: string, schema: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xmllint-'));
  const file = path.join(dir, 'doc.xml');
  fs.writeFileSync(file, xml);
  try {
    execFileSync('xmllint', ['--nonet', '--noout', '--schema', path.isAbsolute(schema) ? schema : path.join(standardsDir(), schema), file], {
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
