import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';

/** GET /vocabularies/:id/terms and GET /terms?q=: the distinct terms of the subjects. */
describe(`terms (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(() => t?.close());

  const subject = (terms: Array<[string, string]>, vocabulary = '/vocabularies/1') => t.http.post('/subjects').set(H)
    .send({ source: 'local', vocabulary, terms: terms.map(([term, term_type]) => ({ term, term_type, vocabulary })) }).expect(200);

  it("lists a vocabulary's terms once each, and the terms starting with a prefix", async () => {
    const other = (await t.http.post('/vocabularies').set(H).send({ name: 'Other', ref_id: 'other' }).expect(200)).body.uri;
    await subject([['Railroads', 'topical'], ['Ohio', 'geographic']]);
    await subject([['Railroads', 'topical'], ['History', 'topical']]);
    await subject([['Rail yards', 'topical']], other);
    const terms = (await t.http.get('/vocabularies/1/terms')).body;
    assert.deepEqual(terms.map((x: any) => [x.term, x.term_type]), [['History', 'topical'], ['Ohio', 'geographic'], ['Railroads', 'topical']]);
    assert.deepEqual(terms[0], { jsonmodel_type: 'term', term: 'History', term_type: 'topical', vocabulary: '/vocabularies/1' });
    assert.deepEqual((await t.http.get(`${other}/terms`)).body.map((x: any) => x.term), ['Rail yards']);
    const found = (await t.http.get('/terms').query({ q: 'rAIL%' })).body;
    assert.deepEqual([found.total, found.results.map((x: any) => x.term)], [2, ['Rail yards', 'Railroads']]);
    // A new subject is seen at once.
    await subject([['Railway stations', 'topical']]);
    assert.equal((await t.http.get('/terms').query({ q: 'rail' })).body.total, 3);
    assert.equal((await t.http.get('/vocabularies/999/terms')).status, 404);
    const missing = await t.http.get('/terms');
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, { error: { q: ['Parameter required but no value provided'] } });
  });
});
