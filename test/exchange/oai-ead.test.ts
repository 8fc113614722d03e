import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { post } from './formats-fixture';
import { assertValid } from './xmllint';

const RESOURCES = 1200;

describe(`OAI-PMH oai_ead: a harvest of ${RESOURCES} finding aids (${STORE})`, function () {
  this.timeout(600_000);
  let t: TestApp;
  let repo: number;
  let deleted: string;
  const uris: string[] = [];

  before(async () => {
    t = await startTestApp({ OAI_PAGE_SIZE: '100' });
    const token = await t.adminToken();
    repo = (await post(t, token, '/repositories', { repo_code: 'EADS', name: 'Finding aids' })).id;
    for (let i = 0; i <= RESOURCES; i++) {
      const r = await post(t, token, `/repositories/${repo}/resources`, {
        title: `Papers ${i}`, id_0: `P${i}`, level: 'collection', publish: true, finding_aid_language: 'eng', finding_aid_script: 'Latn',
        dates: [{ date_type: 'single', label: 'creation', begin: String(1800 + (i % 200)) }],
        extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
        lang_materials: [{ language_and_script: { language: 'eng' } }],
      });
      uris.push(r.uri);
    }
    deleted = uris.pop()!;
    assert.equal((await t.http.delete(deleted).set({ 'X-ArchivesSpace-Session': token })).status, 200);
  });
  after(async () => t.close());

  it('walks every finding aid once, one a page, valid EAD inside OAI-PMH, and reports the deleted one', async () => {
    const seen: string[] = [];
    const gone: string[] = [];
    let res = await t.http.get('/oai').query({ verb: 'ListRecords', metadataPrefix: 'oai_ead' });
    for (let page = 0; ; page++) {
      assert.equal(res.status, 200);
      // Every page is checked to be a record and a token; every 100th against the schemas.
      if (page % 100 === 0) assertValid(res.text, 'oai-pmh-all.xsd');
      // The rest read with patterns: 1,200 pages through xmllint would take most of the test's time.
      assert.doesNotMatch(res.text, /<error /);
      assert.equal(res.text.split('<record>').length - 1, 1, 'one finding aid a page');
      const header = /<header( status="deleted")?><identifier>([^<]+)<\/identifier>/.exec(res.text)!;
      (header[1] ? gone : seen).push(header[2]);
      const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(res.text)?.[1];
      if (!token) break;
      res = await t.http.get('/oai').query({ verb: 'ListRecords', resumptionToken: token });
    }
    assert.equal(seen.length, RESOURCES);
    assert.equal(new Set(seen).size, RESOURCES);
    assert.deepEqual(seen, uris.map((u) => `oai:archivesspace/${u}`));
    assert.deepEqual(gone, [`oai:archivesspace/${deleted}`]);
  });
});
