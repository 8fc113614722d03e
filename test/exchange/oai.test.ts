import assert from 'node:assert/strict';
import supertest from 'supertest';
import { createApp } from '../../src/http/app';
import { startTestApp, STORE, TestApp } from '../helpers';
import { buildFormatsFixture, FormatsFixture, post } from './formats-fixture';
import { viewerAndNobody } from './viewer';
import { assertValid, el, oaiWithDcterms, xpath } from './xmllint';

const FORMATS = ['oai_dc', 'oai_dcterms', 'oai_marc', 'oai_mods'];
/** Whole responses with metadata in any format: oai-pmh-all.xsd and the oai_dcterms root (xmllint.ts). */
const WITH_METADATA = oaiWithDcterms();
const BULK = 1200;

describe(`OAI-PMH provider (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let f: FormatsFixture;
  let admin: Record<string, string>;
  let bulkResource: number;
  let deletedUri: string;
  let unpublishedUri: string;
  let underUnpublishedUri: string;
  let hiddenRepoResource: string;
  const oai = (query: Record<string, string>) => t.http.get('/oai').query(query);
  const errorCode = (xml: string) => xpath(xml, `string(//${el('error')}/@code)`);
  const prefix = 'oai:archivesspace/';

  before(async () => {
    t = await startTestApp({ OAI_PAGE_SIZE: '100' });
    f = await buildFormatsFixture(t);
    admin = { 'X-ArchivesSpace-Session': f.token };
    // A second resource with 1,200 published components, made in batches as a migration would.
    bulkResource = (await post(t, f.token, `/repositories/${f.repo}/resources`, {
      title: 'Bulk papers', id_0: 'BULK', level: 'collection', publish: true, finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'single', label: 'creation', begin: '1990' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng' } }],
    })).id;
    for (let start = 0; start < BULK; start += 400) {
      const children = Array.from({ length: 400 }, (_, i) => ({
        title: `Item ${start + i}`, level: 'item', publish: true, component_id: `B${start + i}`,
        resource: { ref: `/repositories/${f.repo}/resources/${bulkResource}` },
        dates: [{ date_type: 'single', label: 'creation', begin: String(1900 + ((start + i) % 100)) }],
      }));
      const res = await t.http.post(`/repositories/${f.repo}/resources/${bulkResource}/children`).set(admin).send({ children });
      assert.equal(res.status, 200, res.text);
    }
    // One component deleted (reported as deleted), one unpublished (never shown).
    const doomed = await post(t, f.token, `/repositories/${f.repo}/archival_objects`, {
      title: 'Withdrawn', level: 'file', publish: true, resource: { ref: `/repositories/${f.repo}/resources/${f.resource}` },
    });
    deletedUri = doomed.uri;
    assert.equal((await t.http.delete(doomed.uri).set(admin)).status, 200);
    unpublishedUri = (await post(t, f.token, `/repositories/${f.repo}/archival_objects`, {
      title: 'Unpublished draft', level: 'file', publish: false, resource: { ref: `/repositories/${f.repo}/resources/${f.resource}` },
    })).uri;
    underUnpublishedUri = (await post(t, f.token, `/repositories/${f.repo}/archival_objects`, {
      title: 'Published child of a draft', level: 'item', publish: true, resource: { ref: `/repositories/${f.repo}/resources/${f.resource}` },
      parent: { ref: unpublishedUri },
    })).uri;
    // A repository withdrawn from OAI: its records never appear.
    const hidden = await post(t, f.token, '/repositories', { repo_code: 'NOOAI', name: 'Not harvested', oai_is_disabled: true });
    hiddenRepoResource = (await post(t, f.token, `/repositories/${hidden.id}/resources`, {
      title: 'Hidden repository papers', id_0: 'H1', level: 'collection', publish: true, finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'single', label: 'creation', begin: '1990' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng' } }],
    })).uri;
  });
  after(async () => t.close());

  /** Every item of a list, page by page, each page validated; the identifiers and deletions seen. */
  async function harvest(verb: 'ListRecords' | 'ListIdentifiers', query: Record<string, string>, via = t.http) {
    const seen: string[] = [];
    const deleted: string[] = [];
    let pages = 0;
    let res = await via.get('/oai').query({ verb, ...query });
    for (;;) {
      assert.equal(res.status, 200);
      assert.match(res.headers['content-type'], /^text\/xml/);
      assertValid(res.text, verb === 'ListRecords' ? WITH_METADATA : 'OAI-PMH.xsd');
      assert.equal(errorCode(res.text), '', res.text.slice(0, 500));
      pages += 1;
      const ids = xpath(res.text, `//${el('header')}[not(@status)]/${el('identifier')}/text()`).split('\n').filter(Boolean);
      const gone = xpath(res.text, `//${el('header')}[@status="deleted"]/${el('identifier')}/text()`).split('\n').filter(Boolean);
      seen.push(...ids);
      deleted.push(...gone);
      const token = xpath(res.text, `string(//${el('resumptionToken')})`);
      if (!token) break;
      res = await via.get('/oai').query({ verb, resumptionToken: token });
    }
    return { seen, deleted, pages };
  }

  it('answers Identify, ListMetadataFormats and ListSets, valid against the OAI-PMH schema', async () => {
    const identify = await oai({ verb: 'Identify' });
    assert.equal(identify.status, 200);
    assertValid(identify.text, WITH_METADATA);
    assert.equal(xpath(identify.text, `string(//${el('repositoryName')})`), 'ArchivesSpace OAI Provider');
    assert.equal(xpath(identify.text, `string(//${el('deletedRecord')})`), 'persistent');
    assert.equal(xpath(identify.text, `string(//${el('granularity')})`), 'YYYY-MM-DDThh:mm:ssZ');
    assert.equal(xpath(identify.text, `string(//${el('request')}/@verb)`), 'Identify');
    const formats = await oai({ verb: 'ListMetadataFormats' });
    assertValid(formats.text, 'OAI-PMH.xsd');
    const prefixes = xpath(formats.text, `//${el('metadataPrefix')}/text()`).split('\n').filter(Boolean);
    for (const p of [...FORMATS, 'oai_ead']) assert.ok(prefixes.includes(p), p);
    const forRecord = await oai({ verb: 'ListMetadataFormats', identifier: `${prefix}/repositories/${f.repo}/resources/${f.resource}` });
    assertValid(forRecord.text, 'OAI-PMH.xsd');
    const sets = await oai({ verb: 'ListSets' });
    assertValid(sets.text, 'OAI-PMH.xsd');
    const specs = xpath(sets.text, `//${el('setSpec')}/text()`).split('\n').filter(Boolean);
    for (const spec of ['collection', 'series', 'file', 'item', `repository:${f.repo}`]) assert.ok(specs.includes(spec), spec);
    assert.ok(!specs.some((s) => s.startsWith('repository:') && s !== `repository:${f.repo}`), 'the OAI-disabled repository is no set');
  });

  it(`harvests ${BULK}+ records with resumption tokens in every format, each exactly once, and reports the deletion`, async () => {
    let first: string[] | undefined;
    for (const metadataPrefix of FORMATS) {
      const { seen, deleted, pages } = await harvest('ListRecords', { metadataPrefix });
      assert.equal(new Set(seen).size, seen.length, `${metadataPrefix}: no record twice`);
      assert.ok(seen.length >= BULK + 3, `${metadataPrefix}: ${seen.length} records`);
      assert.ok(pages >= Math.ceil(BULK / 100), `${metadataPrefix}: ${pages} pages`);
      for (let i = 0; i < BULK; i += 97) assert.ok(seen.some((id) => id.endsWith(`/archival_objects/${i + 5}`)) || seen.length > BULK, 'components harvested');
      assert.ok(seen.includes(`${prefix}/repositories/${f.repo}/resources/${f.resource}`));
      assert.ok(seen.includes(`${prefix}/repositories/${f.repo}/resources/${bulkResource}`));
      assert.ok(!seen.includes(`${prefix}${unpublishedUri}`), 'unpublished record left out');
      assert.ok(!seen.includes(`${prefix}${underUnpublishedUri}`), 'record under an unpublished ancestor left out');
      assert.ok(!seen.includes(`${prefix}/repositories/${f.repo}/resources/${f.suppressedResource}`), 'suppressed record left out');
      assert.ok(!seen.includes(`${prefix}${hiddenRepoResource}`), 'OAI-disabled repository left out');
      assert.deepEqual(deleted, [`${prefix}${deletedUri}`]);
      if (first) assert.deepEqual(seen, first, 'every format lists the same records');
      first = seen;
    }
    const ids = await harvest('ListIdentifiers', { metadataPrefix: 'oai_dc' });
    assert.deepEqual(ids.seen, first);
    assert.deepEqual(ids.deleted, [`${prefix}${deletedUri}`]);
  });

  it('resumes a list from its token alone (another app over the same store: nothing kept in memory)', async () => {
    const res = await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc' });
    const token = xpath(res.text, `string(//${el('resumptionToken')})`);
    assert.ok(token);
    const other = supertest(createApp(t.services));
    const next = await other.get('/oai').query({ verb: 'ListIdentifiers', resumptionToken: token });
    assertValid(next.text, 'OAI-PMH.xsd');
    assert.equal(xpath(next.text, `string(//${el('resumptionToken')}/@cursor)`), '100');
    const firstIds = xpath(res.text, `//${el('identifier')}/text()`).split('\n');
    const nextIds = xpath(next.text, `//${el('identifier')}/text()`).split('\n');
    assert.equal(firstIds.filter((id) => nextIds.includes(id)).length, 0);
  });

  it('serves oai_dcterms as ArchivesSpace maps it: listed in ListMetadataFormats, valid against DCMI terms, refinements in the terms namespace', async () => {
    const formats = (await oai({ verb: 'ListMetadataFormats' })).text;
    const format = `//${el('metadataFormat')}[${el('metadataPrefix')}="oai_dcterms"]`;
    assert.equal(xpath(formats, `string(${format}/${el('schema')})`), 'http://dublincore.org/schemas/xmls/qdc/2008/02/11/dcterms.xsd');
    assert.equal(xpath(formats, `string(${format}/${el('metadataNamespace')})`), 'http://purl.org/dc/terms/');
    const res = await oai({ verb: 'GetRecord', identifier: `${prefix}/repositories/${f.repo}/resources/${f.resource}`, metadataPrefix: 'oai_dcterms' });
    assertValid(res.text, WITH_METADATA);
    const root = '//*[local-name()="dcterms" and namespace-uri()="http://www.openarchives.org/OAI/2.0/oai_dcterms/"]';
    const terms = (name: string, ns = 'http://purl.org/dc/terms/') => xpath(res.text, `${root}/*[local-name()="${name}" and namespace-uri()="${ns}"]/text()`).split('\n').filter(Boolean);
    const dc = (name: string) => terms(name, 'http://purl.org/dc/elements/1.1/');
    assert.deepEqual(dc('title'), ['Marie Curie papers']);
    assert.deepEqual(terms('alternative'), ['Guide to the Marie Curie papers']);
    assert.deepEqual(dc('identifier'), ['MS.0042', `/repositories/${f.repo}/resources/${f.resource}`]);
    assert.deepEqual(terms('abstract'), ['Papers of the physicist Marie Curie.']);
    assert.ok(dc('description').some((d) => d.includes('Correspondence, notebooks')), 'scope and contents');
    assert.ok(!dc('description').some((d) => d.includes('Papers of the physicist')), 'the abstract is no description here');
    assert.deepEqual(terms('accessRights'), ['Open for research.']);
    assert.deepEqual(dc('rights'), ['Copyright retained by the family.']);
    assert.deepEqual(terms('provenance').sort(), ['Gift of the family, 1990.', 'Kept at the Institut du Radium.']);
    assert.deepEqual(dc('coverage'), ['Paris (France)']);
    assert.ok(dc('type').includes('Laboratory notebooks'), 'genre subjects are types');
    assert.ok(dc('subject').includes('Radioactivity -- History -- 20th century') && !dc('subject').includes('Paris (France)'));
    assert.ok(terms('extent').some((e) => e.startsWith('12 linear feet')));
    assert.deepEqual(dc('language'), ['fre', 'pol', 'Latn', 'Latn'], 'languages, then scripts');
    assert.doesNotMatch(res.text, /NOT-FOR-PUBLIC|Secret Donor/, 'unpublished notes and agents stay out');
    assert.doesNotMatch(res.text, /<dc:format|<dcterms:title/, 'extents are dcterms:extent, the title dc:title');

    const component = await oai({ verb: 'GetRecord', identifier: `${prefix}/repositories/${f.repo}/archival_objects/${f.series}`, metadataPrefix: 'oai_dcterms' });
    assertValid(component.text, WITH_METADATA);
    assert.equal(xpath(component.text, `string(${root}/*[local-name()="isPartOf"])`), 'Marie Curie papers, MS.0042');
    assert.equal(xpath(component.text, `string(${root}/*[local-name()="alternative"])`), 'Guide to the Marie Curie papers');
    assert.equal(xpath(component.text, `string(${root}/*[local-name()="identifier"][1])`), 'S1');
  });

  it('refuses oai_dcterms where it cannot serve it, as the other formats', async () => {
    const unknown = await oai({ verb: 'GetRecord', identifier: `${prefix}/repositories/${f.repo}/resources/${f.resource}`, metadataPrefix: 'oai_dcterm' });
    assertValid(unknown.text, 'OAI-PMH.xsd');
    assert.equal(errorCode(unknown.text), 'cannotDisseminateFormat');
    const missing = await oai({ verb: 'GetRecord', identifier: `${prefix}/repositories/${f.repo}/resources/999999`, metadataPrefix: 'oai_dcterms' });
    assert.equal(errorCode(missing.text), 'idDoesNotExist');
    const hidden = await oai({ verb: 'GetRecord', identifier: `${prefix}${unpublishedUri}`, metadataPrefix: 'oai_dcterms' });
    assert.equal(errorCode(hidden.text), 'idDoesNotExist');
    const none = await oai({ verb: 'ListRecords', metadataPrefix: 'oai_dcterms', from: '2999-01-01' });
    assert.equal(errorCode(none.text), 'noRecordsMatch');
    const noPrefix = await oai({ verb: 'ListRecords' });
    assert.equal(errorCode(noPrefix.text), 'badArgument');
  });

  it('serves GetRecord in every format, valid with the format schemas, and the deleted record as deleted', async () => {
    const identifier = `${prefix}/repositories/${f.repo}/resources/${f.resource}`;
    for (const metadataPrefix of [...FORMATS, 'oai_ead']) {
      const res = await oai({ verb: 'GetRecord', identifier, metadataPrefix });
      assert.equal(res.status, 200);
      assertValid(res.text, WITH_METADATA);
      assert.equal(errorCode(res.text), '');
      assert.match(res.text, /Marie Curie papers/);
      assert.doesNotMatch(res.text, /NOT-FOR-PUBLIC|Secret Donor/, 'unpublished notes and agents stay out');
    }
    const ead = (await oai({ verb: 'GetRecord', identifier, metadataPrefix: 'oai_ead' })).text;
    assert.equal(xpath(ead, `string(//${el('archdesc')}/${el('did')}/${el('unittitle')})`), 'Marie Curie papers');
    assert.equal(xpath(ead, `count(//${el('dsc')}//${el('c')})`), '2', 'the published components, not the draft or what is under it');
    const component = await oai({ verb: 'GetRecord', identifier: `${prefix}/repositories/${f.repo}/archival_objects/${f.series}`, metadataPrefix: 'oai_ead' });
    assert.equal(errorCode(component.text), 'cannotDisseminateFormat', 'finding aids are of resources only');
    const dc = (await oai({ verb: 'GetRecord', identifier, metadataPrefix: 'oai_dc' })).text;
    assert.equal(xpath(dc, `string(//*[local-name()="dc"]/*[local-name()="identifier"])`), 'MS.0042');
    assert.equal(xpath(dc, `string(//${el('header')}/${el('setSpec')}[1])`), 'collection');
    const gone = await oai({ verb: 'GetRecord', identifier: `${prefix}${deletedUri}`, metadataPrefix: 'oai_dc' });
    assertValid(gone.text, WITH_METADATA);
    assert.equal(xpath(gone.text, `string(//${el('header')}/@status)`), 'deleted');
    for (const hidden of [unpublishedUri, underUnpublishedUri, hiddenRepoResource, `/repositories/${f.repo}/resources/${f.suppressedResource}`, `/repositories/${f.repo}/digital_objects/${f.digitalObject}`]) {
      const res = await oai({ verb: 'GetRecord', identifier: `${prefix}${hidden}`, metadataPrefix: 'oai_dc' });
      assert.equal(errorCode(res.text), 'idDoesNotExist', hidden);
    }
  });

  it('restricts lists by set and by from/until', async () => {
    const series = await harvest('ListIdentifiers', { metadataPrefix: 'oai_dc', set: 'series' });
    assert.deepEqual(series.seen, [`${prefix}/repositories/${f.repo}/archival_objects/${f.series}`]);
    const collections = await harvest('ListIdentifiers', { metadataPrefix: 'oai_mods', set: 'collection' });
    assert.equal(collections.seen.length, 2);
    const repoSet = await harvest('ListIdentifiers', { metadataPrefix: 'oai_dc', set: `repository:${f.repo}` });
    assert.ok(repoSet.seen.length > BULK);
    const future = await oai({ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2999-01-01' });
    assert.equal(errorCode(future.text), 'noRecordsMatch');
    assertValid(future.text, 'OAI-PMH.xsd');
    const past = await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', until: '1999-12-31T23:59:59Z' });
    assert.equal(errorCode(past.text), 'noRecordsMatch');
    const today = new Date().toISOString().slice(0, 10);
    const window = await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', from: '2000-01-01', until: '2999-01-01', set: 'series' });
    assert.equal(xpath(window.text, `count(//${el('header')}[not(@status)])`), '1', today);
    const unknownSet = await oai({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: 'no-such-set' });
    assert.equal(errorCode(unknownSet.text), 'noRecordsMatch');
  });

  it('answers protocol errors in OAI XML with HTTP 200, never a server error', async () => {
    const cases: Array<[Record<string, string> | string, string]> = [
      [{}, 'badVerb'],
      [{ verb: 'Dance' }, 'badVerb'],
      ['verb=Identify&verb=Identify', 'badVerb'],
      [{ verb: 'Identify', extra: 'x' }, 'badArgument'],
      [{ verb: 'ListRecords' }, 'badArgument'],
      [{ verb: 'GetRecord', metadataPrefix: 'oai_dc' }, 'badArgument'],
      ['verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc', 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2020-13-45' }, 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2020-01-01', until: '2020-01-02T00:00:00Z' }, 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2021-01-01', until: '2020-01-01' }, 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', resumptionToken: 'abc' }, 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_xyz' }, 'cannotDisseminateFormat'],
      [{ verb: 'GetRecord', metadataPrefix: 'oai_bogus', identifier: `${prefix}/repositories/${f.repo}/resources/${f.resource}` }, 'cannotDisseminateFormat'],
      [{ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier: 'oai:elsewhere:1' }, 'idDoesNotExist'],
      [{ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier: `${prefix}/repositories/${f.repo}/resources/999999` }, 'idDoesNotExist'],
      [{ verb: 'ListMetadataFormats', identifier: `${prefix}/repositories/${f.repo}/archival_objects/999999` }, 'idDoesNotExist'],
      [{ verb: 'ListRecords', resumptionToken: 'not-a-token' }, 'badResumptionToken'],
      [{ verb: 'ListIdentifiers', resumptionToken: Buffer.from('{"v":1}').toString('base64url') }, 'badResumptionToken'],
      [{ verb: 'ListSets', resumptionToken: 'x' }, 'badResumptionToken'],
    ];
    for (const [query, code] of cases) {
      const res = await t.http.get(typeof query === 'string' ? `/oai?${query}` : '/oai').query(typeof query === 'string' ? {} : query);
      assert.equal(res.status, 200, JSON.stringify(query));
      assertValid(res.text, 'OAI-PMH.xsd');
      assert.equal(errorCode(res.text), code, `${JSON.stringify(query)}: ${res.text}`);
      if (code === 'badVerb' || code === 'badArgument') assert.equal(xpath(res.text, `count(//${el('request')}/@*)`), '0', 'no arguments echoed');
    }
  });

  it('takes POST with form parameters as GET', async () => {
    const res = await t.http.post('/oai').type('form').send({ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier: `${prefix}/repositories/${f.repo}/resources/${f.resource}` });
    assert.equal(res.status, 200);
    assertValid(res.text, WITH_METADATA);
    assert.match(res.text, /Marie Curie papers/);
  });

  it('keeps its configuration in the store: GET /oai_config, POST by administrators only, checked', async () => {
    const got = await t.http.get('/oai_config');
    assert.equal(got.status, 200);
    assert.equal(got.body.length, 1);
    assert.equal(got.body[0].oai_record_prefix, 'oai:archivesspace');
    const { viewer } = await viewerAndNobody(t, f.repo, 'oai');
    const config = {
      oai_repository_name: 'Curie Archives OAI', oai_record_prefix: 'oai:curie.example.org', oai_admin_email: 'oai@curie.example.org',
      repo_set_codes: JSON.stringify(['FMT']), repo_set_name: 'curie_repos', repo_set_description: 'The Curie repository',
    };
    assert.equal((await t.http.post('/oai_config').set({ 'X-ArchivesSpace-Session': viewer }).send(config)).status, 403);
    const bad = await t.http.post('/oai_config').set(admin).send({ ...config, oai_admin_email: 'not-an-email' });
    assert.deepEqual([bad.status, bad.body], [400, { error: { oai_admin_email: ['must be a valid email address'] } }]);
    const noName = await t.http.post('/oai_config').set(admin).send({ ...config, repo_set_name: undefined });
    assert.deepEqual(noName.body, { error: { repo_set_name: ['repo_set_name_required'] } });
    const missing = await t.http.post('/oai_config').set(admin).send({ oai_repository_name: 'x' });
    assert.equal(missing.status, 400);
    assert.ok(missing.body.error.oai_record_prefix);
    const saved = await t.http.post('/oai_config').set(admin).send(config);
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.status, 'Updated');
    const again = await t.http.post('/oai_config/1').set(admin).send({ ...config, oai_repository_name: 'Curie OAI' });
    assert.equal(again.status, 200, again.text);
    assert.equal((await t.http.get('/oai_config')).body[0].oai_repository_name, 'Curie OAI');
    const identify = await oai({ verb: 'Identify' });
    assert.equal(xpath(identify.text, `string(//${el('repositoryName')})`), 'Curie OAI');
    assert.equal(xpath(identify.text, `string(//${el('adminEmail')})`), 'oai@curie.example.org');
    const sets = await oai({ verb: 'ListSets' });
    assertValid(sets.text, WITH_METADATA);
    assert.equal(xpath(sets.text, `string(//${el('set')}[${el('setSpec')}="curie_repos"]/${el('setName')})`), 'curie_repos');
    const inSet = await harvest('ListIdentifiers', { metadataPrefix: 'oai_dc', set: 'curie_repos' });
    assert.ok(inSet.seen.every((id) => id.startsWith(`oai:curie.example.org//repositories/${f.repo}/`)));
    assert.ok(inSet.seen.length > BULK);
    // Back to the defaults for the other tests.
    await t.http.post('/oai_config').set(admin).send({ oai_repository_name: 'ArchivesSpace OAI Provider', oai_record_prefix: 'oai:archivesspace', oai_admin_email: 'admin@example.com' }).expect(200);
  });

  it('serves the sample page', async () => {
    const res = await t.http.get('/oai_sample');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^text\/html/);
    assert.match(res.text, /verb=Identify/);
    assert.match(res.text, /oai_marc/);
  });
});
