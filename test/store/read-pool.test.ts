/**
 * Reads never wait behind writes: on a SQLite file store every read route reads through read
 * connections of its own (Database.reads), not the writer's one connection, so a long write
 * transaction (an import) leaves listings, search, trees, find_by_id, jobs and OAI answering with
 * the last commit; on MariaDB through other pooled connections. A client reads its own writes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { servedEndpoints } from '../../src/openapi';
import { createRepository, startTestApp, STORE, type TestApp } from '../helpers';

/** A finding aid of `n` components under one collection: series of 100 files. */
function ead(n: number, unitid: string): string {
  const parts: string[] = [];
  for (let s = 0; s * 100 < n; s++) {
    parts.push(`<c01 level="series"><did><unittitle>Series ${s}</unittitle></did>`);
    for (let f = 0; f < Math.min(99, n - s * 100 - 1); f++) parts.push(`<c02 level="file"><did><unittitle>File ${s}.${f}</unittitle><unitdate>1950</unitdate></did></c02>`);
    parts.push('</c01>');
  }
  return `<?xml version="1.0" encoding="UTF-8"?><ead xmlns="urn:isbn:1-931666-22-9"><eadheader><eadid>${unitid}</eadid><filedesc><titlestmt><titleproper>Big</titleproper></titlestmt></filedesc></eadheader>`
    + `<archdesc level="collection"><did><unittitle>Big import</unittitle><unitid>${unitid}</unitid><unitdate normal="1900/1990">1900-1990</unitdate>`
    + `<physdesc><extent>1 linear feet</extent></physdesc><langmaterial><language langcode="eng">English</language></langmaterial></did><dsc>${parts.join('')}</dsc></archdesc></ead>`;
}

