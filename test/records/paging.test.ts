import assert from 'node:assert/strict';
import { RecordQueries } from '../../src/store/records';
import { createRepository, startTestApp, STORE, TestApp } from '../helpers';

describe(`pagination (${STORE})`, () => {
  let t: TestApp;
  let repo: number;
  let other: number;
  let H: Record<string, string>;
  const ids: number[] = [];
  const list = () => `/repositories/${repo}/accessions`;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t, 'PAGES');
    other = await createRepository(t, 'OTHERPAGES');
    for (let i = 0; i < 25; i++) {
      const res = await t.http.post(list()).set(H).send({ id_0: `P${String(i).padStart(2, '0')}`, title: `Accession ${i}` });
      ids.push(res.body.id);
    }
    await t.http.post(`/repositories/${other}/accessions`).set(H).send({ id_0: 'ELSEWHERE' }).expect(200);
  });
  after(async () => t.close());

  it('answers page mode with first_page, last_page, this_page, total and results', async () => {
    const p1 = await t.http.get(list()).query({ page: 1 }).set(H);
    assert.deepEqual(Object.keys(p1.body), ['first_page', 'last_page', 'this_page', 'total', 'results']);
    assert.deepEqual([p1.body.first_page, p1.body.last_page, p1.body.this_page, p1.body.total, p1.body.results.length], [1, 3, 1, 25, 10]);
    const p3 = await t.http.get(list()).query({ page: 3, page_size: 10 }).set(H);
    assert.equal(p3.body.results.length, 5);
    const past = await t.http.get(list()).query({ page: 9 }).set(H);
    assert.deepEqual([past.status, past.body.this_page, past.body.results], [200, 9, []]);
    const big = await t.http.get(list()).query({ page: 1, page_size: 250 }).set(H);
    assert.equal(big.body.results.length, 25);
  });

  it('serves a listing with text outside ASCII whole, its length in bytes, as it serves the record', async () => {
    const title = 'Fonds Émile Zoë: 北京 letters ✓';
    const created = await t.http.post(list()).set(H).send({ id_0: 'UNICODE', title }).expect(200);
    try {
      const one = await t.http.get(`${list()}/${created.body.id}`).set(H).expect(200);
      const page = await t.http.get(list()).query({ page: 1, page_size: 250 }).set(H).buffer(true).expect(200);
      assert.equal(Number(page.headers['content-length']), Buffer.byteLength(page.text));
      const listed = page.body.results.find((r: { uri: string }) => r.uri === one.body.uri);
      assert.deepEqual(listed, one.body);
      assert.equal(listed.title, title);
      const set = await t.http.get(list()).query({ id_set: String(created.body.id) }).set(H).expect(200);
      assert.equal(Number(set.headers['content-length']), Buffer.byteLength(set.text));
      assert.deepEqual(set.body, [one.body]);
    } finally {
      await t.http.delete(`${list()}/${created.body.id}`).set(H).expect(200);
    }
  });

  it('answers an empty listing with last_page 1', async () => {
    const empty = await createRepository(t, 'EMPTY');
    const res = await t.http.get(`/repositories/${empty}/accessions`).query({ page: 1 }).set(H);
    assert.deepEqual(res.body, { first_page: 1, last_page: 1, this_page: 1, total: 0, results: [] });
  });

  it('answers all_ids with the bare ids in order, whatever the value of all_ids', async () => {
    for (const value of ['true', 'false', '']) {
      const res = await t.http.get(`${list()}?all_ids=${value}`).set(H);
      assert.deepEqual(res.body, ids, `all_ids=${value}`);
    }
  });

  it('answers id_set in id order, without duplicates, unknown ids or other repositories', async () => {
    const comma = await t.http.get(list()).query({ id_set: `${ids[4]},${ids[2]},${ids[4]},99999` }).set(H);
    assert.deepEqual(comma.body.map((r: { uri: string }) => r.uri), [ids[2], ids[4]].map((id) => `${list()}/${id}`));
    const repeated = await t.http.get(`${list()}?id_set[]=${ids[1]}&id_set[]=${ids[0]}`).set(H);
    assert.deepEqual(repeated.body.map((r: { title: string }) => r.title), ['Accession 0', 'Accession 1']);
    const foreign = await t.http.get(`/repositories/${other}/accessions`).query({ id_set: String(ids[0]) }).set(H);
    assert.deepEqual(foreign.body, []);
  });

  it('reads all_ids row by row where the MySQL server cuts its joined ids short', async function () {
    if (STORE !== 'mariadb') this.skip();
    const q = { type: 'accession', repoId: repo, sortColumn: 'id', sortDirection: 'desc' as const };
    await t.services.db.knex.transaction(async (trx) => {
      // One connection: a limit of 8 characters holds two or three of the 25 ids.
      await trx.raw('SET SESSION group_concat_max_len = 8');
      try {
        assert.deepEqual(await new RecordQueries(trx).listIds(q), [...ids].reverse());
      } finally {
        await trx.raw('SET SESSION group_concat_max_len = 16777216');
      }
    });
    assert.deepEqual(await new RecordQueries(t.services.db.knex).listIds(q), [...ids].reverse());
  });

  it('prefers page over id_set over all_ids', async () => {
    const both = await t.http.get(list()).query({ page: 1, id_set: String(ids[0]), all_ids: true }).set(H);
    assert.equal(both.body.total, 25);
    const setOverAll = await t.http.get(list()).query({ id_set: String(ids[0]), all_ids: true }).set(H);
    assert.equal(setOverAll.body.length, 1);
    assert.equal(typeof setOverAll.body[0], 'object');
  });

  it('names all three parameters when none is given', async () => {
    const res = await t.http.get(list()).set(H);
    assert.deepEqual([res.status, res.body], [400, { error: {
      page: ['Parameter required but no value provided'],
      id_set: ['Parameter required but no value provided'],
      all_ids: ['Parameter required but no value provided'],
    } }]);
  });

  it('filters by modified_since and sorts in either direction', async () => {
    const future = Math.floor(Date.now() / 1000) + 3600;
    const none = await t.http.get(list()).query({ page: 1, modified_since: future }).set(H);
    assert.equal(none.body.total, 0);
    const all = await t.http.get(list()).query({ page: 1, modified_since: 0 }).set(H);
    assert.equal(all.body.total, 25);
    const desc = await t.http.get(list()).query({ all_ids: true, sort_direction: 'desc' }).set(H);
    assert.deepEqual(desc.body, [...ids].reverse());
    const bad = await t.http.get(list()).query({ page: 1, sort_direction: 'downhill' }).set(H);
    assert.deepEqual(bad.body, { error: { sort_direction: ["Failed validation -- must be either 'asc' or 'desc' but given: downhill"] } });
  });

  it('resolves links in page mode', async () => {
    const res = await t.http.get(list()).query({ page: 1, 'resolve[]': 'repository' }).set(H);
    assert.equal(res.body.results[0].repository._resolved.repo_code, 'PAGES');
  });

  it('answers bad paging numbers with 400 in the usual shape, never 500', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ page: 0 }, 'page'], [{ page: -1 }, 'page'], [{ page: 'abc' }, 'page'], [{ page: 1.5 }, 'page'],
      [{ page: 1, page_size: 0 }, 'page_size'], [{ page: 1, page_size: -5 }, 'page_size'], [{ page: 1, page_size: 'ten' }, 'page_size'],
      [{ id_set: '1,x' }, 'id_set'], [{ id_set: Array.from({ length: 251 }, (_, i) => i + 1).join(',') }, 'id_set'],
      [{ page: 1, modified_since: -1 }, 'modified_since'], [{ page: 1, sort_field: 'nonsense' }, 'sort_field'],
    ];
    for (const [query, key] of cases) {
      const res = await t.http.get(list()).query(query).set(H);
      assert.equal(res.status, 400, `${JSON.stringify(query)}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body.error), [key], JSON.stringify(query));
      assert.equal(typeof res.body.error[key][0], 'string');
    }
  });

  it('lists repositories as a plain array', async () => {
    const res = await t.http.get('/repositories');
    assert.ok(Array.isArray(res.body));
    assert.ok(res.body.length >= 2);
  });
});
