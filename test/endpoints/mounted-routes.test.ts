import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { servedEndpoints } from '../../src/openapi';
import { startTestApp, STORE, TestApp } from '../helpers';

/**
 * How much of the ArchivesSpace backend API this one mounts: every route of
 * ../shared/reference/aspace-endpoints.tsv (copied to test/fixtures), by method and path, path
 * parameters by position.
 */
describe(`ArchivesSpace routes mounted (${STORE})`, function () {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(() => t?.close());

  it('mounts every one of the 322 routes of the ArchivesSpace backend', () => {
    const rows = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'aspace-endpoints.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
    assert.equal(rows.length, 322);
    const shape = (p: string) => p.replace(/:[a-z_]+/g, ':x').replace(/\*/g, ':x');
    const mounted = new Set(servedEndpoints(t.services.registry).map((e) => `${e.method.toUpperCase()} ${shape(e.path)}`));
    const missing = rows.filter(([method, p]) => !mounted.has(`${method} ${shape(p)}`)).map(([m, p]) => `${m} ${p}`);
    console.log(`      ${rows.length - missing.length} of ${rows.length} ArchivesSpace routes mounted; not mounted: ${missing.length}`);
    assert.deepEqual(missing, [], 'routes of the ArchivesSpace backend not mounted');
  });
});