describe(`read routes beside a long write (${STORE})`, function () {
  this.timeout(300_000);
  let t: TestApp;
  let dir: string;
  let H: Record<string, string>;
  let repo: number;
  let resource: { id: number; uri: string };
  let accessionUri: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-read-pool-'));
    t = await startTestApp(STORE === 'sqlite' ? { DB_URL: `sqlite://${path.join(dir, 'archive.db')}` } : {});
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = await createRepository(t);
    const acc = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'RP', id_1: '1', title: 'Committed title', accession_date: '2020-01-01', publish: true });
    assert.equal(acc.status, 200, acc.text);
    accessionUri = acc.body.uri;
    const res = await t.http.post(`/repositories/${repo}/resources`).set(H).send({
      title: 'Tree', id_0: 'RPT', level: 'collection', publish: true, finding_aid_language: 'eng', finding_aid_script: 'Latn', lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }],
      dates: [{ date_type: 'single', label: 'creation', expression: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    });
    assert.equal(res.status, 200, res.text);
    resource = { id: res.body.id, uri: res.body.uri };
    const child = await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'Child', level: 'file', resource: { ref: resource.uri } });
    assert.equal(child.status, 200, child.text);
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers every kind of read route while another transaction holds the writer, with the committed state', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    // A long write through the store's own transactions (on SQLite: its one writer connection).
    const writing = t.services.db.transaction(async (trx) => {
      await trx('records').where({ uri: accessionUri }).update({ json: JSON.stringify({ uri: accessionUri, title: 'Uncommitted title', jsonmodel_type: 'accession' }) });
      entered();
      await held;
      throw new Error('rolled back on purpose');
    }).catch((err: Error) => err.message);
    await inside;
    try {
      const reads: Array<[string, Record<string, string | string[]>]> = [
        [`/repositories/${repo}/accessions`, { page: '1' }],
        [`/repositories/${repo}/accessions`, { all_ids: 'true' }],
        [`/repositories/${repo}/accessions`, { id_set: '1,2,3' }],
        [`/repositories/${repo}/search`, { q: 'Committed', page: '1' }],
        [`${resource.uri}/tree/root`, {}],
        [`${resource.uri}/tree/node`, { node_uri: `/repositories/${repo}/archival_objects/1` }],
        [`/repositories/${repo}/find_by_id/resources`, { 'identifier[]': ['["RPT"]'] }],
        [`/repositories/${repo}/jobs`, { page: '1' }],
        [accessionUri, { 'resolve[]': ['subjects'] }],
        ['/oai', { verb: 'Identify' }],
        ['/oai', { verb: 'ListIdentifiers', metadataPrefix: 'oai_dc' }],
        [`/repositories/${repo}/resources/${resource.id}/tree`, {}],
        ['/update-feed', {}],
      ];
      for (const [url, query] of reads) {
        const started = Date.now();
        const res = await t.http.get(url).query(query).set(H);
        const ms = Date.now() - started;
        assert.ok([200, 400, 404].includes(res.status), `${url}: ${res.status} ${res.text}`);
        assert.ok(ms < 3000, `${url} waited ${ms} ms for the writer`);
        assert.doesNotMatch(res.text, /Uncommitted title/, `${url} read the open transaction`);
      }
      const page = await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1 }).set(H);
      assert.equal(page.status, 200);
      assert.deepEqual(page.body.results.map((r: { title: string }) => r.title), ['Committed title']);
    } finally {
      release();
    }
    assert.equal(await writing, 'rolled back on purpose');
  });

  it("answers a read whose session's activity is due while the writer is held, and notes the activity after", async () => {
    await t.http.post('/users').query({ password: 'pw' }).set(H).send({ username: 'reader', name: 'Reader' }).expect(200);
    const login = await t.http.post('/users/reader/login').query({ password: 'pw' });
    const token = login.body.session as string;
    assert.equal((await t.http.get('/users/current-user').set({ 'X-ArchivesSpace-Session': token })).status, 200);
    const lastActive = async () => Number((await t.services.db.reads('sessions').where({ username: 'reader' }).first('last_active_ms')).last_active_ms);
    const first = await lastActive();
    // Past the interval after which a request notes the session's activity (a write).
    await new Promise((r) => setTimeout(r, 5200));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const writing = t.services.db.transaction(async () => {
      entered();
      await held;
    });
    await inside;
    try {
      const started = Date.now();
      const res = await t.http.get('/users/current-user').set({ 'X-ArchivesSpace-Session': token });
      assert.equal(res.status, 200, res.text);
      assert.ok(Date.now() - started < 3000, `the read waited ${Date.now() - started} ms for the writer`);
      // SQLite's one writer is held; MariaDB writes it on another pooled connection at once.
      if (STORE === 'sqlite') assert.equal(await lastActive(), first, 'the activity is not written while the writer is held');
    } finally {
      release();
    }
    await writing;
    for (let i = 0; i < 100 && (await lastActive()) === first; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok((await lastActive()) > first, 'the activity is written once the writer is free');
  });

  it('reads nothing through the writer on any GET route (SQLite file store)', async () => {
    if (STORE !== 'sqlite') return;
    // Every GET row of the table, its ids those of records made above (or none): the writer's
    // connection must see no SELECT while it answers (writes, such as a session's activity, may).
    await t.services.jobs!.idle();
    const onWriter: string[] = [];
    let current = '';
    const listen = (q: { sql?: string }) => {
      if (current && /^\s*select/i.test(q.sql ?? '')) onWriter.push(`${current}: ${q.sql!.slice(0, 100)}`);
    };
    t.services.db.knex.on('query', listen);
    try {
      for (const endpoint of servedEndpoints(t.services.registry).filter((e) => e.method === 'get')) {
        const path = endpoint.path.replace(/:(\w+)/g, (_, name: string) => (name === 'repo_id' ? String(repo) : name === 'username' ? 'admin' : name === 'id' ? String(resource.id) : '1'));
        const query: Record<string, unknown> = {};
        for (const param of endpoint.params ?? []) {
          if (!param.required || endpoint.path.includes(`:${param.name}`)) continue;
          const byType: Record<string, unknown> = { integer: '1', 'integer[]': ['1'], 'string[]': ['x'], boolean: 'true', string: 'x' };
          query[param.type.endsWith('[]') ? `${param.name}[]` : param.name] = byType[param.type];
        }
        if (endpoint.paginated) query.page = 1;
        current = `GET ${endpoint.path}`;
        await t.http.get(path).query(query).set(H);
        current = '';
      }
    } finally {
      t.services.db.knex.off('query', listen);
    }
    assert.deepEqual(onWriter, []);
  });

  it('reads its own writes: a listing, a count and a tree right after each create, update and delete', async () => {
    const listed = async () => (await t.http.get(`/repositories/${repo}/accessions`).query({ page: 1, page_size: 100 }).set(H)).body;
    const before = (await listed()).total;
    const uris: string[] = [];
    for (let i = 0; i < 10; i++) {
      const made = await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'RYW', id_1: String(i), title: `Mine ${i}`, accession_date: '2020-01-01' });
      assert.equal(made.status, 200, made.text);
      uris.push(made.body.uri);
      const page = await listed();
      assert.equal(page.total, before + i + 1, 'the count right after a create');
      assert.ok(page.results.some((r: { uri: string }) => r.uri === made.body.uri), 'the listing right after a create');
    }
    const current = (await t.http.get(uris[0]).set(H)).body;
    assert.equal((await t.http.post(uris[0]).set(H).send({ ...current, title: 'Mine renamed' })).status, 200);
    assert.ok((await listed()).results.some((r: { title: string }) => r.title === 'Mine renamed'), 'the listing right after an update');
    assert.equal((await t.http.delete(uris[1]).set(H)).status, 200);
    const afterDelete = await listed();
    assert.equal(afterDelete.total, before + 9, 'the count right after a delete');
    assert.ok(!afterDelete.results.some((r: { uri: string }) => r.uri === uris[1]));
    const childCount = async () => (await t.http.get(`${resource.uri}/tree/root`).set(H)).body.child_count;
    const children = await childCount();
    const child = await t.http.post(`/repositories/${repo}/archival_objects`).set(H).send({ title: 'Another child', level: 'file', resource: { ref: resource.uri } });
    assert.equal(child.status, 200, child.text);
    assert.equal(await childCount(), children + 1, 'a tree right after a create');
    const made = await t.http.post(`/repositories/${repo}/resources`).set(H).send({
      title: 'Found', id_0: 'RYWR', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn', lang_materials: [{ language_and_script: { language: 'eng', script: 'Latn' } }],
      dates: [{ date_type: 'single', label: 'creation', expression: '1900' }], extents: [{ portion: 'whole', number: '1', extent_type: 'linear_feet' }],
    });
    assert.equal(made.status, 200, made.text);
    const found = await t.http.get(`/repositories/${repo}/find_by_id/resources`).query({ 'identifier[]': ['["RYWR"]'] }).set(H);
    assert.deepEqual(found.body.resources, [{ ref: made.body.uri }], 'find_by_id right after a create');
    const job = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
      .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['small.xml'] } }))
      .attach('files[]', Buffer.from(ead(3, 'ryw-job')), 'small.xml');
    assert.equal(job.status, 200, job.text);
    assert.ok((await t.http.get(`/repositories/${repo}/jobs`).query({ page: 1 }).set(H)).body.results.some((j: { uri: string }) => j.uri === job.body.uri), 'the jobs listing right after a submission');
    await t.services.jobs!.idle();
  });

  it('refuses a bad number of read connections with a clear message', async () => {
    if (STORE !== 'sqlite') return;
    const saved = process.env.SQLITE_READ_CONNECTIONS;
    process.env.SQLITE_READ_CONNECTIONS = 'many';
    try {
      await assert.rejects(startTestApp({ DB_URL: `sqlite://${path.join(dir, 'other.db')}` }), /SQLITE_READ_CONNECTIONS must be a whole number/);
    } finally {
      if (saved === undefined) delete process.env.SQLITE_READ_CONNECTIONS;
      else process.env.SQLITE_READ_CONNECTIONS = saved;
    }
  });

  it("answers a listing during an import job's open transaction, without the import's records", async () => {
    const resources = async () => (await t.http.get(`/repositories/${repo}/resources`).query({ page: 1 }).set(H)).body.total as number;
    const before = await resources();
    // Whether a transaction that wrote is open in the store (the import's: nothing else writes
    // meanwhile). SQLite: another connection cannot take the write lock. MariaDB: InnoDB lists it.
    const probe = STORE === 'sqlite' ? new BetterSqlite3(path.join(dir, 'archive.db')) : undefined;
    probe?.pragma('busy_timeout = 0');
    const writing = async (): Promise<boolean> => {
      if (!probe) {
        const [rows] = await t.services.db.knex.raw('SELECT COUNT(*) AS n FROM information_schema.innodb_trx x JOIN information_schema.processlist p ON p.id = x.trx_mysql_thread_id WHERE p.db = DATABASE() AND x.trx_rows_modified > 0');
        return Number(rows[0].n) > 0;
      }
      try {
        probe.prepare('BEGIN IMMEDIATE').run();
        probe.prepare('ROLLBACK').run();
        return false;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
        return true;
      }
    };
    // MariaDB: the resources committed, read apart from the server. InnoDB's list of transactions
    // is a snapshot kept up to 0.1 s, so `writing()` after the listing can still name an import
    // that committed while the listing ran (seen on a Galera node): that the import's resource is
    // still not committed says the listing was answered before its commit.
    const committed = async () => Number((await t.services.db.knex('records').where({ type: 'resource', repo_id: repo }).count({ n: '*' }))[0].n);
    const committedBase = probe ? 0 : await committed();
    // Up to three imports: a loaded machine can let one import's transaction end between the
    // probe and the listing's answer (on MariaDB the import's rows are held until near its end).
    let imports = 0;
    let answeredInside = false;
    try {
      while (!answeredInside && imports < (STORE === 'sqlite' ? 3 : 1)) {
        imports++;
        const submitted = await t.http.post(`/repositories/${repo}/jobs_with_files`).set(H)
          .field('job', JSON.stringify({ job_type: 'import_job', job: { jsonmodel_type: 'import_job', import_type: 'ead_xml', filenames: ['big.xml'] } }))
          .attach('files[]', Buffer.from(ead(10_000, `big-import-${imports}`)), 'big.xml');
        assert.equal(submitted.status, 200, submitted.text);
        const status = async () => (await t.http.get(submitted.body.uri).set(H)).body.status as string;
        // A listing asked and answered while the import's transaction stayed open: it did not wait
        // for the commit, and does not show the import's resource. Had it waited, the transaction
        // would be over when it answered.
        for (let state = await status(); !answeredInside && (state === 'queued' || state === 'running'); state = await status()) {
          if (!(await writing())) {
            await new Promise((r) => setTimeout(r, 10));
            continue;
          }
          const started = Date.now();
          const total = await resources();
          const ms = Date.now() - started;
          if (!(await writing())) continue;
          if (!probe && (await committed()) !== committedBase + imports - 1) continue;
          assert.equal(total, before + imports - 1, "a listing read the import's open transaction");
          assert.ok(ms < 3000, `the listing waited ${ms} ms`);
          answeredInside = true;
        }
        await t.services.jobs!.idle();
        assert.equal(await status(), 'completed');
      }
      // On MariaDB an import holds its rows back and writes them near its end, so InnoDB lists its
      // transaction as writing only briefly; its reads never queued behind writers (MVCC) anyway.
      if (STORE === 'sqlite') assert.ok(answeredInside, 'no listing was answered while an import held its transaction (three imports tried)');
    } finally {
      probe?.close();
    }
    assert.equal(await resources(), before + imports, 'the import, once committed, is read at once');
  });
});
