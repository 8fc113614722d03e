import assert from 'node:assert/strict';
import supertest from 'supertest';
import { endpointTable } from '../../src/http/table';
import type { Endpoint } from '../../src/records/endpoint';
import { createApp } from '../../src/http/app';
import { DEFAULT_CONTENT_SECURITY_POLICY } from '../../src/http/security';
import { log } from '../../src/log';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What an error body must never show: stack frames, SQL, driver error codes. */
const LEAKS = [/\bat .+\.[jt]s:\d+/, /\bselect\s.+\sfrom\s/i, /\binsert into\b/i, /\bupdate\s+`?\w+`?\s+set\b/i, /\bSQLITE_[A-Z]+/, /\bER_[A-Z_]+/, /knex/i, /node_modules/, /Error:/];

describe(`security (${STORE})`, () => {
  describe('login attempts', () => {
    let t: TestApp;
    const MAX = 3;
    const users = ['alice', 'bob', 'carol', 'dave'];

    before(async () => {
      // TRUST_PROXY lets the test be several clients through X-Forwarded-For.
      t = await startTestApp({ LOGIN_MAX_FAILURES: String(MAX), LOGIN_FAILURE_WINDOW_SECONDS: '60', TRUST_PROXY: 'true' });
      const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
      for (const name of users) {
        const res = await t.http.post('/users').query({ password: `${name}-pw` }).set(H).send({ username: name, name });
        assert.equal(res.status, 200, res.text);
      }
    });
    after(async () => t.close());

    let client = 0;
    /** A client address of its own for every use, so that tests do not share counts. */
    const newClient = () => `192.0.2.${++client}`;
    const login = (user: string, password: string, from: string) =>
      t.http.post(`/users/${user}/login`).query({ password }).set('X-Forwarded-For', from);

    it(`answers 429 with Retry-After after ${MAX} failures for one username, from any address, even with the right password`, async () => {
      for (let i = 0; i < MAX; i++) assert.equal((await login('alice', 'wrong', newClient())).status, 403);
      const blocked = await login('alice', 'alice-pw', newClient());
      assert.equal(blocked.status, 429);
      assert.match(blocked.headers['content-type'], /^application\/json/);
      const retryAfter = Number(blocked.headers['retry-after']);
      assert.ok(retryAfter >= 58 && retryAfter <= 60, `Retry-After ${blocked.headers['retry-after']}`);
      assert.deepEqual(blocked.body, { error: `Too many failed login attempts; try again in ${retryAfter} seconds` });
      assert.equal((await login('ALICE ', 'alice-pw', newClient())).status, 429, 'the username is counted as normalised');
      assert.equal((await login('bob', 'bob-pw', newClient())).status, 200, 'other usernames are not affected');
    });

    it(`answers 429 after ${MAX} failures from one address, whatever the usernames`, async () => {
      const from = newClient();
      for (const user of ['nobody1', 'nobody2', 'bob']) assert.equal((await login(user, 'wrong', from)).status, 403);
      assert.equal((await login('carol', 'carol-pw', from)).status, 429);
      assert.equal((await login('carol', 'carol-pw', newClient())).status, 200, 'other addresses are not affected');
    });

    it('does not count successful logins', async () => {
      const from = newClient();
      for (let i = 0; i < MAX - 1; i++) assert.equal((await login('dave', 'wrong', from)).status, 403);
      for (let i = 0; i < 5; i++) assert.equal((await login('dave', 'dave-pw', from)).status, 200);
      assert.equal((await login('dave', 'wrong', from)).status, 403, `the ${MAX}th failure is still answered`);
      assert.equal((await login('dave', 'dave-pw', from)).status, 429);
    });

    it('counts parallel attempts: no more than the limit get to try a password', async () => {
      const from = newClient();
      const answers = await Promise.all(Array.from({ length: 10 }, () => login('nobody3', 'wrong', from)));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [...Array(MAX).fill(403), ...Array(10 - MAX).fill(429)]);
    });

    it('refuses a malformed username with 400 without counting it', async () => {
      const from = newClient();
      for (let i = 0; i < MAX + 2; i++) assert.equal((await login('a%21b', 'wrong', from)).status, 400);
      assert.equal((await login('bob', 'bob-pw', from)).status, 200);
    });
  });

  describe('login attempts after the window', () => {
    it('are answered again once the window has passed', async () => {
      const t = await startTestApp({ LOGIN_MAX_FAILURES: '2', LOGIN_FAILURE_WINDOW_SECONDS: '2' });
      try {
        const login = (password: string) => t.http.post('/users/admin/login').query({ password });
        for (let i = 0; i < 2; i++) assert.equal((await login('wrong')).status, 403);
        const blocked = await login('admin');
        assert.equal(blocked.status, 429);
        assert.ok(['1', '2'].includes(blocked.headers['retry-after']), blocked.headers['retry-after']);
        await sleep(Number(blocked.headers['retry-after']) * 1000 + 100);
        assert.equal((await login('admin')).status, 200);
      } finally {
        await t.close();
      }
    });
  });

  describe('client address', () => {
    it('ignores X-Forwarded-For unless TRUST_PROXY is set: every failure counts for the one socket address', async () => {
      const t = await startTestApp({ LOGIN_MAX_FAILURES: '2' });
      try {
        for (const from of ['198.51.100.1', '198.51.100.2']) {
          assert.equal((await t.http.post('/users/nobody/login').query({ password: 'x' }).set('X-Forwarded-For', from)).status, 403);
        }
        const third = await t.http.post('/users/admin/login').query({ password: 'admin' }).set('X-Forwarded-For', '198.51.100.3');
        assert.equal(third.status, 429);
      } finally {
        await t.close();
      }
    });
  });

  describe('headers and error bodies', () => {
    let t: TestApp;
    let H: Record<string, string>;
    let repo: number;

    before(async () => {
      t = await startTestApp({ BODY_LIMIT_BYTES: '1000', MAX_URL_LENGTH: '500', LOGIN_MAX_FAILURES: '1' });
      H = { 'X-ArchivesSpace-Session': await t.adminToken() };
      repo = await createRepository(t, 'SEC');
    });
    after(async () => t.close());

    const JSON_API_HEADERS = {
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'content-security-policy': DEFAULT_CONTENT_SECURITY_POLICY,
      'cache-control': 'no-store',
    };

    function assertHeaders(res: supertest.Response, label: string) {
      for (const [name, value] of Object.entries(JSON_API_HEADERS)) assert.equal(res.headers[name], value, `${label}: ${name}`);
      assert.equal(res.headers['x-powered-by'], undefined, `${label}: x-powered-by`);
    }

    it('sends the security headers on every answer: success, every error status, text and anonymous', async () => {
      const answers: Array<[string, supertest.Response, number]> = [
        ['record listing', await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1 }).set(H), 200],
        ['login', await t.http.post('/users/admin/login').query({ password: 'admin' }), 200],
        ['version text', await t.http.get('/version'), 200],
        ['bad parameter', await t.http.get(`/repositories/${repo}/accessions`).query({ page: 0 }).set(H), 400],
        ['no permission', await t.http.post(`/repositories/${repo}/accessions`).send({ id_0: 'X' }), 403],
        ['unknown route', await t.http.get('/nowhere'), 404],
        ['stale lock', await t.http.post(`/repositories/${repo}`).set(H).send({ repo_code: 'SEC', name: 'x', lock_version: 99 }), 409],
        ['unknown session', await t.http.get('/').set('X-ArchivesSpace-Session', 'nope'), 412],
        ['body too large', await t.http.post('/repositories').set(H).type('json').send('x'.repeat(1001)), 413],
        ['URL too long', await t.http.get(`/?${'a'.repeat(500)}`), 414],
        ['failed login', await t.http.post('/users/nobody/login').query({ password: 'x' }), 403],
        ['throttled login', await t.http.post('/users/nobody/login').query({ password: 'x' }), 429],
      ];
      for (const [label, res, status] of answers) {
        assert.equal(res.status, status, `${label}: ${res.text}`);
        assertHeaders(res, label);
      }
    });

    it('lets a row of the endpoint table replace the Content-Security-Policy (a page such as API docs)', async () => {
      const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'";
      const page: Endpoint = {
        method: 'get', path: '/page-for-test', permission: null, summary: 'A page', contentSecurityPolicy: PAGE_POLICY,
        handle: async () => ({ text: '<!doctype html><title>x</title>', contentType: 'text/html' }),
      };
      const app = createApp(t.services, [page, ...endpointTable(t.services.registry)]);
      const res = await supertest(app).get('/page-for-test');
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-security-policy'], PAGE_POLICY);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const other = await supertest(app).get('/version');
      assert.equal(other.headers['content-security-policy'], DEFAULT_CONTENT_SECURITY_POLICY);
    });

    it('never shows a stack trace or SQL in an error body, also for an internal error', async () => {
      const accessions = `/repositories/${repo}/accessions`;
      const answers = [
        await t.http.post(accessions).set(H).type('json').send('{"id_0": '),
        await t.http.post(accessions).set(H).type('json').send(`{"id_0":"x","a":${'['.repeat(200)}${']'.repeat(200)}}`),
        await t.http.post(accessions).set(H).send({ id_0: 5, title: ['x'], dates: 'never' }),
        await t.http.get(accessions).query({ page: 1, sort_field: "title'; --" }).set(H),
        await t.http.get(accessions).query({ page: 'x', id_set: 'y', modified_since: -1 }).set(H),
        await t.http.get(`${accessions}/99999`).set(H),
        await t.http.get(`${accessions}/%zz`).set(H),
        await t.http.get(`/repositories/${repo}/find_by_id/resources`).query({ 'identifier[]': '["x"' }).set(H),
        await t.http.post('/config/enumerations/migration').set(H).send({ enum_uri: 1 }),
        await t.http.post(`/repositories/${repo}/top_containers/bulk/barcodes`).set(H).send({ '/repositories/1/top_containers/1': 7 }),
      ];
      // An internal error: a table gone from under the app. The answer is a bare 500.
      await t.services.db.knex.schema.dropTable('lookup_keys');
      const logged: unknown[] = [];
      const logError = log.error;
      log.error = (_msg, fields) => void logged.push(fields);
      let internal: supertest.Response;
      try {
        internal = await t.http.get(`/repositories/${repo}/find_by_id/top_containers`).query({ 'barcode[]': 'b' }).set(H);
      } finally {
        log.error = logError;
      }
      assert.deepEqual([internal.status, internal.body], [500, { error: 'Internal server error' }]);
      assert.match(JSON.stringify(logged), /lookup_keys/, 'the cause goes to the log instead');
      assertHeaders(internal, 'internal error');
      for (const res of [...answers, internal]) {
        assert.ok(res.status >= 400, res.text);
        assert.ok(res.body && 'error' in res.body, res.text);
        for (const leak of LEAKS) assert.doesNotMatch(res.text, leak, `${res.status} ${res.text}`);
      }
    });
  });
});
