import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importers } from '../../src/exchange/import';
import { ImportFailed, type ImportOutput } from '../../src/exchange/import/types';
import { startTestApp, STORE, TestApp } from '../helpers';

/** The finding aids archives wrote (../shared/corpus), beside the project as on this machine and CI. */
const CORPUS = [process.env.CORPUS_DIR, path.resolve(__dirname, '..', '..', '..', 'shared', 'corpus'), '/work/shared/corpus']
  .find((dir): dir is string => !!dir && fs.existsSync(path.join(dir, 'ead'))) ?? '../shared/corpus';
const corpus = (dir: string) => (fs.existsSync(path.join(CORPUS, dir)) ? fs.readdirSync(path.join(CORPUS, dir)).filter((f) => f.endsWith('.xml')).map((f) => path.join(CORPUS, dir, f)) : []);

/** Counted from the file itself, independently of the importer: c, c01..c12 in any namespace. */
function componentsIn(xml: string): number {
  return (xml.match(/<(?:[\w-]+:)?c(?:0[1-9]|1[0-2])?[\s>]/g) ?? []).length;
}

const quiet = (): ImportOutput & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, log: (level, message) => lines.push(`${level}: ${message}`), progress: () => undefined };
};

describe(`EAD import (${STORE})`, function () {
  this.timeout(600_000);
  let t: TestApp;
  let repo: number;
  const admin = { username: 'admin' };
  const ead = importers.ead_xml;
  let scratch: string;

  before(async () => {
    t = await startTestApp();
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'IMP', name: 'Imports' })).body.id;
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ead-import-'));
  });
  after(async () => {
    await t?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const files = [...corpus('ead'), ...corpus('ead3')];
  it(`imports every finding aid of the corpus (${files.length} files), with as many components as each file holds`, async () => {
    assert.ok(files.length >= 10, `the corpus was not found at ${CORPUS}`);
    for (const file of files) {
      const out = quiet();
      const report = await ead.run(t.services, repo, admin, { path: file, name: path.basename(file) }, out);
      const expected = componentsIn(fs.readFileSync(file, 'utf8'));
      assert.equal(report.counts.resource, 1, path.basename(file));
      assert.equal(report.counts.archival_object ?? 0, expected, `${path.basename(file)}: components`);
      const resource = report.created.find((u) => u.includes('/resources/'))!;
      const tree = await t.services.db.knex('records').where({ root_uri: resource }).count({ n: '*' }).first();
      assert.equal(Number(tree?.n), expected, `${path.basename(file)}: components in the tree`);
    }
  });

  it('refuses what is not EAD or not XML, writing nothing, and names the file', async () => {
    const before = Number((await t.services.db.knex('records').count({ n: '*' }).first())?.n);
    const cases: Array<[string, string, RegExp]> = [
      ['not-xml.xml', 'this is { not xml', /not-xml\.xml: .*not well-formed|no XML element/],
      ['marc.xml', '<record xmlns="http://www.loc.gov/MARC21/slim"><leader>x</leader></record>', /marc\.xml: not an EAD file/],
      ['no-archdesc.xml', '<ead><eadheader><eadid>x</eadid></eadheader></ead>', /no-archdesc\.xml: no archdesc/],
      ['no-title.xml', '<ead><archdesc level="collection"><did><unitid>1</unitid></did></archdesc></ead>', /no-title\.xml: .*no unittitle/],
      ['laughs.xml', '<?xml version="1.0"?><!DOCTYPE ead [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><ead><archdesc><did><unittitle>&b;</unittitle></did></archdesc></ead>', /laughs\.xml/],
      ['external.xml', '<?xml version="1.0"?><!DOCTYPE ead [<!ENTITY x SYSTEM "file:///etc/passwd">]><ead><archdesc><did><unittitle>&x;</unittitle></did></archdesc></ead>', /external\.xml/],
      ['truncated.xml', '<ead><archdesc level="collection"><did><unittitle>Half', /truncated\.xml/],
      ['bad-component.xml', '<ead><archdesc level="collection"><did><unittitle>T</unittitle><unitid>1</unitid></did><dsc><c level="file"><did><unittitle>First</unittitle></did></c><c level="file"><did></did></c></dsc></archdesc></ead>', /bad-component\.xml: line 1, ead\/archdesc\/dsc\/c: a component with neither title nor date/],
    ];
    for (const [name, text, message] of cases) {
      const file = path.join(scratch, name);
      fs.writeFileSync(file, text);
      await assert.rejects(ead.run(t.services, repo, admin, { path: file, name }, quiet()), (err: Error) => err instanceof ImportFailed && message.test(err.message));
    }
    assert.equal(Number((await t.services.db.knex('records').count({ n: '*' }).first())?.n), before);
  });

  it('one digital object linked from two components is created once and linked from both; nothing half-written stays', async () => {
    const file = path.join(scratch, 'shared-dao.xml');
    const dao = '<dao href="https://example.org/shared-dao-1" title="Shared scan"/>';
    fs.writeFileSync(file, `<ead><archdesc level="collection"><did><unittitle>Shared</unittitle><unitid>SD-1</unitid></did><dsc>
      <c level="file"><did><unittitle>One</unittitle>${dao}</did></c><c level="file"><did><unittitle>Two</unittitle>${dao}</did></c></dsc></archdesc></ead>`);
    const report = await ead.run(t.services, repo, admin, { path: file, name: 'shared-dao.xml' }, quiet());
    assert.equal(report.counts.digital_object, 1);
    const objects = await t.services.db.knex('records').where({ type: 'digital_object', repo_id: repo }).whereRaw('json like ?', ['%shared-dao-1%']).select('uri');
    assert.equal(objects.length, 1, 'one digital object in the store');
    const components = report.created.filter((u) => u.includes('/archival_objects/'));
    for (const uri of components) {
      const json = JSON.parse((await t.services.db.knex('records').where({ uri }).first('json')).json);
      assert.deepEqual(json.instances.map((i: { digital_object?: { ref: string } }) => i.digital_object?.ref), [objects[0].uri], uri);
    }
  });

  it('round trip: export → import gives the same tree, component by component', async () => {
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const source = files.find((f) => f.endsWith('nyu_ferris.xml')) ?? files[0];
    const start = (await t.http.post('/repositories').set(H).send({ repo_code: 'IMP1', name: 'Round trip source' })).body.id;
    const first = await ead.run(t.services, start, admin, { path: source, name: 'first' }, quiet());
    const resource = first.created.find((u) => u.includes('/resources/'))!;
    const xml = await t.http.get(`${resource.replace('/resources/', '/resource_descriptions/')}.xml`).query({ include_unpublished: true }).set(H)
      .buffer(true).parse((r, done) => { let s = ''; r.setEncoding('utf8'); r.on('data', (c: string) => (s += c)); r.on('end', () => done(null, s)); });
    const exported = path.join(scratch, 'exported.xml');
    fs.writeFileSync(exported, xml.body);
    const other = (await t.http.post('/repositories').set(H).send({ repo_code: 'IMP2', name: 'Round trip' })).body.id;
    const second = await ead.run(t.services, other, admin, { path: exported, name: 'second' }, quiet());
    const shape = async (uri: string) => {
      const tree = (await t.http.get(`${uri}/tree`).set(H)).body;
      const flat: string[] = [];
      const walk = (nodes: any[], depth: number) => nodes.forEach((n) => { flat.push(`${depth} ${n.level} ${n.title}`); walk(n.children, depth + 1); });
      walk(tree.children, 1);
      return flat;
    };
    assert.deepEqual(await shape(second.created.find((u) => u.includes('/resources/'))!), await shape(resource));
    // The same through EAD3: exported with ead3=true, imported again, the same tree.
    const xml3 = await t.http.get(`${resource.replace('/resources/', '/resource_descriptions/')}.xml`).query({ include_unpublished: true, ead3: true }).set(H)
      .buffer(true).parse((r, done) => { let s = ''; r.setEncoding('utf8'); r.on('data', (c: string) => (s += c)); r.on('end', () => done(null, s)); });
    assert.match(xml3.body, /ead3\.archivists\.org/);
    const exported3 = path.join(scratch, 'exported-ead3.xml');
    fs.writeFileSync(exported3, xml3.body);
    const third = (await t.http.post('/repositories').set(H).send({ repo_code: 'IMP3', name: 'Round trip EAD3' })).body.id;
    const again = await ead.run(t.services, third, admin, { path: exported3, name: 'third' }, quiet());
    assert.deepEqual(await shape(again.created.find((u) => u.includes('/resources/'))!), await shape(resource));
  });
});

