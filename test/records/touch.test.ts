import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, STORE, TestApp } from '../helpers';

/**
 * ArchivesSpace's touch of related records (x-archive.touches): a change to a component, a digital
 * object or a top container gives the collections it belongs to a new system_mtime (not a new
 * lock_version), so that a harvester asking what changed since (modified_since, OAI-PMH from)
 * finds them, whatever route or job made the change.
 */
describe(`touch of related records (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: number;
  let base: string;
  /** The second every change below is made in or after: modified_since of the listings. */
  let since: number;

  const RESOURCE = {
    level: 'collection', dates: [{ date_type: 'single', label: 'creation', begin: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    lang_materials: [{ language_and_script: { language: 'eng' } }], finding_aid_language: 'eng', finding_aid_script: 'Latn', publish: true,
  };
  let made = 0;
  const post = async (uri: string, body: object | null, query: Record<string, string | number> = {}) => {
    const res = await t.http.post(uri).query(query).set(H).send(body ?? undefined);
    assert.equal(res.status, 200, `${uri}: ${res.text}`);
    return res.body;
  };
  const get = async (uri: string) => {
    const res = await t.http.get(uri).set(H);
    assert.equal(res.status, 200, `${uri}: ${res.text}`);
    return res.body;
  };
  const resource = async () => (await post(`${base}/resources`, { ...RESOURCE, id_0: `T${++made}`, title: `Papers ${made}` })).uri as string;
  const component = async (root: string, extra: object = {}) =>
    (await post(`${base}/archival_objects`, { title: `File ${++made}`, level: 'file', resource: { ref: root }, ...extra })).uri as string;
  const digitalObject = async () => (await post(`${base}/digital_objects`, { digital_object_id: `DO-${++made}`, title: `Scan ${made}` })).uri as string;
  const doComponent = async (root: string, extra: object = {}) =>
    (await post(`${base}/digital_object_components`, { title: `Page ${++made}`, digital_object: { ref: root }, ...extra })).uri as string;
  const box = async () => (await post(`${base}/top_containers`, { type: 'box', indicator: String(++made) })).uri as string;
  const boxInstance = (uri: string) => ({ instance_type: 'mixed_materials', sub_container: { top_container: { ref: uri } } });
  const doInstance = (uri: string) => ({ instance_type: 'digital_object', digital_object: { ref: uri } });
  const idOf = (uri: string) => Number(uri.split('/').pop());
  const update = async (uri: string, change: (record: any) => void) => {
    const record = await get(uri);
    change(record);
    await post(uri, record);
  };

  /** The ids a harvester's listing of a type changed since `since` answers. */
  const changedIds = async (plural: string) => {
    const res = await t.http.get(`${base}/${plural}`).query({ all_ids: true, modified_since: since }).set(H);
    assert.equal(res.status, 200, res.text);
    return res.body as number[];
  };

  /**
   * A touching change: what it should touch (a collection, a digital object) is not listed as
   * changed before it, is listed after it, keeps its lock_version and shows the new system_mtime.
   */
  interface Case {
    name: string;
    /** Makes the records; answers the change and the records it touches. */
    prepare(): Promise<{ change: () => Promise<void>; touched: string[] }>;
  }
  const cases: Case[] = [];
  const prepared = new Map<string, { change: () => Promise<void>; touched: string[]; locks: number[] }>();
  const add = (name: string, prepare: Case['prepare']) => cases.push({ name, prepare });

  // Archival objects touch their resource.
  add('archival object created', async () => {
    const r = await resource();
    return { change: async () => { await component(r); }, touched: [r] };
  });
  add('archival object updated', async () => {
    const r = await resource();
    const ao = await component(r);
    return { change: () => update(ao, (rec) => { rec.title = 'Retitled'; }), touched: [r] };
  });
  add('archival object moved', async () => {
    const r = await resource();
    const [a, b] = [await component(r), await component(r)];
    return { change: async () => { await post(`${b}/parent`, null, { parent: idOf(a), position: 0 }); }, touched: [r] };
  });
  add('archival object published', async () => {
    const r = await resource();
    const ao = await component(r, { publish: false });
    return { change: async () => { await post(`${ao}/publish`, null); }, touched: [r] };
  });
  add('archival object suppressed', async () => {
    const r = await resource();
    const ao = await component(r);
    return { change: async () => { await post(`${ao}/suppressed`, null, { suppressed: 'true' }); }, touched: [r] };
  });
  add('archival object deleted', async () => {
    const r = await resource();
    const ao = await component(r);
    return { change: async () => { assert.equal((await t.http.delete(ao).set(H)).status, 200); }, touched: [r] };
  });
  add('archival object moved to another resource (component transfer): the resource it joins', async () => {
    const [from, to] = [await resource(), await resource()];
    const ao = await component(from);
    return { change: async () => { await post(`${base}/component_transfers`, null, { target_resource: to, component: ao }); }, touched: [to] };
  });

  // Digital object components touch their digital object and the resources whose components link it.
  const linkedDigitalObject = async () => {
    const r = await resource();
    const dobj = await digitalObject();
    await component(r, { instances: [doInstance(dobj)] });
    return { r, dobj };
  };
  add('digital object component created', async () => {
    const { r, dobj } = await linkedDigitalObject();
    return { change: async () => { await doComponent(dobj); }, touched: [r, dobj] };
  });
  add('digital object component updated', async () => {
    const { r, dobj } = await linkedDigitalObject();
    const part = await doComponent(dobj);
    return { change: () => update(part, (rec) => { rec.title = 'Page one'; }), touched: [r, dobj] };
  });
  add('digital object component moved', async () => {
    const { r, dobj } = await linkedDigitalObject();
    const [a, b] = [await doComponent(dobj), await doComponent(dobj)];
    return { change: async () => { await post(`${b}/parent`, null, { parent: idOf(a), position: 0 }); }, touched: [r, dobj] };
  });
  add('digital object component suppressed', async () => {
    const { r, dobj } = await linkedDigitalObject();
    const part = await doComponent(dobj);
    return { change: async () => { await post(`${part}/suppressed`, null, { suppressed: 'true' }); }, touched: [r, dobj] };
  });
  add('digital object component deleted', async () => {
    const { r, dobj } = await linkedDigitalObject();
    const part = await doComponent(dobj);
    return { change: async () => { assert.equal((await t.http.delete(part).set(H)).status, 200); }, touched: [r, dobj] };
  });

  // Digital objects touch the resources whose components link them.
  add('digital object updated', async () => {
    const { r, dobj } = await linkedDigitalObject();
    return { change: () => update(dobj, (rec) => { rec.title = 'Rescanned'; }), touched: [r] };
  });
  add('digital object published', async () => {
    const { r, dobj } = await linkedDigitalObject();
    return { change: async () => { await post(`${dobj}/publish`, null); }, touched: [r] };
  });
  add('digital object suppressed', async () => {
    const { r, dobj } = await linkedDigitalObject();
    return { change: async () => { await post(`${dobj}/suppressed`, null, { suppressed: 'true' }); }, touched: [r] };
  });
  add('digital object deleted', async () => {
    const { r, dobj } = await linkedDigitalObject();
    return { change: async () => { assert.equal((await t.http.delete(dobj).set(H)).status, 200); }, touched: [r] };
  });

  // Top containers touch the resources linking them directly and through their components.
  add('top container updated', async () => {
    const [direct, throughComponent] = [await resource(), await resource()];
    const b = await box();
    await update(direct, (rec) => { rec.instances = [boxInstance(b)]; });
    await component(throughComponent, { instances: [boxInstance(b)] });
    return { change: () => update(b, (rec) => { rec.indicator = 'Renumbered'; }), touched: [direct, throughComponent] };
  });
  add('top container deleted', async () => {
    const r = await resource();
    const b = await box();
    await component(r, { instances: [boxInstance(b)] });
    return { change: async () => { assert.equal((await t.http.delete(b).set(H)).status, 200); }, touched: [r] };
  });
  add('top containers merged', async () => {
    const r = await resource();
    const [keep, dup] = [await box(), await box()];
    await component(r, { instances: [boxInstance(dup)] });
    return {
      change: async () => { await post('/merge_requests/top_container', { merge_destination: { ref: keep }, merge_candidates: [{ ref: dup }] }, { repo_id: repo }); },
      touched: [r],
    };
  });

  // Batch imports: a hundred components written in one transaction touch their resource once.
  add('archival objects of a batch import', async () => {
    const r = await resource();
    return {
      change: async () => {
        const records = Array.from({ length: 100 }, (_, i) => ({
          jsonmodel_type: 'archival_object', uri: `/repositories/import/archival_objects/import_${i}`, title: `Batch ${i}`, level: 'file', resource: { ref: r },
        }));
        const res = await t.http.post(`${base}/batch_imports`).set(H).send(records);
        assert.equal(res.status, 200, res.text);
        assert.equal(await changeLogEntries(r), 1, 'one change-log entry for the resource');
      },
      touched: [r],
    };
  });

  let changesBefore: Map<string, number>;
  /** The change-log entries of `uri` written since the changes began. */
  const changeLogEntries = async (uri: string) => {
    const rows = await t.services.db.knex('change_log').where({ uri }).count({ n: '*' }).first();
    return Number(rows?.n ?? 0) - (changesBefore.get(uri) ?? 0);
  };

  let untouched: string;
  before(async () => {
    t = await startTestApp();
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = (await post('/repositories', { repo_code: 'TOUCH', name: 'Touches', publish: true })).id;
    base = `/repositories/${repo}`;
    for (const c of cases) {
      const p = await c.prepare();
      const locks = await Promise.all(p.touched.map(async (uri) => (await get(uri)).lock_version as number));
      prepared.set(c.name, { ...p, locks });
    }
    // A collection nothing below touches.
    untouched = await resource();
    await component(untouched);
    changesBefore = new Map();
    for (const row of await t.services.db.knex('change_log').groupBy('uri').select('uri').count({ n: '*' })) changesBefore.set(row.uri, Number(row.n));
    // Every change below happens in a second after everything made above.
    since = Math.floor(Date.now() / 1000) + 1;
    await new Promise((resolve) => setTimeout(resolve, since * 1000 - Date.now()));
  });
  after(() => t?.close());

  for (const c of cases) {
    it(`${c.name}: touches ${c.name.startsWith('digital object component') ? 'its digital object and the resource' : 'the resource'}, lock_version kept`, async () => {
      const p = prepared.get(c.name)!;
      for (const uri of p.touched) {
        const plural = uri.split('/')[3];
        assert.ok(!(await changedIds(plural)).includes(idOf(uri)), `${uri} listed as changed before the change`);
      }
      await p.change();
      for (const [i, uri] of p.touched.entries()) {
        const plural = uri.split('/')[3];
        assert.ok((await changedIds(plural)).includes(idOf(uri)), `${uri} not listed as changed since ${since}`);
        const record = await get(uri);
        assert.equal(record.lock_version, p.locks[i], `${uri}: lock_version`);
        assert.ok(Date.parse(record.system_mtime) >= since * 1000, `${uri}: system_mtime ${record.system_mtime}`);
        assert.ok(await changeLogEntries(uri) >= 1, `${uri}: a change-log entry`);
      }
    });
  }

  it('imports an EAD file as a job: its resource is written once, not touched again by its components', async () => {
    const ead = [path.resolve(__dirname, '..', '..', '..', 'shared', 'corpus', 'ead', 'nyu_ferris.xml'), '/work/shared/corpus/ead/nyu_ferris.xml'].find((f) => fs.existsSync(f));
    const file = ead ? fs.readFileSync(ead) : Buffer.from(
      '<ead xmlns="urn:isbn:1-931666-22-9"><eadheader><eadid>t1</eadid><filedesc><titlestmt><titleproper>T</titleproper></titlestmt></filedesc></eadheader>'
      + '<archdesc level="collection"><did><unittitle>Imported papers</unittitle><unitid>EAD-1</unitid><unitdate normal="1900/1901">1900-1901</unitdate>'
      + '<physdesc><extent>1 linear_feet</extent></physdesc><langmaterial><language langcode="eng"/></langmaterial></did>'
      + '<dsc><c level="file"><did><unittitle>One</unittitle></did></c><c level="file"><did><unittitle>Two</unittitle></did></c></dsc></archdesc></ead>');
    const res = await t.http.post(`${base}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['touch.xml'] } }))
      .attach('files[]', file, 'touch.xml');
    assert.equal(res.status, 200, res.text);
    await t.services.jobs!.idle();
    const job = await get(res.body.uri);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const records = (await t.http.get(`${res.body.uri}/records`).query({ page: 1 }).set(H)).body.results;
    const r = records.map((x: any) => x.record.ref as string).find((u: string) => /\/resources\/\d+$/.test(u));
    assert.ok(r, 'the imported resource');
    assert.ok((await changedIds('resources')).includes(idOf(r)));
    assert.equal(await changeLogEntries(r), 1);
    // Then a change to one of its components touches it, as any change does.
    const tree = await get(`${r}/tree/root`);
    const first = tree.precomputed_waypoints[''][0][0].uri as string;
    const lock = (await get(r)).lock_version;
    await update(first, (rec) => { rec.title = 'Retitled after import'; });
    assert.equal(await changeLogEntries(r), 2);
    assert.equal((await get(r)).lock_version, lock);
  });

  it('lists a collection whose component changed in OAI-PMH ListIdentifiers from=', async () => {
    const r = await resource();
    const ao = await component(r, { publish: true });
    const from = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000);
    await new Promise((resolve) => setTimeout(resolve, from.getTime() - Date.now()));
    const identifiers = async () => {
      const res = await t.http.get('/oai').query({ verb: 'ListIdentifiers', metadataPrefix: 'oai_ead', from: from.toISOString().replace(/\.\d{3}Z$/, 'Z') });
      assert.equal(res.status, 200);
      return [...res.text.matchAll(/<identifier>([^<]+)<\/identifier>/g)].map((m) => m[1]);
    };
    assert.ok(!(await identifiers()).some((id) => id.endsWith(r)));
    await update(ao, (rec) => { rec.title = 'Retitled for OAI'; });
    assert.ok((await identifiers()).some((id) => id.endsWith(r)), 'the resource harvested from the time of the change');
  });

  it('touches nothing a change does not lead to, and leaves what a transaction wrote itself alone', async () => {
    assert.ok(!(await changedIds('resources')).includes(idOf(untouched)));
    // A resource published with its tree is written, and its components' touches add nothing.
    const r = await resource();
    await component(r, { publish: false });
    const entries = await changeLogEntries(r);
    await post(`${r}/publish`, null);
    assert.equal(await changeLogEntries(r), entries + 1);
  });
});
