import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config';
import { answerClientErrors } from '../../src/http/limits';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/** Every limit of the "Limits" section of docs/security-and-guarantees.md, just inside it and just over it. */
describe(`request limits (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  const BODY_LIMIT = 2048;
  const URL_LIMIT = 2000;
  const JSON_DEPTH = 6;

  before(async () => {
    t = await startTestApp({ BODY_LIMIT_BYTES: String(BODY_LIMIT), MAX_URL_LENGTH: String(URL_LIMIT), MAX_JSON_DEPTH: String(JSON_DEPTH) });
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'LIMITS');
  });
  after(async () => t.close());

  const accessions = () => `/repositories/${repo}/accessions`;
  const count = async () => (await t.services.db.knex('records').count({ n: '*' }).first())!.n;

  it('takes a body at the size limit and answers one byte more with 413 in the usual shape', async () => {
    const bodyOf = (size: number, id: string) => {
      const shell = JSON.stringify({ id_0: id, content_description: '' });
      return JSON.stringify({ id_0: id, content_description: 'x'.repeat(size - shell.length) });
    };
    const atLimit = bodyOf(BODY_LIMIT, 'AT-LIMIT');
    assert.equal(Buffer.byteLength(atLimit), BODY_LIMIT);
    const ok = await t.http.post(accessions()).set(H).type('json').send(atLimit);
    assert.equal(ok.status, 200, ok.text);

    const before = await count();
    const over = await t.http.post(accessions()).set(H).type('json').send(bodyOf(BODY_LIMIT + 1, 'OVER-LIMIT'));
    assert.equal(over.status, 413);
    assert.match(over.headers['content-type'], /^application\/json/);
    assert.equal(over.text, `{"error":"Request body is larger than the limit of ${BODY_LIMIT} bytes"}\n`);
    // Also without a session, and on a route that takes no body at all.
    const anonymous = await t.http.get('/version').type('json').send('x'.repeat(BODY_LIMIT + 1));
    assert.equal(anonymous.status, 413);
    assert.equal(await count(), before);
  });

  it('serves a URL at the length limit and answers a longer one with 414, before the session is looked up', async () => {
    const url = (length: number) => {
      const base = `${accessions()}?page=1&pad=`;
      return base + 'a'.repeat(length - base.length);
    };
    assert.equal(url(URL_LIMIT).length, URL_LIMIT);
    const ok = await t.http.get(url(URL_LIMIT)).set(H);
    assert.equal(ok.status, 200, ok.text);
    const long = await t.http.get(url(URL_LIMIT + 1)).set(H);
    assert.deepEqual([long.status, long.text], [414, `{"error":"Request URL is longer than the limit of ${URL_LIMIT} characters"}\n`]);
    const unknownSession = await t.http.get(url(URL_LIMIT + 1)).set('X-ArchivesSpace-Session', 'no-such-session');
    assert.equal(unknownSession.status, 414);
  });

  it("answers headers over Node's own limit with 431 in JSON instead of an empty answer", async () => {
    const server = http.createServer(t.app);
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const raw = (request: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
          let text = '';
          socket.on('data', (chunk) => (text += chunk));
          socket.on('end', () => resolve(text));
          socket.on('error', reject);
        });
      const big = await raw(`GET /version HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(http.maxHeaderSize + 1)}\r\n\r\n`);
      assert.match(big, /^HTTP\/1\.1 431 /);
      assert.match(big, /Content-Type: application\/json/);
      assert.ok(big.endsWith(`{"error":"Request headers are larger than the limit of ${http.maxHeaderSize} bytes"}\n`), big);
      const garbled = await raw('NOT A REQUEST\r\n\r\n');
      assert.match(garbled, /^HTTP\/1\.1 400 /);
      assert.ok(garbled.endsWith('{"error":"Malformed HTTP request"}\n'), garbled);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('takes JSON nested to the depth limit and refuses deeper JSON with 400, also in JSON parameters', async () => {
    // Unknown properties are dropped after parsing, so they carry the nesting without changing the record.
    const nested = (depth: number) => `${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`;
    const ok = await t.http.post(accessions()).set(H).type('json').send(`{"id_0":"DEEP-OK","junk":${nested(JSON_DEPTH)}}`);
    assert.equal(ok.status, 200, ok.text);
    const deep = await t.http.post(accessions()).set(H).type('json').send(`{"id_0":"DEEP-NO","junk":${nested(JSON_DEPTH + 1)}}`);
    assert.deepEqual([deep.status, deep.body], [400, { error: `Had some trouble parsing your request: the JSON is nested more than ${JSON_DEPTH} levels deep` }]);
    // Brackets inside strings are text, not nesting.
    const text = await t.http.post(accessions()).set(H).type('json').send(JSON.stringify({ id_0: 'BRACKETS', title: '[[[[[[[[[[{{{{{{{{{{"\\' }));
    assert.equal(text.status, 200, text.text);
    const params = await t.http.post('/search').set(H).type('json').send(`{"page":1,"filter":${'{"a":'.repeat(JSON_DEPTH)}1${'}'.repeat(JSON_DEPTH)}}`);
    assert.equal(params.status, 400);
    assert.match(params.body.error, /nested more than 6 levels/);
  });

  it('resolves resolve[] paths to the depth limit and refuses deeper ones with 400', async () => {
    const created = await t.http.post(accessions()).set(H).send({ id_0: 'RESOLVE' });
    const path = (levels: number) => Array.from({ length: levels }, (_, i) => (i === 0 ? 'repository' : `level${i}`)).join('::');
    const limit = t.config.maxResolveDepth;
    assert.equal(limit, 10);
    const ok = await t.http.get(created.body.uri).query({ 'resolve[]': path(limit) }).set(H);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.repository._resolved.uri, `/repositories/${repo}`);
    const expected = { error: { resolve: [`Failed validation -- must not be more than ${limit} levels deep but given: ${path(limit + 1)}`] } };
    const deep = await t.http.get(created.body.uri).query({ 'resolve[]': path(limit + 1) }).set(H);
    assert.deepEqual([deep.status, deep.body], [400, expected]);
    const listing = await t.http.get(accessions()).query({ page: 1, 'resolve[]': path(limit + 1) }).set(H);
    assert.deepEqual([listing.status, listing.body], [400, expected]);
  });

  it('reduces a page_size above MAX_PAGE_SIZE to it, in listings and searches alike (the reference wins), and refuses more ids than it with 400', async () => {
    const max = t.config.maxPageSize;
    assert.equal(max, 250);
    const existing = (await t.http.get(accessions()).query({ all_ids: true }).set(H)).body.length;
    for (let i = existing; i < max + 1; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, j) =>
        t.http.post(accessions()).set(H).send({ id_0: 'CAP', id_1: String(i + j), title: `Capped ${i + j}`, accession_date: '2024-01-01' })));
    }
    const listed = await t.http.get(accessions()).query({ page: 1, page_size: 1000 }).set(H);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.results.length, max);
    assert.equal(listed.body.last_page, Math.ceil(listed.body.total / max));
    await t.services.search!.indexer.drain();
    const searched = await t.http.get(`${accessions().replace(/\/accessions$/, '')}/search`).query({ page: 1, page_size: 1000 }).set(H);
    assert.equal(searched.status, 200, searched.text);
    assert.equal(searched.body.page_size, max);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');
    assert.equal((await t.http.get(accessions()).query({ id_set: ids(max) }).set(H)).status, 200);
    const many = await t.http.get(accessions()).query({ id_set: ids(max + 1) }).set(H);
    assert.deepEqual([many.status, many.body], [400, { error: { id_set: [`Failed validation -- must not list more than ${max} ids but given: ${max + 1}`] } }]);
  });

  it('takes integers up to 2^53 - 1 and refuses larger ones with 400 instead of rounding them', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const page = await t.http.get(accessions()).query({ page: String(max) }).set(H);
    assert.deepEqual([page.status, page.body.this_page, page.body.results], [200, max, []]);
    const rule = `Failed validation -- must be between ${Number.MIN_SAFE_INTEGER} and ${max} but given:`;
    const over = await t.http.get(`${accessions()}?page=9007199254740993`).set(H);
    assert.deepEqual([over.status, over.body], [400, { error: { page: [`${rule} 9007199254740993`] } }]);
    const id = await t.http.get(`${accessions()}/99999999999999999999`).set(H);
    assert.deepEqual([id.status, id.body], [400, { error: { id: [`${rule} 99999999999999999999`] } }]);
    const set = await t.http.get(accessions()).query({ id_set: '1,99999999999999999999' }).set(H);
    assert.deepEqual([set.status, set.body], [400, { error: { id_set: [`${rule} 99999999999999999999`] } }]);
    assert.equal((await t.http.get(accessions()).query({ page: '' }).set(H)).status, 400, 'an empty page is no page');
  });

  it('refuses limits that make no sense at start-up', () => {
    assert.throws(() => loadConfig({ BODY_LIMIT_BYTES: '0' }), /BODY_LIMIT_BYTES must be between 1 and/);
    assert.throws(() => loadConfig({ MAX_RESOLVE_DEPTH: '26' }), /MAX_RESOLVE_DEPTH must be between 1 and 25, got 26/);
    assert.throws(() => loadConfig({ LOGIN_MAX_FAILURES: 'ten' }), /LOGIN_MAX_FAILURES must be an integer/);
    assert.throws(() => loadConfig({ HEAP_GROWTH_PERCENT: '-5' }), /HEAP_GROWTH_PERCENT must be between 0 and 1000, got -5/);
    assert.deepEqual([loadConfig({}).heapGrowthPercent, loadConfig({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent], [30, 0], "30 by default; 0 leaves V8's own choice");
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.bodyLimitBytes, defaults.maxUrlLength, defaults.maxJsonDepth, defaults.maxResolveDepth, defaults.loginMaxFailures, defaults.loginFailureWindowSeconds, defaults.trustProxy],
      [10 * 1024 * 1024, 8192, 100, 10, 10, 60, false],
    );
  });
});
