import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { buildFormatsFixture, FormatsFixture } from './formats-fixture';
import { viewerAndNobody } from './viewer';
import { assertValid, el, xpath } from './xmllint';

describe(`METS export of digital objects (${STORE})`, () => {
  let t: TestApp;
  let f: FormatsFixture;
  let viewer: string;
  let nobody: string;
  const as = (token: string) => ({ 'X-ArchivesSpace-Session': token });
  const url = (id: number) => `/repositories/${f.repo}/digital_objects/mets/${id}.xml`;

  before(async () => {
    t = await startTestApp();
    f = await buildFormatsFixture(t);
    ({ viewer, nobody } = await viewerAndNobody(t, f.repo, 'mets'));
  });
  after(async () => t.close());

  it('writes valid METS with MODS descriptions, files with LOCTYPE and both structure maps', async () => {
    const res = await t.http.get(url(f.digitalObject)).set(as(viewer));
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers['content-type'], /^application\/xml/);
    const xml = assertValid(res.text, 'mets.xsd');
    assert.equal(xpath(xml, `string(//${el('metsHdr')}/${el('agent')}/${el('name')})`), 'Special Collections FMT');
    assert.equal(xpath(xml, `count(//${el('dmdSec')})`), '3');
    assert.equal(xpath(xml, `string(//${el('dmdSec')}[1]/${el('mdWrap')}/@MDTYPE)`), 'MODS');
    assert.equal(xpath(xml, `string(//${el('dmdSec')}[1]//${el('mods')}/${el('titleInfo')}/${el('title')})`), 'Notebook, 1899');
    assert.equal(xpath(xml, `string(//${el('dmdSec')}[3]//${el('mods')}/${el('identifier')})`), 'p2');
    // Published files only: two of the object's three, one of each component.
    assert.equal(xpath(xml, `count(//${el('file')})`), '4');
    assert.equal(xpath(xml, `count(//${el('FLocat')}[@LOCTYPE="URL"])`), '4');
    assert.doesNotMatch(xml, /staff-only/);
    assert.equal(xpath(xml, `string(//${el('fileGrp')}[@USE="image-master"]/${el('file')}/@MIMETYPE)`), 'application/pdf');
    assert.equal(xpath(xml, `string(//${el('fileGrp')}[@USE="image-master"]/${el('file')}/${el('FLocat')}/@*[local-name()="href"])`), 'https://example.org/iiif/notebook-1899/full.pdf');
    assert.equal(xpath(xml, `count(//${el('structMap')}[@TYPE="logical"]//${el('div')})`), '3');
    assert.equal(xpath(xml, `count(//${el('structMap')}[@TYPE="logical"]/${el('div')}/${el('fptr')})`), '2');
    assert.equal(xpath(xml, `string(//${el('structMap')}[@TYPE="logical"]/${el('div')}/${el('div')}[2]/@LABEL)`), 'Page 2');
    assert.equal(xpath(xml, `count(//${el('structMap')}[@TYPE="physical"]//${el('fptr')})`), '4');
  });

  it('writes Dublin Core descriptions with dmd=dc, and a bare object validly', async () => {
    const res = await t.http.get(url(f.digitalObject)).query({ dmd: 'dc' }).set(as(viewer));
    const xml = assertValid(res.text, 'mets.xsd');
    assert.equal(xpath(xml, `string(//${el('dmdSec')}[1]/${el('mdWrap')}/@MDTYPE)`), 'DC');
    assert.equal(xpath(xml, `string(//${el('dmdSec')}[1]//*[local-name()="title"])`), 'Notebook, 1899');
    assert.equal(xpath(xml, `count(//${el('mods')})`), '0');
    const bare = await t.http.get(url(f.bareDigitalObject)).set(as(viewer));
    assertValid(bare.text, 'mets.xsd');
  });

  it('answers the metadata route; 400 for an unknown dmd; 403 without view_repository; 404 for unknown ids', async () => {
    const meta = await t.http.get(`/repositories/${f.repo}/digital_objects/mets/${f.digitalObject}.xml/metadata`).set(as(viewer));
    assert.match(meta.body.filename, /^DO00421_\d{8}_\d{6}_UTC__mets\.xml$/);
    const bad = await t.http.get(url(f.digitalObject)).query({ dmd: 'PKG410P' }).set(as(viewer));
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: { dmd: ['Failed validation -- must be one of mods, dc but given: PKG410P'] } });
    assert.equal((await t.http.get(url(f.digitalObject)).set(as(nobody))).status, 403);
    assert.equal((await t.http.get(url(999999)).set(as(viewer))).status, 404);
    assert.equal((await t.http.get(`/repositories/${f.repo}/digital_objects/mets/999999.xml/metadata`).set(as(viewer))).status, 404);
  });
});
