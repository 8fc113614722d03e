import assert from 'node:assert/strict';
import { startTestApp, STORE, TestApp } from '../helpers';
import { post } from '../exchange/formats-fixture';
import { type ReportCursor, reportOrder, reportRowsByRid } from '../../src/store/report-reads';

/** Records walked in the order of JSON properties: keyset pages that neither skip nor repeat a record where keys tie or are missing. */
describe(`report pages in a property's order (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let repoId: number;
  const made: Array<{ uri: string; date: string; id1: string }> = [];

  before(async () => {
    t = await startTestApp();
    const token = await t.adminToken();
    repoId = (await post(t, token, '/repositories', { repo_code: 'ORD', name: 'Ordered' })).id;
    const dates = ['c', 'b', 'c', '', 'a', 'b', 'c', ''];
    for (const [i, date] of dates.entries()) {
      const id1 = String((i * 7) % 5);
      const { uri } = await post(t, token, `/repositories/${repoId}/accessions`, { id_0: 'O', id_1: id1, id_2: String(i), title: `R${i}`, accession_date: '2020-01-01', ...(date ? { provenance: date } : {}) });
      made.push({ uri, date, id1 });
    }
  });
  after(() => t?.close());

  async function walk(orderBy: string[], limit: number): Promise<string[]> {
    const seen: string[] = [];
    let after: ReportCursor = { rid: 0 };
    for (;;) {
      const page = await reportOrder(t.services.db, { types: ['accession'], repoId, includeSuppressed: false, after, limit, orderBy });
      seen.push(...(await reportRowsByRid(t.services.db, page.map((k) => k.rid))).map((r) => r.uri));
      if (page.length < limit) return seen;
      after = page[page.length - 1];
    }
  }

  it('walks every record once, by the property and then the order stored, whatever the page size', async () => {
    // Records without it sort first (as empty text), ties in the order stored.
    const expected = made.map((m, i) => ({ ...m, i })).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.i - b.i)).map((m) => m.uri);
    for (const limit of [1, 2, 3, 100]) assert.deepEqual(await walk(['provenance'], limit), expected, `pages of ${limit}`);
  });

  it('by several properties', async () => {
    const expected = made.map((m, i) => ({ ...m, i })).sort((a, b) => (a.id1 < b.id1 ? -1 : a.id1 > b.id1 ? 1 : String(a.i) < String(b.i) ? -1 : 1)).map((m) => m.uri);
    for (const limit of [1, 3]) assert.deepEqual(await walk(['id_0', 'id_1', 'id_2'], limit), expected, `pages of ${limit}`);
  });
});
