import assert from 'node:assert/strict';
import http from 'node:http';
import supertest from 'supertest';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

/**
 * A request reaches the stages as node:http made it: giving its request and response Express's
 * prototypes cost about a quarter of a GET's CPU (issue 51), so they get them only where an
 * answer uses Express's helpers (text, streams, errors, extra headers, the client's address).
 * This fails when a JSON answer starts paying for them again, and checks that the answers
 * which do use them look as they did.
 */
describe(`request and response objects (${STORE})`, () => {
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  let client: ReturnType<typeof supertest>;
  let server: http.Server;
  /** For each answer: whether its request and response kept node:http's prototypes. */
  const kept: Array<{ url: string; plain: boolean }> = [];

  before(async () => {
    t = await startTestApp({ TRUST_PROXY: 'true' });
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t);
    server = http.createServer((req, res) => {
      res.on('finish', () => kept.push({
        url: `${req.method} ${req.url}`,
        plain: Object.getPrototypeOf(req) === http.IncomingMessage.prototype && Object.getPrototypeOf(res) === http.ServerResponse.prototype,
      }));
      (t.app as unknown as http.RequestListener)(req, res);
    });
    client = supertest(server);
  });
  after(async () => {
    server?.close();
    await t?.close();
  });

  it('answers JSON (reads with resolve[], lists, creates, updates) with node:http objects as they are', async () => {
    kept.length = 0;
    const subject = (await client.post('/subjects').set(H).send(sampleRecord('subject', repo)).expect(200)).body;
    const made = (await client.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), subjects: [{ ref: subject.uri }] }).expect(200)).body;
    const current = (await client.get(`${made.uri}?resolve[]=subjects`).set(H).expect(200)).body;
    assert.equal(current.subjects[0]._resolved.uri, subject.uri);
    await client.post(made.uri).set(H).send({ ...current, title: 'Changed' }).expect(200);
    const page = (await client.get(`/repositories/${repo}/accessions?page=1&page_size=10`).set(H).expect(200)).body;
    assert.equal(page.results[0].title, 'Changed');
    assert.equal(kept.length, 5);
    assert.deepEqual(kept.filter((k) => !k.plain), []);
  });

  it('answers text, errors and HEAD as Express did: content types with their charset, the usual error shape', async () => {
    kept.length = 0;
    const version = await client.get('/version').expect(200);
    assert.equal(version.headers['content-type'], 'text/plain; charset=utf-8');
    assert.ok(version.text.length > 0);
    const missing = await client.get(`/repositories/${repo}/accessions/999999`).set(H).expect(404);
    assert.equal(missing.headers['content-type'], 'application/json; charset=utf-8');
    assert.ok(missing.body.error);
    const noRoute = await client.get('/no/such/route').set(H).expect(404);
    assert.equal(noRoute.headers['content-type'], 'application/json; charset=utf-8');
    const badSession = await client.get(`/repositories/${repo}/accessions?page=1`).set('X-ArchivesSpace-Session', 'not-a-session').expect(412);
    assert.equal(badSession.body.code, 'SESSION_GONE');
    const head = await client.head(`/repositories/${repo}`).set(H).expect(200);
    assert.equal(head.headers['content-type'], 'application/json; charset=utf-8');
    assert.ok(Number(head.headers['content-length']) > 0);
    assert.equal(head.text, undefined);
    // Every answer carries the security headers, Express's helpers or not.
    for (const res of [version, missing, noRoute, badSession, head]) assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.deepEqual(kept.map((k) => k.plain), [false, false, false, false, true]);
  });

  it('reads the path and the query as Express did: collapsed slashes, encoded parameters, arrays, an absolute-form target', async () => {
    const made = (await client.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), title: 'Path and query' }).expect(200)).body;
    await client.get(`/repositories/${repo}//accessions/${made.id}`).set(H).expect(200);
    const listed = (await client.get(`/repositories/${repo}/accessions?id_set[]=${made.id}&id_set%5B%5D=999999`).set(H).expect(200)).body;
    assert.deepEqual(listed.map((r: { uri: string }) => r.uri), [made.uri]);
    const absolute = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const port = (server.listening ? server : server.listen(0)).address() as { port: number };
      const req = http.request({ port: port.port, path: `http://archive.example${made.uri}`, headers: H }, (res) => {
        let body = '';
        res.on('data', (c) => { body += c; }).on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject).end();
    });
    assert.equal(absolute.status, 200);
    assert.equal(JSON.parse(absolute.body).uri, made.uri);
    // A malformed escape in a path parameter is the client's error.
    await client.get(`/repositories/${repo}/accessions/%E0%A4%A`).set(H).expect(400);
  });
});
