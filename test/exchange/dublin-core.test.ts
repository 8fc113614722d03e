import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { buildFormatsFixture, FormatsFixture } from './formats-fixture';
import { viewerAndNobody } from './viewer';
import { assertValid, assertWellFormed, el, xpath } from './xmllint';

/**
 * The `<dc>` root of ArchivesSpace's Dublin Core export is declared by no DCMI schema: the
 * standards README says to validate its children. They are wrapped here in an `oai_dc:dc`
 * (which holds any sequence of the fifteen elements) and validated with oai_dc.xsd.
 */
function assertDcChildrenValid(xml: string): void {
  assertWellFormed(xml);
  const inner = xml.replace(/^<\?xml[^>]*>\s*/, '').replace(/^<dc\b[^>]*>/, '').replace(/<\/dc>\s*$/, '');
  assertValid(`<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns="http://purl.org/dc/elements/1.1/">${inner}</oai_dc:dc>`, 'oai_dc.xsd');
}

describe(`Dublin Core export of digital objects (${STORE})`, () => {
  let t: TestApp;
  let f: FormatsFixture;
  let viewer: string;
  let nobody: string;
  const as = (token: string) => ({ 'X-ArchivesSpace-Session': token });
  const url = (id: number) => `/repositories/${f.repo}/digital_objects/dublin_core/${id}.xml`;

  before(async () => {
    t = await startTestApp();
    f = await buildFormatsFixture(t);
    ({ viewer, nobody } = await viewerAndNobody(t, f.repo, 'dc'));
  });
  after(async () => t.close());

  it('writes the mapped elements in the DC namespace, each valid against the DC schema', async () => {
    const res = await t.http.get(url(f.digitalObject)).set(as(viewer));
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers['content-type'], /^application\/xml/);
    assertDcChildrenValid(res.text);
    const xml = res.text;
    assert.equal(xpath(xml, 'namespace-uri(/*)'), 'http://purl.org/dc/elements/1.1/');
    assert.equal(xpath(xml, `string(/${el('dc')}/${el('title')})`), 'Notebook, 1899');
    assert.equal(xpath(xml, `count(/${el('dc')}/${el('identifier')})`), '2');
    assert.equal(xpath(xml, `string(/${el('dc')}/${el('creator')})`), 'Curie, Marie (Maria Salomea), 1867-1934'); // generated: sort_name_auto_generate defaults to true, as in ArchivesSpace
    assert.equal(xpath(xml, `string(/${el('dc')}/${el('language')})`), 'fre');
    assert.equal(xpath(xml, `count(/${el('dc')}/${el('subject')})`), '4');
    assert.equal(xpath(xml, `count(/${el('dc')}/${el('date')})`), '3');
    assert.equal(xpath(xml, `string(/${el('dc')}/${el('rights')})`), 'Public domain.');
    assert.equal(xpath(xml, `string(/${el('dc')}/${el('format')})`), '1 volumes');
    assert.equal(xpath(xml, `string(/${el('dc')}/${el('type')})`), 'text');
    assert.match(xml, /Digital object made available by Special Collections FMT/);
    assert.doesNotMatch(xml, /NOT-FOR-PUBLIC/);
    const bare = await t.http.get(url(f.bareDigitalObject)).set(as(viewer));
    assertDcChildrenValid(bare.text);
  });

  it('answers the metadata route; 403 without view_repository; 404 for unknown ids', async () => {
    const meta = await t.http.get(`/repositories/${f.repo}/digital_objects/dublin_core/${f.digitalObject}.xml/metadata`).set(as(viewer));
    assert.match(meta.body.filename, /^DO00421_\d{8}_\d{6}_UTC__dc\.xml$/);
    assert.equal((await t.http.get(url(f.digitalObject)).set(as(nobody))).status, 403);
    assert.equal((await t.http.get(url(999999)).set(as(viewer))).status, 404);
    assert.equal((await t.http.get(`/repositories/${f.repo}/digital_objects/dublin_core/999999.xml/metadata`).set(as(viewer))).status, 404);
  });
});
