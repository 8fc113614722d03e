import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli } from '../processes';
import { startTestApp, STORE, TestApp } from '../helpers';
import { buildFormatsFixture, FormatsFixture, note, post } from './formats-fixture';
import { viewerAndNobody } from './viewer';
import { assertValid, el, xpath } from './xmllint';

/** The text of a PDF as pdftotext (Debian's poppler-utils) reads it. */
function pdfText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString();
}

function pdfPages(pdf: Buffer): number {
  return Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', ['-'], { input: pdf }).toString())?.[1] ?? 0);
}

/**
 * EAD 2002 finding aids: valid against ead.xsd whatever the options, the hierarchy, titles,
 * dates, containers and notes read back component by component, unpublished and suppressed
 * content kept out unless asked for and permitted.
 */
describe(`EAD 2002 export of resources (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let f: FormatsFixture;
  let H: Record<string, string>;
  let base: string;
  let resourceUri: string;
  /** The published components in tree order, with their depth: what the dsc must hold. */
  const published: Array<{ title: string; depth: number; level: string }> = [];

  before(async () => {
    t = await startTestApp();
    f = await buildFormatsFixture(t, 'EAD');
    H = { 'X-ArchivesSpace-Session': f.token };
    base = `/repositories/${f.repo}`;
    resourceUri = `${base}/resources/${f.resource}`;
    const p = (path: string, body: unknown) => post(t, f.token, path, body);
    const profile = await p('/container_profiles', { name: 'Hollinger box', extent_dimension: 'width', dimension_units: 'inches', width: '5', height: '10', depth: '15' });
    const box = await p(`${base}/top_containers`, { type: 'box', indicator: '1', barcode: '3900001', container_profile: { ref: profile.uri } });
    // The fixture has the series S1 and its file; six levels below the series, with every subnote kind on the way.
    published.push({ title: 'Correspondence', depth: 1, level: 'series' }, { title: 'Letters to Pierre', depth: 2, level: 'file' });
    let parent = `${base}/archival_objects/${f.file}`;
    const levels = ['subseries', 'otherlevel', 'file', 'item', 'item', 'item'];
    for (const [i, level] of levels.entries()) {
      const title = `Level ${i + 3} <emph render="italic">part</emph> & more`;
      const created = await p(`${base}/archival_objects`, {
        title, level, other_level: level === 'otherlevel' ? 'Sub-subseries' : undefined, component_id: `C${i + 3}`, publish: true,
        resource: { ref: resourceUri }, parent: { ref: parent },
        dates: [{ date_type: 'inclusive', label: 'creation', begin: `19${10 + i}`, end: `19${20 + i}` }],
        instances: i === 0
          ? [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box.uri }, type_2: 'folder', indicator_2: '7', type_3: 'reel', indicator_3: 'a' } },
            { instance_type: 'digital_object', digital_object: { ref: `${base}/digital_objects/${f.digitalObject}` } }]
          : [],
        notes: i === 1
          ? [note('scopecontent', 'First paragraph.\n\nSecond paragraph with <title render="italic">a title</title>.', {
            subnotes: [
              { jsonmodel_type: 'note_text', content: 'Lead text.\n\nSecond paragraph with <title render="italic">a title</title>.', publish: true },
              { jsonmodel_type: 'note_chronology', title: 'Chronology', items: [{ event_date: '1903', events: ['Nobel Prize in Physics'] }, { event_date: '1911', events: ['Nobel Prize in Chemistry', 'Solvay conference'] }] },
              { jsonmodel_type: 'note_orderedlist', title: 'Steps', enumeration: 'arabic', items: ['Open', 'Read'] },
              { jsonmodel_type: 'note_definedlist', title: 'Terms', items: [{ label: 'Ra', value: 'Radium' }] },
            ],
          }), { jsonmodel_type: 'note_index', publish: true, label: 'Names index', items: [{ type: 'person', value: 'Curie, Pierre', reference_text: 'letter 12' }] },
          { jsonmodel_type: 'note_singlepart', type: 'physloc', publish: true, content: ['Vault <b>bad tag</b> A'] }]
          : [],
      });
      published.push({ title, depth: i + 3, level: level === 'otherlevel' ? 'otherlevel' : level });
      parent = created.uri;
    }
    // An unpublished and a suppressed component beside the series: neither shows by default.
    await p(`${base}/archival_objects`, { title: 'Unpublished drafts NOT-FOR-PUBLIC', level: 'file', publish: false, resource: { ref: resourceUri } });
    const gone = await p(`${base}/archival_objects`, { title: 'Suppressed file', level: 'file', publish: true, resource: { ref: resourceUri } });
    const sup = await t.http.post(`${gone.uri}/suppressed`).query({ suppressed: true }).set(H);
    assert.equal(sup.status, 200, sup.text);
  });
  after(() => t?.close());

  const ead = async (query: Record<string, unknown> = {}, token = f.token) => {
    const res = await t.http.get(`${base}/resource_descriptions/${f.resource}.xml`).query(query).set('X-ArchivesSpace-Session', token)
      .buffer(true).parse((r, done) => { let s = ''; r.setEncoding('utf8'); r.on('data', (c: string) => (s += c)); r.on('end', () => done(null, s)); });
    return res;
  };

  it('is valid EAD 2002 with every option, and reads back component by component', async () => {
    for (const query of [{}, { include_unpublished: true }, { include_daos: true }, { numbered_cs: true }, { include_uris: false }, { include_daos: true, numbered_cs: true, include_unpublished: true }]) {
      const res = await ead(query);
      assert.equal(res.status, 200, res.body);
      assert.match(String(res.headers['content-type']), /application\/xml/);
      assertValid(res.body, 'ead.xsd');
    }
    const xml = (await ead({ numbered_cs: true })).body;
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('did')}/${el('unittitle')})`), 'Marie Curie papers');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('did')}/${el('unitid')})`), 'MS.0042');
    assert.equal(xpath(xml, `string(//${el('titleproper')}[not(@type)])`), 'Guide to the Marie Curie papers MS.0042');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/@level)`), 'collection');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('did')}/${el('unitdate')}[@type="bulk"]/@normal)`), '1900/1920');
    assert.equal(xpath(xml, `string(//${el('publisher')})`), 'Special Collections EAD');
    // The dsc holds exactly the published, unsuppressed components, each at its depth, in order.
    const dsc = xml.slice(xml.indexOf('<dsc>'));
    const read = [...dsc.matchAll(/<c(\d\d)\b([^>]*)><did><unittitle>(.*?)<\/unittitle>/g)].map((m) => ({
      depth: Number(m[1]), level: /level="([^"]+)"/.exec(m[2])?.[1], title: m[3].replace(/<[^>]+>/g, '').replace(/&amp;/g, '&'),
    }));
    assert.deepEqual(read, published.map((c) => ({ depth: c.depth, level: c.level, title: c.title.replace(/<[^>]+>/g, '') })));
    assert.equal(xpath(xml, `string(//${el('c04')}/@otherlevel)`), 'Sub-subseries');
    // Inline markup passes through; a tag EAD does not allow there is escaped text.
    assert.equal(xpath(xml, `string(//${el('c03')}/${el('did')}/${el('unittitle')}/${el('emph')}/@render)`), 'italic');
    assert.equal(xpath(xml, `string(//${el('c04')}/${el('did')}/${el('physloc')})`), 'Vault <b>bad tag</b> A');
    // Containers with profile, barcode, child and grandchild chained by @parent.
    assert.equal(xpath(xml, `string(//${el('c03')}//${el('container')}[@type="box"])`), '1');
    assert.equal(xpath(xml, `string(//${el('c03')}//${el('container')}[@type="box"]/@label)`), 'Mixed Materials [3900001]');
    assert.equal(xpath(xml, `string(//${el('c03')}//${el('container')}[@type="box"]/@altrender)`), 'Hollinger box');
    assert.equal(xpath(xml, `string(//${el('c03')}//${el('container')}[@type="folder"])`), '7');
    assert.equal(xpath(xml, `//${el('c03')}//${el('container')}[@type="folder"]/@parent = //${el('c03')}//${el('container')}[@type="box"]/@id`), 'true');
    assert.equal(xpath(xml, `string(//${el('c03')}//${el('container')}[@type="reel"])`), 'a');
    // Notes with head, paragraphs and every subnote kind.
    assert.equal(xpath(xml, `string(//${el('c04')}/${el('scopecontent')}/${el('head')})`), 'Scope and Contents');
    assert.equal(Number(xpath(xml, `count(//${el('c04')}/${el('scopecontent')}/${el('p')})`)), 2);
    assert.equal(xpath(xml, `string(//${el('c04')}/${el('scopecontent')}/${el('p')}[2]/${el('title')}/@render)`), 'italic');
    assert.equal(xpath(xml, `string(//${el('c04')}//${el('chronitem')}[2]//${el('event')}[2])`), 'Solvay conference');
    assert.equal(xpath(xml, `string(//${el('c04')}//${el('list')}[@type="ordered"]/@numeration)`), 'arabic');
    assert.equal(xpath(xml, `string(//${el('c04')}//${el('defitem')}/${el('item')})`), 'Radium');
    assert.equal(xpath(xml, `string(//${el('c04')}/${el('index')}//${el('persname')})`), 'Curie, Pierre');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('bibliography')}/${el('bibref')})`), 'Quinn, Susan. Marie Curie: A Life. 1995.');
    // Origination and controlled access with roles and sources.
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('did')}/${el('origination')}[@label="Creator"]/${el('persname')}/@role)`), 'aut');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('controlaccess')}/${el('subject')}/@source)`), 'lcsh');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('controlaccess')}/${el('geogname')})`), 'Paris (France)');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('controlaccess')}/${el('corpname')})`), 'Institut du Radium. Laboratoire Curie -- Archives');
  });

  it('keeps unpublished content out unless asked, and suppressed components always', async () => {
    const plain = (await ead()).body;
    assert.doesNotMatch(plain, /NOT-FOR-PUBLIC|Secret Donor|Suppressed file/);
    const all = (await ead({ include_unpublished: true })).body;
    assert.match(all, /Unpublished drafts NOT-FOR-PUBLIC/);
    assert.match(all, /Secret staff remark NOT-FOR-PUBLIC/);
    assert.match(all, /audience="internal"/);
    assert.doesNotMatch(all, /Suppressed file/);
    // Digital objects only with include_daos: several published file versions make a daogrp.
    assert.equal(xpath(plain, `count(//${el('daogrp')})`), '0');
    const daos = (await ead({ include_daos: true, numbered_cs: true })).body;
    assert.equal(xpath(daos, `count(//${el('c03')}//${el('daogrp')}/${el('daoloc')})`), '2');
  });

  it('is valid EAD3 with every option (ead3=true), with the same components, dates, extents, containers, notes and access points', async () => {
    for (const query of [{}, { include_unpublished: true }, { include_daos: true }, { numbered_cs: true }, { include_daos: true, numbered_cs: true, include_unpublished: true }]) {
      const res = await ead({ ...query, ead3: true });
      assert.equal(res.status, 200, res.body);
      assertValid(res.body, 'ead3.xsd');
    }
    const xml = (await ead({ ead3: true, numbered_cs: true, include_daos: true })).body;
    assert.match(xml, /<ead xmlns="http:\/\/ead3\.archivists\.org\/schema\/"/);
    assert.equal(xpath(xml, `string(//${el('control')}/${el('maintenancestatus')}/@value)`), 'derived');
    assert.equal(xpath(xml, `string(//${el('titleproper')}[not(@localtype)])`), 'Guide to the Marie Curie papers MS.0042');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('did')}/${el('unittitle')})`), 'Marie Curie papers');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('did')}/${el('unitdatestructured')}[@unitdatetype="bulk"]//${el('fromdate')}/@standarddate)`), '1900');
    assert.ok(xpath(xml, `string(//${el('archdesc')}/${el('did')}/${el('physdescstructured')}/${el('quantity')})`), 'an extent quantity');
    const dsc = xml.slice(xml.indexOf('<dsc>'));
    const read = [...dsc.matchAll(/<c(\d\d)\b([^>]*)><did><unittitle>(.*?)<\/unittitle>/g)].map((m) => ({
      depth: Number(m[1]), level: /level="([^"]+)"/.exec(m[2])?.[1], title: m[3].replace(/<[^>]+>/g, '').replace(/&amp;/g, '&'),
    }));
    assert.deepEqual(read, published.map((c) => ({ depth: c.depth, level: c.level, title: c.title.replace(/<[^>]+>/g, '') })));
    assert.equal(xpath(xml, `string(//${el('c03')}/${el('did')}/${el('unittitle')}/${el('emph')}/@render)`), 'italic');
    assert.equal(xpath(xml, `string(//${el('c03')}//${el('container')}[@localtype="box"]/@containerid)`), '3900001');
    assert.equal(xpath(xml, `//${el('c03')}//${el('container')}[@localtype="folder"]/@parent = //${el('c03')}//${el('container')}[@localtype="box"]/@id`), 'true');
    assert.equal(xpath(xml, `string(//${el('c03')}//${el('unitdatestructured')}//${el('todate')}/@standarddate)`), '1920');
    assert.ok(xpath(xml, `string(//${el('c03')}//${el('dao')}/@href)`), 'the digital object as dao');
    assert.equal(xpath(xml, `string(//${el('c04')}/${el('scopecontent')}/${el('head')})`), 'Scope and Contents');
    assert.equal(xpath(xml, `string(//${el('c04')}//${el('chronitem')}[2]/${el('datesingle')})`), '1911');
    assert.equal(xpath(xml, `string(//${el('c04')}//${el('chronitem')}[2]//${el('event')}[2])`), 'Solvay conference');
    assert.equal(xpath(xml, `string(//${el('c04')}//${el('list')}[@listtype="ordered"]/@numeration)`), 'decimal');
    assert.equal(xpath(xml, `string(//${el('c04')}/${el('index')}//${el('persname')}/${el('part')})`), 'Curie, Pierre');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('did')}/${el('origination')}[@label="Creator"]/${el('persname')}/@relator)`), 'aut');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('controlaccess')}/${el('subject')}/@source)`), 'lcsh');
    assert.equal(xpath(xml, `string(//${el('archdesc')}/${el('controlaccess')}/${el('geogname')}/${el('part')})`), 'Paris (France)');
  });

  it('prints a PDF finding aid (.pdf and print_pdf=true): title page, overview, every published component in order', async () => {
    const pdf = async (url: string, query: Record<string, unknown> = {}) => t.http.get(url).query(query).set(H)
      .buffer(true).parse((r, done) => { const parts: Buffer[] = []; r.on('data', (c: Buffer) => parts.push(c)); r.on('end', () => done(null, Buffer.concat(parts))); });
    const res = await pdf(`${base}/resource_descriptions/${f.resource}.pdf`);
    assert.equal(res.status, 200, String(res.body));
    assert.match(String(res.headers['content-type']), /application\/pdf/);
    const bytes = res.body as Buffer;
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    assert.match(bytes.subarray(-8).toString(), /%%EOF/);
    const text = pdfText(bytes);
    assert.ok(pdfPages(bytes) >= 3, 'a title page, the overview and the container list');
    assert.match(text, /Guide to the Marie Curie papers/);
    assert.match(text, /Collection Overview/);
    assert.match(text, /Scope and Contents/);
    assert.match(text, /Container List/);
    let at = -1;
    for (const c of published) {
      const title = c.title.replace(/<[^>]+>/g, '');
      const found = text.indexOf(title.slice(0, 20), at + 1);
      assert.ok(found > at, `${title} after the component before it`);
      at = found;
    }
    assert.doesNotMatch(text, /NOT-FOR-PUBLIC/);
    assert.match(pdfText((await pdf(`${base}/resource_descriptions/${f.resource}.xml`, { print_pdf: true })).body), /Container List/);
    assert.match(pdfText((await pdf(`${base}/resource_descriptions/${f.resource}.pdf`, { include_unpublished: true })).body), /NOT-FOR-PUBLIC/);
    assert.equal((await t.http.get(`${base}/resource_descriptions/999999.pdf`).set(H)).status, 404);
    assert.equal((await t.http.get(`${base}/resource_descriptions/${f.resource}.pdf`).query({ include_unpublished: 'perhaps' }).set(H)).status, 400);
    const meta = await t.http.get(`${base}/resource_descriptions/${f.resource}.pdf/metadata`).set(H);
    assert.equal(meta.body.mimetype, 'application/pdf');
  });

  it('answers 404 for unknown and suppressed resources, 403 without view_repository, 400 for bad parameters', async () => {
    const { nobody, viewer } = await viewerAndNobody(t, f.repo, 'ead');
    assert.equal((await ead({}, viewer)).status, 200);
    assert.equal((await ead({}, nobody)).status, 403);
    assert.equal((await t.http.get(`${base}/resource_descriptions/999999.xml`).set(H)).status, 404);
    assert.equal((await t.http.get(`${base}/resource_descriptions/${f.suppressedResource}.xml`).set(H)).status, 404);
    const bad = await t.http.get(`${base}/resource_descriptions/${f.resource}.xml`).query({ include_daos: 'maybe' }).set(H);
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.include_daos, bad.text);
    assert.equal((await t.http.get(`/repositories/99999/resource_descriptions/${f.resource}.xml`).set(H)).status, 400);
    const ead3 = await t.http.get(`${base}/resource_descriptions/${f.resource}.xml`).query({ ead3: 'sometimes' }).set(H);
    assert.deepEqual([ead3.status, Object.keys(ead3.body.error)], [400, ['ead3']]);
    assert.equal((await t.http.get(`${base}/resource_descriptions/999999.xml`).query({ ead3: true }).set(H)).status, 404);
  });

  it('answers the metadata routes with ArchivesSpace file names', async () => {
    const meta = await t.http.get(`${base}/resource_descriptions/${f.resource}.xml/metadata`).set(H);
    assert.equal(meta.status, 200, meta.text);
    assert.equal(meta.body.mimetype, 'application/xml');
    assert.match(meta.body.filename, /^MS\.0042_\d{8}_\d{6}_UTC__ead\.xml$/);
    const labels = await t.http.get(`${base}/resource_labels/${f.resource}.tsv/metadata`).set(H);
    assert.equal(labels.body.mimetype, 'text/tab-separated-values');
    assert.equal((await t.http.get(`${base}/resource_descriptions/12x.xml/metadata`).set(H)).status, 404);
  });

  it('writes container labels as TSV, one row per container and series', async () => {
    const res = await t.http.get(`${base}/resource_labels/${f.resource}.tsv`).set(H);
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-type']), /text\/tab-separated-values/);
    const rows = res.text.trim().split('\n').map((line) => line.split('\t'));
    assert.equal(rows[0][0], 'Repository Name');
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[1].slice(0, 4), ['Special Collections EAD', 'Marie Curie papers', 'MS-0042', 'Correspondence, 1895 - 1934']);
    assert.deepEqual(rows[1].slice(6, 10), ['box: 1', '3900001', 'folder:7', 'reel:a']);
  });
});

