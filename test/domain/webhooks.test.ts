import assert from 'node:assert/strict';
import { sampleRecord } from '../fixtures';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';
import { type Receiver, startReceiver, until } from './receiver';

const SECRET = 'a-secret-of-enough-length';
const FAST = {
  WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_RETRY_MAX_DELAY_SECONDS: '1', WEBHOOK_TIMEOUT_MS: '2000',
};

describe(`webhooks (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let repo: number;
  let H: Record<string, string>;
  const receivers: Receiver[] = [];

  before(async () => {
    t = await startTestApp(FAST);
    repo = await createRepository(t, 'HOOK');
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
  });
  after(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });

  const receiver = async () => {
    const r = await startReceiver(SECRET);
    receivers.push(r);
    return r;
  };
  const subscribe = async (body: Record<string, unknown>) => {
    const res = await t.http.post('/webhooks/subscriptions').set(H).send({ secret: SECRET, ...body });
    assert.equal(res.status, 200, res.text);
    return res.body.id as number;
  };
  const unsubscribe = async (id: number) => assert.equal((await t.http.delete(`/webhooks/subscriptions/${id}`).set(H)).status, 200);
  const accession = async (title: string) => {
    const res = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ ...sampleRecord('accession', repo), title });
    assert.equal(res.status, 200, res.text);
    return res.body.uri as string;
  };
  const update = async (uri: string, title: string) => {
    const current = (await t.http.get(uri).set(H)).body;
    const res = await t.http.post(uri).set(H).send({ ...current, title });
    assert.equal(res.status, 200, res.text);
  };
  const deliveries = async (id: number) => (await t.http.get(`/webhooks/subscriptions/${id}/deliveries`).set(H).query({ page_size: 250 })).body;
  const eventsOf = (events: any[], uri: string) => events.filter((e) => e.uri === uri);

  describe('subscriptions', () => {
    it('creates, lists, reads, updates and deletes a subscription; the secret is never answered', async () => {
      const created = await t.http.post('/webhooks/subscriptions').set(H)
        .send({ url: 'http://127.0.0.1:9/hook', secret: SECRET, record_types: ['accession'], repositories: [`/repositories/${repo}`], kinds: ['create'] });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.status, 'Created');
      assert.equal(created.body.secret, undefined);
      const uri = created.body.uri;
      const got = (await t.http.get(uri).set(H)).body;
      assert.equal(got.url, 'http://127.0.0.1:9/hook');
      assert.equal(got.secret_set, true);
      assert.equal(got.secret, undefined);
      assert.deepEqual(got.record_types, ['accession']);
      assert.deepEqual(got.kinds, ['create']);
      assert.equal(got.status, 'active');
      assert.ok(!JSON.stringify((await t.http.get('/webhooks/subscriptions').set(H)).body).includes(SECRET));

      const stale = await t.http.post(uri).set(H).send({ lock_version: 5, enabled: false });
      assert.equal(stale.status, 409);
      const missing = await t.http.post(uri).set(H).send({ enabled: false });
      assert.equal(missing.status, 409);
      const updated = await t.http.post(uri).set(H).send({ lock_version: 0, enabled: false, kinds: null });
      assert.equal(updated.status, 200, updated.text);
      const after = (await t.http.get(uri).set(H)).body;
      assert.equal(after.enabled, false);
      assert.equal(after.kinds, null);
      assert.equal(after.lock_version, 1);

      assert.equal((await t.http.delete(uri).set(H)).status, 200);
      assert.equal((await t.http.get(uri).set(H)).status, 404);
      assert.equal((await t.http.delete(uri).set(H)).status, 404);
    });

    it('makes a secret when none is given, and answers it only when created', async () => {
      const created = await t.http.post('/webhooks/subscriptions').set(H).send({ url: 'https://example.org/hook' });
      assert.equal(created.status, 200, created.text);
      assert.match(created.body.secret, /^[0-9a-f]{48}$/);
      assert.equal((await t.http.get(created.body.uri).set(H)).body.secret, undefined);
      await unsubscribe(created.body.id);
    });

    it('refuses bad settings with 400 in the reference error shape', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'url'],
        [{ url: 'ftp://example.org/' }, 'url'],
        [{ url: 'not a url' }, 'url'],
        [{ url: 'http://user:pw@example.org/' }, 'url'],
        [{ url: 'http://example.org/', secret: 'short' }, 'secret'],
        [{ url: 'http://example.org/', record_types: ['no_such_type'] }, 'record_types'],
        [{ url: 'http://example.org/', record_types: [] }, 'record_types'],
        [{ url: 'http://example.org/', repositories: ['/repositories/99999'] }, 'repositories'],
        [{ url: 'http://example.org/', repositories: ['repo 2'] }, 'repositories'],
        [{ url: 'http://example.org/', kinds: ['publish'] }, 'kinds'],
        [{ url: 'http://example.org/', enabled: 'yes' }, 'enabled'],
        [{ url: 'http://example.org/', colour: 'blue' }, 'colour'],
      ];
      for (const [body, field] of cases) {
        const res = await t.http.post('/webhooks/subscriptions').set(H).send(body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.ok(Array.isArray(res.body.error[field]), `${JSON.stringify(body)}: ${res.text}`);
      }
      const notObject = await t.http.post('/webhooks/subscriptions').set(H).send([1]);
      assert.equal(notObject.status, 400);
      assert.equal((await t.http.get('/webhooks/subscriptions/abc').set(H)).status, 400);
      assert.equal((await t.http.get('/webhooks/subscriptions/99999').set(H)).status, 404);
    });

    it('refuses callers who are not administrators (403)', async () => {
      const user = await t.http.post('/users').query({ password: 'pw-hooks-1' }).send({ username: 'not-admin', name: 'N' });
      assert.equal(user.status, 200, user.text);
      const token = (await t.http.post('/users/not-admin/login').query({ password: 'pw-hooks-1' })).body.session;
      const N = { 'X-ArchivesSpace-Session': token };
      assert.equal((await t.http.get('/webhooks/subscriptions').set(N)).status, 403);
      assert.equal((await t.http.post('/webhooks/subscriptions').set(N).send({ url: 'http://example.org/' })).status, 403);
      assert.equal((await t.http.get('/webhooks/subscriptions')).status, 403);
    });
  });

  describe('deliveries', () => {
    it('delivers every change once, signed, in change-log order per record, with kind, lock_version and a component\'s collection', async () => {
      const r = await receiver();
      const id = await subscribe({ url: r.url });
      const a = await accession('first');
      await update(a, 'second');
      await update(a, 'third');
      const b = await accession('other');
      assert.equal((await t.http.delete(a).set(H)).status, 200);
      const resource = (await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), id_0: 'WH', id_1: '1' })).body.uri;
      const ao = await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'c', level: 'file', resource: { ref: resource } });
      assert.equal(ao.status, 200, ao.text);
      // Order is promised per record only: the accession's delete may arrive after the component's create.
      await until(() => r.accepted().some((e) => e.uri === ao.body.uri) && eventsOf(r.accepted(), a).length >= 4 && eventsOf(r.accepted(), b).length >= 1, 'every record\'s events');
      const events = r.accepted();
      assert.ok(r.all.every((x) => x.status === 200), 'every signature verified');
      // The record's lock_version as the event was prepared (at or after the change: a worker that
      // prepares it after the delete finds none); none for the delete itself.
      const locks = eventsOf(events, a).map((e) => e.lock_version);
      locks.slice(0, 3).forEach((v, i) => assert.ok(v === null || (typeof v === 'number' && v >= i), `event ${i}: lock_version ${v}`));
      assert.equal(locks[3], null);
      assert.deepEqual(eventsOf(events, a).map((e) => e.kind), ['create', 'update', 'update', 'delete']);
      assert.deepEqual(eventsOf(events, b).map((e) => e.kind), ['create']);
      const ids = events.map((e) => e.id);
      assert.equal(new Set(ids).size, ids.length, 'each event once');
      // Order is promised per record (several records' events are in flight at once).
      for (const uri of new Set(events.map((e) => e.uri))) {
        const own = eventsOf(events, uri).map((e) => e.id);
        assert.deepEqual([...own].sort((x, y) => x - y), own, `${uri}: in change-log order`);
      }
      const component = eventsOf(events, ao.body.uri)[0];
      assert.equal(component.type, 'archival_object');
      assert.equal(component.collection, resource);
      assert.equal(component.lock_version, 0);
      assert.ok(!Number.isNaN(Date.parse(component.time)));
      const header = r.all.find((x) => x.event.uri === b)!.headers;
      assert.equal(header['x-archive-event-id'], String(eventsOf(events, b)[0].id));
      assert.match(String(header['x-archive-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);

      // Recorded once the round's deliveries are written, after the receiver answered. (Every event
      // the receiver took: the component's creation touches its resource, an entry that can come
      // after the component's event was seen above.)
      await until(async () => (await deliveries(id)).total === r.accepted().length, 'every delivery recorded');
      const listed = await deliveries(id);
      const one = listed.results.find((d: any) => d.uri === b);
      assert.equal(one.status, 'delivered');
      assert.equal(one.response_code, 200);
      assert.equal(one.attempts, 1);
      assert.equal(one.event.uri, b);
      await unsubscribe(id);
    });

    it('sends only the record types, repositories and kinds asked for', async () => {
      const r = await receiver();
      const other = await createRepository(t, 'HOOK2');
      const id = await subscribe({ url: r.url, record_types: ['accession'], repositories: [`/repositories/${repo}`], kinds: ['update', 'delete'] });
      const a = await accession('filtered');
      await update(a, 'filtered again');
      const elsewhere = await t.http.post(`/repositories/${other}/accessions`).set(H).send({ ...sampleRecord('accession', other), title: 'elsewhere' });
      await update(elsewhere.body.uri, 'elsewhere again');
      await t.http.post(`/repositories/${repo}/resources`).set(H).send({ ...sampleRecord('resource', repo), id_0: 'WH', id_1: '2' });
      assert.equal((await t.http.delete(a).set(H)).status, 200);
      await until(() => r.accepted().some((e) => e.kind === 'delete'), 'the delete');
      await new Promise((res) => setTimeout(res, 300));
      assert.deepEqual(r.accepted().map((e) => [e.uri, e.kind]), [[a, 'update'], [a, 'delete']]);
      await unsubscribe(id);
    });

    /** A record's latest change-log row, to write again under another number (a late commit into a hole). */
    const rowOf = async (uri: string) => {
      const { seq: _seq, ...row } = await t.services.db.knex('change_log').where({ uri }).orderBy('seq', 'desc').first();
      return { ...row, at_ms: Date.now() };
    };

    it('sends an event past a hole in the log\'s numbering at once, and the one that commits into the hole later (a Galera cluster numbers in steps)', async () => {
      const r = await receiver();
      const id = await subscribe({ url: r.url, record_types: ['accession'], kinds: ['update'] });
      const a = await accession('before the hole');
      const b = await accession('past the hole');
      await new Promise((res) => setTimeout(res, 300));
      const knex = t.services.db.knex;
      const head = Number((await knex('change_log').max('seq as m').first())!.m);
      // b's update numbered head + 6, committed; a's head + 3, not committed yet.
      await knex('change_log').insert({ ...(await rowOf(b)), seq: head + 6 });
      const started = Date.now();
      await until(() => r.accepted().some((e) => e.uri === b), 'the event past the hole', 10_000);
      assert.ok(Date.now() - started < 10_000);
      await knex('change_log').insert({ ...(await rowOf(a)), seq: head + 3 });
      await until(() => r.accepted().some((e) => e.uri === a), 'the event that committed into the hole', 10_000);
      assert.deepEqual(r.accepted().map((e) => [e.uri, e.kind]), [[b, 'update'], [a, 'update']]);
      await unsubscribe(id);
    });

    it('goes on past a hole with more events behind it than it reads at a time (500), without waiting for the hole', async () => {
      const r = await receiver();
      const id = await subscribe({ url: r.url, record_types: ['accession'], kinds: ['update'] });
      const uris: string[] = [];
      for (let i = 0; i < 10; i++) uris.push(await accession(`many past the hole ${i}`));
      const a = await accession('into the hole');
      await new Promise((res) => setTimeout(res, 300));
      const knex = t.services.db.knex;
      const head = Number((await knex('change_log').max('seq as m').first())!.m);
      // A hole at head + 1 (a's update, not committed yet), then 550 updates of the ten records committed.
      const rows = await Promise.all(uris.map(rowOf));
      const past = Array.from({ length: 550 }, (_, i) => ({ ...rows[i % rows.length], seq: head + 2 + i }));
      for (let i = 0; i < past.length; i += 100) await knex('change_log').insert(past.slice(i, i + 100));
      const started = Date.now();
      // The hole is passed after 30 s: every event before that shows no read waited for it.
      await until(() => r.accepted().length >= 550, 'the 550 events past the hole', 25_000);
      assert.ok(Date.now() - started < 25_000);
      await knex('change_log').insert({ ...(await rowOf(a)), seq: head + 1 });
      await until(() => r.accepted().some((e) => e.uri === a), 'the event that committed into the hole', 10_000);
      const accepted = r.accepted();
      assert.equal(accepted.length, 551);
      assert.equal(new Set(accepted.map((e) => e.id)).size, 551, 'each event once');
      // Each record's events in the log's order.
      for (const uri of uris) {
        const ids = accepted.filter((e) => e.uri === uri).map((e) => e.id);
        assert.deepEqual(ids, [...ids].sort((x, y) => x - y), uri);
      }
      await unsubscribe(id);
    });

    it('retries a receiver that fails (500s) until it recovers: every event accepted once, in order per record', async () => {
      const r = await receiver();
      let failures = 0;
      r.answer = () => (failures++ < 12 ? 500 : 200);
      const id = await subscribe({ url: r.url, record_types: ['accession'] });
      const uris = [await accession('r1'), await accession('r2')];
      for (let i = 0; i < 3; i++) for (const uri of uris) await update(uri, `r-${i}`);
      await until(() => r.accepted().length === 8, 'eight events accepted', 30_000);
      await until(async () => (await deliveries(id)).results.every((d: any) => d.status === 'delivered'), 'every delivery recorded');
      assert.ok(r.all.length > 8, 'some were refused first');
      const accepted = r.accepted();
      assert.equal(new Set(accepted.map((e) => e.id)).size, 8);
      for (const uri of uris) {
        const mine = eventsOf(accepted, uri);
        assert.deepEqual(mine.map((e) => e.kind), ['create', 'update', 'update', 'update']);
        assert.deepEqual(mine.map((e) => e.id), [...mine.map((e) => e.id)].sort((x, y) => x - y));
      }
      const listed = await deliveries(id);
      assert.ok(listed.results.every((d: any) => d.status === 'delivered' && d.response_code === 200));
      assert.ok(listed.results.some((d: any) => d.attempts > 1));
      await unsubscribe(id);
    });

    it('does not let a dead or hanging endpoint delay another subscription', async () => {
      const hanging = await receiver();
      hanging.answer = () => 0;
      const good = await receiver();
      const dead = await subscribe({ url: 'http://127.0.0.1:9/refused', record_types: ['accession'] });
      const hung = await subscribe({ url: hanging.url, record_types: ['accession'] });
      const live = await subscribe({ url: good.url, record_types: ['accession'] });
      const uris: string[] = [];
      for (let i = 0; i < 20; i++) uris.push(await accession(`d${i}`));
      // The dead ones' first attempts fail or hang (WEBHOOK_TIMEOUT_MS is 2 s) meanwhile.
      await until(() => good.accepted().length === 20, 'the live subscription\'s events', 1_500);
      // Every record's event, each once (several records' events are in flight at once: any order across records).
      assert.deepEqual(good.accepted().map((e) => e.uri).sort(), [...uris].sort());
      const deadOne = (await t.http.get(`/webhooks/subscriptions/${dead}`).set(H)).body;
      assert.equal(deadOne.status, 'active');
      await until(async () => !!(await t.http.get(`/webhooks/subscriptions/${dead}`).set(H)).body.last_error, 'the dead one\'s error');
      for (const id of [dead, hung, live]) await unsubscribe(id);
    });

    it('queues a test ping, sent in the background and listed with its outcome', async () => {
      const r = await receiver();
      const id = await subscribe({ url: r.url, record_types: ['accession'] });
      const ping = await t.http.post(`/webhooks/subscriptions/${id}/ping`).set(H);
      assert.equal(ping.status, 200, ping.text);
      assert.equal(ping.body.status, 'Queued');
      await until(() => r.accepted().some((e) => e.kind === 'ping'), 'the ping');
      assert.equal(r.accepted()[0].subscription, `/webhooks/subscriptions/${id}`);
      await until(async () => (await deliveries(id)).results[0]?.status === 'delivered', 'the ping recorded');
      const [listed] = (await deliveries(id)).results;
      assert.equal(listed.kind, 'ping');
      assert.equal(listed.response_code, 200);
      assert.equal(listed.attempts, 1);
      assert.equal((await t.http.post('/webhooks/subscriptions/99999/ping').set(H)).status, 404);
      await unsubscribe(id);
    });
  });

  describe('a subscription that keeps failing', () => {
    let f: TestApp;
    let FH: Record<string, string>;
    before(async () => {
      f = await startTestApp({ ...FAST, WEBHOOK_RETRY_FOR_SECONDS: '1' });
      FH = { 'X-ArchivesSpace-Session': await f.adminToken() };
    });
    after(async () => f.close());

    it('is marked failing and its events wait, then go once it is updated', async () => {
      const r = await receiver();
      r.answer = () => 503;
      const created = await f.http.post('/webhooks/subscriptions').set(FH).send({ url: r.url, secret: SECRET, record_types: ['repository'] });
      const uri = created.body.uri;
      const repoId = await createRepository(f, 'FAIL');
      await until(async () => (await f.http.get(uri).set(FH)).body.status === 'failing', 'failing', 20_000);
      const failing = (await f.http.get(uri).set(FH)).body;
      assert.ok(failing.failing_since);
      assert.match(failing.last_error, /503/);
      const tried = r.all.length;
      await new Promise((res) => setTimeout(res, 500));
      assert.equal(r.all.length, tried, 'no attempts while failing');
      r.answer = () => 200;
      const revived = await f.http.post(uri).set(FH).send({ lock_version: failing.lock_version });
      assert.equal(revived.status, 200, revived.text);
      await until(() => r.accepted().some((e) => e.uri === `/repositories/${repoId}`), 'the waiting event');
      await until(async () => (await f.http.get(uri).set(FH)).body.status === 'active', 'active again');
      assert.equal(r.accepted().filter((e) => e.uri === `/repositories/${repoId}`).length, 1);
    });
  });
});
