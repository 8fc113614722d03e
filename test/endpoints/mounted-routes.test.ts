import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { servedEndpoints } from '../../src/openapi';
import { startTestApp, STORE, TestApp } from '../helpers';

/**
 * How much of the ArchivesSpace backend API this one mounts: every route of
 * ../shared/reference/aspace-endpoints.tsv (copied to test/fixtures), by method and path, path
 * parameters by position. The README lists the routes left out and why.
 */
describe(`ArchivesSpace routes mounted (${STORE})`, function () {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(() => t?.close());

  it('mounts at least 290 of the 322 routes of the ArchivesSpace backend', () => {
    const rows = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'aspace-endpoints.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
    assert.equal(rows.length, 322);
    const shape = (p: string) => p.replace(/:[a-z_]+/g, ':x').replace(/\*/g, ':x');
    const mounted = new Set(servedEndpoints(t.services.registry).map((e) => `${e.method.toUpperCase()} ${shape(e.path)}`));
    const missing = rows.filter(([method, p]) => !mounted.has(`${method} ${shape(p)}`)).map(([m, p]) => `${m} ${p}`);
    console.log(`      ${rows.length - missing.length} of ${rows.length} ArchivesSpace routes mounted; not mounted: ${missing.length}`);
    assert.ok(rows.length - missing.length >= 290, missing.join('\n'));
    // The README says why each of these is left out: it must list exactly them.
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    for (const route of missing) assert.ok(readme.includes(`\`${route}\``), `README does not list ${route}`);
  });
});