describe(`archive-records export-ead (${STORE})`, function () {
  this.timeout(180_000);
  let t: TestApp;
  let dir: string;
  let env: Record<string, string>;
  let repo: number;
  let published: number;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-ead-'));
    // The verb runs as its own process: the store must be one it can open (a file, or the MariaDB database).
    t = await startTestApp(STORE === 'sqlite' ? { DB_URL: `sqlite://${path.join(dir, 'store.db')}` } : {});
    env = { DB_URL: t.config.dbUrl, SEARCH_PATH: path.join(dir, 'search.db'), INDEXER: 'off' };
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await t.http.post('/repositories').set(H).send({ repo_code: 'CLI', name: 'Command line' })).body.id;
    const resource = (title: string, publish: boolean) => t.http.post(`/repositories/${repo}/resources`).set(H).send({
      title, publish, id_0: title.slice(0, 6), level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }],
      extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }], lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }],
      finding_aid_language: 'eng', finding_aid_script: 'Latn',
    });
    published = (await resource('Published papers', true)).body.id;
    await resource('Draft papers', false);
  });
  after(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes one resource to a file, and every published resource into a folder, valid EAD', async () => {
    const one = path.join(dir, 'one.xml');
    const ran = await cli(['export-ead', '--repo', String(repo), '--resource', String(published), '--out', one], env);
    assert.equal(ran.code, 0, ran.stderr);
    assertValid(fs.readFileSync(one, 'utf8'), 'ead.xsd');
    const three = path.join(dir, 'three.xml');
    const ran3 = await cli(['export-ead', '--repo', String(repo), '--resource', String(published), '--ead3', '--out', three], env);
    assert.equal(ran3.code, 0, ran3.stderr);
    assertValid(fs.readFileSync(three, 'utf8'), 'ead3.xsd');
    const printed = path.join(dir, 'printed.pdf');
    const ranPdf = await cli(['export-ead', '--repo', String(repo), '--resource', String(published), '--pdf', '--out', printed], env);
    assert.equal(ranPdf.code, 0, ranPdf.stderr);
    assert.match(pdfText(fs.readFileSync(printed)), /Container List/);
    const folder = path.join(dir, 'all');
    const bulk = await cli(['export-ead', '--repo', String(repo), '--all-published', '--out', folder], env);
    assert.equal(bulk.code, 0, bulk.stderr);
    assert.deepEqual(fs.readdirSync(folder), [`resource_${published}_ead.xml`]);
    const missing = await cli(['export-ead', '--repo', String(repo), '--resource', '999999', '--out', path.join(dir, 'none.xml')], env);
    assert.equal(missing.code, 1);
    assert.equal(fs.existsSync(path.join(dir, 'none.xml')) || fs.existsSync(path.join(dir, 'none.xml.partial')), false);
    const bad = await cli(['export-ead', '--repo', 'two', '--resource', '1'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--repo takes a number/);
  });
});
