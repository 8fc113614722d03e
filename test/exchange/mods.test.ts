import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { buildFormatsFixture, FormatsFixture } from './formats-fixture';
import { viewerAndNobody } from './viewer';
import { assertValid, el, xpath } from './xmllint';

describe(`MODS export of digital objects (${STORE})`, () => {
  let t: TestApp;
  let f: FormatsFixture;
  let viewer: string;
  let nobody: string;
  const as = (token: string) => ({ 'X-ArchivesSpace-Session': token });
  const url = (id: number) => `/repositories/${f.repo}/digital_objects/mods/${id}.xml`;

  before(async () => {
    t = await startTestApp();
    f = await buildFormatsFixture(t);
    ({ viewer, nobody } = await viewerAndNobody(t, f.repo, 'mods'));
  });
  after(async () => t.close());

  it('writes valid MODS with dates inside originInfo and components as constituent items', async () => {
    const res = await t.http.get(url(f.digitalObject)).set(as(viewer));
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers['content-type'], /^application\/xml/);
    const xml = assertValid(res.text, 'mods.xsd');
    assertValid(res.text, 'mods-3-4.xsd');
    const top = `/${el('mods')}`;
    assert.equal(xpath(xml, `string(${top}/@version)`), '3.4');
    assert.equal(xpath(xml, `string(${top}/${el('titleInfo')}/${el('title')})`), 'Notebook, 1899');
    assert.equal(xpath(xml, `string(${top}/${el('identifier')})`), 'DO-0042-1');
    assert.equal(xpath(xml, `string(${top}/${el('typeOfResource')})`), 'text');
    assert.equal(xpath(xml, `string(${top}/${el('originInfo')}/${el('dateCreated')})`), 'circa 1899');
    assert.equal(xpath(xml, `string(${top}/${el('originInfo')}/${el('dateCreated')}/@qualifier)`), 'approximate');
    assert.equal(xpath(xml, `string(${top}/${el('originInfo')}/${el('dateCaptured')})`), '2001-05-02');
    assert.equal(xpath(xml, `string(${top}/${el('originInfo')}/${el('dateIssued')}[@point="end"])`), '1902');
    assert.equal(xpath(xml, `count(${top}/*[starts-with(local-name(), "date")])`), '0', 'no dates outside originInfo');
    assert.equal(xpath(xml, `string(${top}/${el('language')}/${el('languageTerm')}[@type="code"])`), 'fre');
    assert.equal(xpath(xml, `string(${top}/${el('physicalDescription')}/${el('extent')})`), '1 volumes');
    assert.equal(xpath(xml, `string(${top}/${el('abstract')})`), 'A laboratory notebook.');
    assert.equal(xpath(xml, `string(${top}/${el('accessCondition')}[@type="useAndReproduction"])`), 'Public domain.');
    assert.equal(xpath(xml, `string(${top}/${el('subject')}/${el('topic')})`), 'Radioactivity -- History -- 20th century');
    assert.equal(xpath(xml, `string(${top}/${el('subject')}/${el('geographic')})`), 'Paris (France)');
    assert.equal(xpath(xml, `string(${top}/${el('subject')}/${el('genre')})`), 'Laboratory notebooks');
    assert.equal(xpath(xml, `string(${top}/${el('name')}[@type="personal"]/${el('namePart')}[@type="family"])`), 'Curie');
    assert.equal(xpath(xml, `string(${top}/${el('name')}/${el('role')}/${el('roleTerm')}[@type="code"])`), 'aut');
    assert.equal(xpath(xml, `string(${top}/${el('subject')}/${el('name')}[@type="family"]/${el('namePart')})`), 'Curie family');
    assert.equal(xpath(xml, `string(${top}/${el('note')}[@displayLabel="Digital object made available by"])`), 'Special Collections FMT');
    assert.equal(xpath(xml, `count(${top}/${el('relatedItem')}[@type="constituent"])`), '2');
    assert.equal(xpath(xml, `string(${top}/${el('relatedItem')}[1]/${el('titleInfo')}/${el('title')})`), 'Page 1');
    assert.equal(xpath(xml, `string(${top}/${el('relatedItem')}[2]/${el('identifier')})`), 'p2');
  });

  it('leaves unpublished notes out and writes a bare object validly', async () => {
    const xml = (await t.http.get(url(f.digitalObject)).set(as(viewer))).text;
    assert.doesNotMatch(xml, /NOT-FOR-PUBLIC|Secret Donor/);
    const bare = await t.http.get(url(f.bareDigitalObject)).set(as(viewer));
    assertValid(bare.text, 'mods.xsd');
    assert.equal(xpath(bare.text, `string(//${el('title')})`), 'Bare & plain');
  });

  it('answers the metadata route; 403 without view_repository; 404 for unknown ids; 400 for bad ids', async () => {
    const meta = await t.http.get(`/repositories/${f.repo}/digital_objects/mods/${f.digitalObject}.xml/metadata`).set(as(viewer));
    assert.equal(meta.status, 200, meta.text);
    assert.match(meta.body.filename, /^DO00421_\d{8}_\d{6}_UTC__mods\.xml$/);
    assert.equal(meta.body.mimetype, 'application/xml');
    assert.equal((await t.http.get(url(f.digitalObject)).set(as(nobody))).status, 403);
    assert.equal((await t.http.get(url(f.digitalObject))).status, 403);
    const missing = await t.http.get(url(999999)).set(as(viewer));
    assert.deepEqual([missing.status, missing.body], [404, { error: 'DigitalObject not found' }]);
    assert.equal((await t.http.get(`/repositories/${f.repo}/digital_objects/mods/999999.xml/metadata`).set(as(viewer))).status, 404);
    assert.equal((await t.http.get(`/repositories/${f.repo}/digital_objects/mods/x.xml`).set(as(viewer))).status, 400);
  });
});
