import assert from 'node:assert/strict';
import { createRepository, startTestApp, STORE } from '../helpers';

describe(`GET /health (${STORE})`, () => {
  it('answers with a request id (a well-formed one sent by the caller is kept)', async () => {
    const t = await startTestApp();
    try {
      const fresh = await t.http.get('/health');
      assert.match(fresh.headers['x-request-id'], /^[0-9a-f-]{36}$/);
      const given = await t.http.get('/health').set('X-Request-Id', 'lb-1234.abc');
      assert.equal(given.headers['x-request-id'], 'lb-1234.abc');
      const odd = await t.http.get('/health').set('X-Request-Id', 'bad id with spaces');
      assert.match(odd.headers['x-request-id'], /^[0-9a-f-]{36}$/);
    } finally {
      await t.close();
    }
  });

  it('reports the store, the index and the indexing lag; 503 when the index is unreachable', async () => {
    const t = await startTestApp();
    try {
      await createRepository(t);
      await t.services.search!.indexer.drain();
      const ok = await t.http.get('/health');
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.status, 'ok');
      assert.equal(ok.body.store.ok, true);
      assert.equal(ok.body.index.kind, 'embedded');
      assert.ok(ok.body.index.documents >= 1);
      assert.equal(ok.body.queue.pending, 0);
      await t.services.search!.indexer.stop();
      await t.services.search!.index.close();
      const down = await t.http.get('/health');
      assert.equal(down.status, 503);
      assert.equal(down.body.status, 'degraded');
      assert.equal(down.body.index.ok, false);
      assert.match(down.body.index.error, /not open/);
    } finally {
      await t.close();
    }
  });
});