describe(`MARCXML import (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let repo: number;
  before(async () => {
    t = await startTestApp();
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'MARC', name: 'MARC imports' })).body.id;
  });
  after(() => t?.close());

  it('imports every MARCXML record of the corpus as a resource with its agents, subjects and notes', async () => {
    const files = corpus('marcxml');
    assert.ok(files.length >= 3, `the corpus was not found at ${CORPUS}`);
    for (const file of files) {
      const xml = fs.readFileSync(file, 'utf8');
      const records = (xml.match(/<(?:[\w-]+:)?record[\s>]/g) ?? []).length;
      const report = await importers.marcxml.run(t.services, repo, { username: 'admin' }, { path: file, name: path.basename(file) }, quiet());
      assert.equal(report.counts.resource, records, path.basename(file));
      const resource = JSON.parse((await t.services.db.knex('records').where({ uri: report.created.find((u) => u.includes('/resources/')) }).first('json')).json);
      const title = /tag="245"[^>]*>\s*<(?:[\w-]+:)?subfield code="a">([^<]+)</.exec(xml)?.[1].replace(/\s*[,:;/.]\s*$/, '').trim();
      assert.ok(resource.title.startsWith(title!), `${path.basename(file)}: ${resource.title} / ${title}`);
      const subjects = new Set([...xml.matchAll(/tag="(650|651|655|656|657|630)"/g)].map((m) => m.index));
      assert.ok(resource.subjects.length <= subjects.size && (subjects.size === 0 || resource.subjects.length > 0), path.basename(file));
    }
  });

  it('refuses a file that is not MARCXML, writing nothing', async () => {
    const file = path.join(os.tmpdir(), `not-marc-${process.pid}.xml`);
    fs.writeFileSync(file, '<ead><archdesc/></ead>');
    await assert.rejects(importers.marcxml.run(t.services, repo, { username: 'admin' }, { path: file, name: 'not-marc.xml' }, quiet()), /not-marc\.xml: not a MARCXML file/);
    fs.rmSync(file, { force: true });
  });
});

describe(`EAC-CPF import (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let repo: number;
  before(async () => {
    t = await startTestApp();
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'EACI', name: 'EAC imports' })).body.id;
  });
  after(() => t?.close());

  it('imports every EAC-CPF record of the corpus as an agent of its entity type, once', async () => {
    const files = corpus('eac-cpf');
    assert.ok(files.length >= 3, `the corpus was not found at ${CORPUS}`);
    const types: Record<string, string> = { person: 'agent_person', corporateBody: 'agent_corporate_entity', family: 'agent_family' };
    for (const file of files) {
      const xml = fs.readFileSync(file, 'utf8');
      const type = types[/<(?:[\w-]+:)?entityType>([^<]+)</.exec(xml)![1].trim()];
      const report = await importers.eac_xml.run(t.services, repo, { username: 'admin' }, { path: file, name: path.basename(file) }, quiet());
      assert.equal(report.counts[type], 1, `${path.basename(file)}: ${JSON.stringify(report.counts)}`);
      const agent = JSON.parse((await t.services.db.knex('records').where({ uri: report.created[0] }).first('json')).json);
      assert.ok(agent.title, path.basename(file));
      // The same file again finds the agent by its record id.
      const again = await importers.eac_xml.run(t.services, repo, { username: 'admin' }, { path: file, name: path.basename(file) }, quiet());
      assert.deepEqual(again.created, [], path.basename(file));
    }
  });
});
