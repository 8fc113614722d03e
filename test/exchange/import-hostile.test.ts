import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { importers } from '../../src/exchange/import';
import { ImportFailed, type ImportOutput } from '../../src/exchange/import/types';
import { startTestApp, STORE, TestApp } from '../helpers';

const quiet = (): ImportOutput => ({ log: () => undefined, progress: () => undefined });

/** A small valid finding aid: every hostile file below is made from it. */
const VALID = '<?xml version="1.0" encoding="UTF-8"?>\n<ead xmlns="urn:isbn:1-931666-22-9"><eadheader><eadid>ok</eadid><filedesc><titlestmt><titleproper>Fine</titleproper></titlestmt></filedesc></eadheader>'
  + '<archdesc level="collection"><did><unittitle>Fine papers</unittitle><unitid>OK-1</unitid><unitdate normal="1900/1910">1900-1910</unitdate><physdesc><extent>1 linear feet</extent></physdesc></did>'
  + '<dsc><c level="series"><did><unittitle>Series</unittitle></did><c level="file"><did><unittitle>File</unittitle><container type="box">1</container></did></c></c></dsc></archdesc></ead>';

type Kind = 'truncated' | 'laughs' | 'external-entity' | 'parameter-entity' | 'wrong-namespace' | 'not-ead' | 'deep' | 'invalid-utf8' | 'binary' | 'empty' | 'no-title' | 'unclosed-attr' | 'bad-encoding';

/** One hostile or malformed file of a kind, varied by `n`. */
function hostile(kind: Kind, n: number): Buffer {
  switch (kind) {
    case 'truncated': return Buffer.from(VALID.slice(0, 40 + (n * 7919) % (VALID.length - 60)));
    case 'laughs': {
      const levels = Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('');
      return Buffer.from(VALID.replace('<ead ', `<!DOCTYPE ead [<!ENTITY l0 "lol">${levels}]><ead `).replace('Fine papers', `&l${1 + (n % 10)};`));
    }
    case 'external-entity': return Buffer.from(VALID.replace('<ead ', `<!DOCTYPE ead [<!ENTITY x SYSTEM "file:///etc/passwd${n}">]><ead `).replace('Fine papers', '&x;'));
    case 'parameter-entity': return Buffer.from(VALID.replace('<ead ', `<!DOCTYPE ead [<!ENTITY % p SYSTEM "http://127.0.0.1:9/${n}.dtd"> %p;]><ead `).replace('Fine papers', '&undefined;'));
    case 'wrong-namespace': return Buffer.from(VALID.replace(/<ead xmlns="[^"]+">/, `<record xmlns="urn:other:${n}">`).replace('</ead>', '</record>'));
    case 'not-ead': return Buffer.from(`<?xml version="1.0"?><html><body><p>${'x'.repeat(n % 100)}</p></body></html>`);
    case 'deep': return Buffer.from(VALID.replace('<dsc>', `<dsc>${'<c level="file"><did><unittitle>x</unittitle></did>'.repeat(2500 + n)}${'</c>'.repeat(2500 + n)}`));
    case 'invalid-utf8': {
      const text = Buffer.from(VALID.replace('Fine papers', 'Fine XX papers'));
      const at = text.indexOf('XX');
      text[at] = 0xc3;
      text[at + 1] = 0x28 + (n % 8);
      return text;
    }
    case 'binary': return Buffer.from(Array.from({ length: 64 + (n % 512) }, (_, i) => (i * 131 + n * 17) % 256));
    case 'empty': return Buffer.from(n % 2 ? '' : '   \n  ');
    case 'no-title': return Buffer.from(VALID.replace('<unittitle>Fine papers</unittitle>', '').replace('<titleproper>Fine</titleproper>', ''));
    case 'unclosed-attr': return Buffer.from(VALID.replace('level="collection"', `level="collection${'"'.repeat(0)} x=`));
    case 'bad-encoding': return Buffer.from(VALID.replace('encoding="UTF-8"', `encoding="x-unknown-${n}"`));
  }
}

const KINDS: Kind[] = ['truncated', 'laughs', 'external-entity', 'parameter-entity', 'wrong-namespace', 'not-ead', 'deep', 'invalid-utf8', 'binary', 'empty', 'no-title', 'unclosed-attr', 'bad-encoding'];

describe(`500 hostile and malformed files (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let repo: number;
  let scratch: string;
  let H: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'HOSTILE', name: 'Hostile' })).body.id;
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-'));
  });
  after(async () => {
    await t?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });
  const count = async () => Number((await t.services.db.knex('records').count({ n: '*' }).first())?.n);

  it('each one fails with a message that names the file, and writes nothing', async () => {
    const before = await count();
    const cases = fc.sample(fc.tuple(fc.constantFrom(...KINDS), fc.nat({ max: 10_000 })), { numRuns: 500, seed: Number(process.env.FUZZ_SEED ?? 4242) });
    const seen = new Map<Kind, number>();
    for (const [i, [kind, n]] of cases.entries()) {
      const name = `hostile-${i}-${kind}.xml`;
      const file = path.join(scratch, name);
      fs.writeFileSync(file, hostile(kind, n));
      await assert.rejects(importers.ead_xml.run(t.services, repo, { username: 'admin' }, { path: file, name }, quiet()), (err: Error) => {
        assert.ok(err instanceof ImportFailed, `${name}: not a clean refusal: ${err.stack}`);
        assert.ok(err.message.startsWith(name), `${name}: the message names the file: ${err.message}`);
        return true;
      });
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
      fs.rmSync(file);
    }
    assert.equal(await count(), before, 'nothing of any file was written');
    assert.equal(seen.size, KINDS.length, `every kind was tried: ${[...seen].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    // And the valid file they were made from still imports.
    const ok = path.join(scratch, 'valid.xml');
    fs.writeFileSync(ok, VALID);
    const report = await importers.ead_xml.run(t.services, repo, { username: 'admin' }, { path: ok, name: 'valid.xml' }, quiet());
    assert.equal(report.counts.archival_object, 2);
  });

  it('through the job route: every job fails cleanly, no 5xx, the server keeps answering', async () => {
    const before = (await t.http.get(`/repositories/${repo}/resources`).query({ page: 1 }).set(H)).body.total;
    const uris: string[] = [];
    for (const [i, kind] of KINDS.entries()) {
      const res = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
        .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: [`${kind}.xml`] } }))
        .attach('files[]', hostile(kind, i), `${kind}.xml`);
      assert.equal(res.status, 200, `${kind}: ${res.text}`);
      uris.push(res.body.uri);
      assert.equal((await t.http.get('/health')).status, 200);
    }
    await t.services.jobs!.idle(120_000);
    for (const uri of uris) {
      const job = (await t.http.get(uri).set(H)).body;
      assert.equal(job.status, 'failed', `${uri}: ${JSON.stringify(job)}`);
      assert.match((await t.http.get(`${uri}/log`).set(H)).text, /error: .*nothing of this file was written/);
    }
    assert.equal((await t.http.get(`/repositories/${repo}/resources`).query({ page: 1 }).set(H)).body.total, before);
  });
});
