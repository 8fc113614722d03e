import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { buildFormatsFixture, FormatsFixture } from './formats-fixture';
import { assertValid, el, xpath } from './xmllint';

const df = (tag: string) => `//${el('datafield')}[@tag="${tag}"]`;
const sf = (tag: string, code: string) => `string(${df(tag)}/${el('subfield')}[@code="${code}"])`;

describe(`MARCXML export of resources (${STORE})`, () => {
  let t: TestApp;
  let f: FormatsFixture;
  let viewer: string;
  const as = (token: string) => ({ 'X-ArchivesSpace-Session': token });
  const url = (id: number, repo = f.repo) => `/repositories/${repo}/resources/marc21/${id}.xml`;

  before(async () => {
    t = await startTestApp();
    f = await buildFormatsFixture(t);
    const groups = await t.http.get(`/repositories/${f.repo}/groups`).query({ group_code: 'repository-viewers' }).set(as(f.token));
    await t.http.post('/users').query({ password: 'pw-v', 'groups[]': [groups.body[0].uri] }).set(as(f.token)).send({ username: 'mviewer', name: 'V' }).expect(200);
    viewer = (await t.http.post('/users/mviewer/login').query({ password: 'pw-v' })).body.session;
    await t.http.post('/users').query({ password: 'pw-n' }).send({ username: 'mnobody', name: 'N' }).expect(200);
  });
  after(async () => t.close());

  it('writes a valid MARCXML collection with the mapped fields', async () => {
    const res = await t.http.get(url(f.resource)).set(as(viewer));
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers['content-type'], /^application\/xml/);
    const xml = assertValid(res.text, 'MARC21slim.xsd');
    assert.equal(xpath(xml, `string(//${el('leader')})`), '00000npcaa2200000 u 4500');
    const c008 = xpath(xml, `string(//${el('controlfield')}[@tag="008"])`);
    assert.equal(c008.length, 40);
    assert.equal(c008.slice(6, 15), 'i18901934');
    assert.equal(c008.slice(15, 18), 'xxu');
    assert.equal(c008.slice(35, 38), 'mul');
    assert.equal(xpath(xml, sf('245', 'a')), 'Marie Curie papers,');
    assert.equal(xpath(xml, sf('245', 'f')), '1890-1934');
    assert.equal(xpath(xml, sf('245', 'g')), '1900 - 1920');
    assert.equal(xpath(xml, `string(${df('245')}/@ind1)`), '1');
    assert.equal(xpath(xml, sf('099', 'a')), 'MS.0042');
    assert.equal(xpath(xml, sf('852', 'a')), 'Example University');
    assert.equal(xpath(xml, sf('852', 'b')), 'Special Collections FMT');
    assert.equal(xpath(xml, sf('040', 'a')), 'US-XyZ');
    assert.equal(xpath(xml, sf('040', 'b')), 'eng');
    assert.equal(xpath(xml, sf('040', 'e')), 'dacs');
    assert.equal(xpath(xml, sf('049', 'a')), 'US-XyZ');
    assert.equal(xpath(xml, `count(${df('041')}/${el('subfield')}[@code="a"])`), '2');
    assert.equal(xpath(xml, sf('100', 'a')), 'Curie, Marie,');
    assert.equal(xpath(xml, sf('100', 'd')), '1867-1934,');
    assert.equal(xpath(xml, sf('100', '4')), 'aut');
    assert.equal(xpath(xml, sf('100', '0')), 'n79055347');
    assert.equal(xpath(xml, `string(${df('100')}/@ind1)`), '1');
    assert.equal(xpath(xml, sf('710', 'a')), 'Institut du Radium');
    assert.equal(xpath(xml, sf('710', 'b')), 'Laboratoire Curie,');
    assert.equal(xpath(xml, sf('710', 'e')), 'creator.');
    assert.equal(xpath(xml, `string(${df('700')}[@ind1="3"]/${el('subfield')}[@code="a"])`), 'Curie family,');
    assert.equal(xpath(xml, sf('610', 'v')), 'Archives.');
    assert.equal(xpath(xml, sf('653', 'a')), 'Scanner Suite');
    assert.equal(xpath(xml, sf('650', 'a')), 'Radioactivity');
    assert.equal(xpath(xml, sf('650', 'x')), 'History');
    assert.equal(xpath(xml, sf('650', 'y')), '20th century');
    assert.equal(xpath(xml, sf('650', '0')), 'sh85110640');
    assert.equal(xpath(xml, `string(${df('650')}/@ind2)`), '0');
    assert.equal(xpath(xml, sf('651', 'a')), 'Paris (France)');
    assert.equal(xpath(xml, sf('651', '2')), 'local');
    assert.equal(xpath(xml, sf('655', 'a')), 'Laboratory notebooks');
    assert.equal(xpath(xml, `count(${df('300')})`), '2');
    assert.equal(xpath(xml, sf('300', 'f')), 'linear feet (24 boxes)');
    assert.equal(xpath(xml, `string(${df('520')}[@ind1="3"]/${el('subfield')})`), 'Papers of the physicist Marie Curie.');
    assert.equal(xpath(xml, `string(${df('520')}[@ind1="2"]/${el('subfield')})`), 'Correspondence, notebooks & photographs.');
    assert.equal(xpath(xml, sf('545', 'a')), 'Born in Warsaw in 1867.');
    assert.equal(xpath(xml, sf('546', 'a')), 'Mostly in French; some Polish.');
    assert.equal(xpath(xml, sf('541', 'a')), 'Gift of the family, 1990.');
    assert.equal(xpath(xml, `string(${df('541')}/@ind1)`), '1');
    assert.match(xpath(xml, `string(${df('500')})`), /Processing Information: Processed in 2001\.|Location of resource: Stored off site\./);
    assert.equal(xpath(xml, `count(${df('581')})`), '2');
    assert.equal(xpath(xml, sf('856', 'u')), 'https://example.org/findingaids/ms0042');
    const tags = xpath(xml, `//${el('datafield')}/@tag`).match(/\d{3}/g)!;
    assert.deepEqual(tags, [...tags].sort(), 'data fields in tag order');
  });

  it('leaves unpublished agents and notes out unless include_unpublished_marc', async () => {
    const plain = (await t.http.get(url(f.resource)).set(as(viewer))).text;
    assert.doesNotMatch(plain, /Secret Donor|NOT-FOR-PUBLIC/);
    const all = await t.http.get(url(f.resource)).query({ include_unpublished_marc: true }).set(as(viewer));
    assertValid(all.text, 'MARC21slim.xsd');
    assert.match(all.text, /Secret Donor/);
    assert.match(all.text, /NOT-FOR-PUBLIC/);
  });

  it('answers the metadata route with ArchivesSpace file names', async () => {
    const res = await t.http.get(`/repositories/${f.repo}/resources/marc21/${f.resource}.xml/metadata`).set(as(viewer));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.mimetype, 'application/xml');
    assert.match(res.body.filename, /^MS\.0042_\d{8}_\d{6}_UTC__marc21\.xml$/);
  });

  it('refuses callers without view_repository (403), unknown and suppressed ids (404), bad parameters (400)', async () => {
    const nobody = (await t.http.post('/users/mnobody/login').query({ password: 'pw-n' })).body.session;
    assert.equal((await t.http.get(url(f.resource)).set(as(nobody))).status, 403);
    assert.equal((await t.http.get(url(f.resource))).status, 403);
    const missing = await t.http.get(url(999999)).set(as(viewer));
    assert.deepEqual([missing.status, missing.body], [404, { error: 'Resource not found' }]);
    assert.equal((await t.http.get(url(f.suppressedResource)).set(as(f.token))).status, 404);
    assert.equal((await t.http.get(`/repositories/${f.repo}/resources/marc21/${f.resource}.xml/metadata`).set(as(viewer))).status, 200);
    assert.equal((await t.http.get(`/repositories/${f.repo}/resources/marc21/999999.xml/metadata`).set(as(viewer))).status, 404);
    const bad = await t.http.get(url(f.resource)).query({ include_unpublished_marc: 'maybe' }).set(as(viewer));
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.include_unpublished_marc);
    assert.equal((await t.http.get(`/repositories/${f.repo}/resources/marc21/abc.xml`).set(as(viewer))).status, 400);
    assert.equal((await t.http.get(url(f.resource, 99999)).set(as(viewer))).status, 400);
  });
});
