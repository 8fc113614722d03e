import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, Database } from '../../src/store/connect';
import { freshDatabase, STORE } from '../helpers';
import { cli, messages, serve, Served, stop } from '../processes';

/** Everything the store keeps of a record, by uri: its row, its tree place and what is derived from it. */
async function storeState(db: Database, uris: string[]): Promise<Map<string, unknown>> {
  const k = db.knex;
  const out = new Map<string, unknown>();
  for (const uri of uris) {
    const row = await k('records as r').leftJoin('records as p', 'p.rid', 'r.parent_rid').where('r.uri', uri)
      .first('r.rid', 'r.type', 'r.id', 'r.repo_id', 'r.json', 'r.lock_version', 'r.create_time_ms', 'r.system_mtime_ms', 'r.user_mtime_ms',
        'r.suppressed', 'r.hidden', 'r.parent_key', 'r.position', 'r.root_uri', 'p.uri as parent_uri');
    if (!row) {
      out.set(uri, undefined);
      continue;
    }
    const rid = row.rid;
    const sorted = (rows: any[]) => rows.map((r) => JSON.stringify(r)).sort();
    out.set(uri, {
      type: row.type, id: Number(row.id), repo_id: Number(row.repo_id), json: row.json, lock_version: Number(row.lock_version),
      times: [row.create_time_ms, row.system_mtime_ms, row.user_mtime_ms].map(Number), suppressed: !!row.suppressed, hidden: !!row.hidden,
      tree: row.parent_key === null ? null : { root: row.root_uri, parent: row.parent_uri, position: Number(row.position), top: row.parent_key.startsWith('root:') },
      unique: sorted(await k('unique_keys').where({ rid }).select('type', 'rule', 'scope', 'key_hash')),
      lookup: sorted(await k('lookup_keys').where({ rid }).select('type', 'param', 'repo_id', 'value_hash')),
      refs: sorted(await k('record_refs').where({ from_rid: rid }).select('property', 'to_uri')),
      members: sorted(await k('group_members').where({ group_rid: rid }).select('repo_id', 'username')),
      grants: sorted(await k('group_grants').where({ group_rid: rid }).select('repo_id', 'permission')),
    });
  }
  return out;
}

describe(`the archive-records command line (${STORE})`, function () {
  this.timeout(300_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-cli-'));
  const databases = ['a', 'b', 'c', 'empty', 'future'].map((name) => {
    if (STORE === 'mariadb') return { name, ...freshDatabase() };
    return { name, dbUrl: `sqlite://${path.join(dir, `${name}.db`)}`, drop: async () => {} };
  });
  const envOf = (name: string) => ({
    DB_URL: databases.find((d) => d.name === name)!.dbUrl, SEARCH_PATH: path.join(dir, `${name}.search.db`), ADMIN_PASSWORD: `admin-${name}`,
  });
  const A = envOf('a');
  const B = envOf('b');
  const C = envOf('c');
  const exportFile = path.join(dir, 'repository.jsonl');
  let served: Served | undefined;
  let servedB: Served | undefined;
  let repo = 0;
  let otherRepo = 0;
  const uris: Record<string, string> = {};

  after(async () => {
    await stop(served);
    await stop(servedB);
    for (const d of databases) await d.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--help lists every verb; an unknown verb is an error with the list at hand', async () => {
    const help = await cli(['--help'], {});
    assert.equal(help.code, 0, help.stderr);
    for (const verb of ['serve', 'migrate', 'create-user', 'reindex', 'indexer', 'export', 'import', 'import-from', 'doctor']) {
      assert.match(help.stdout, new RegExp(`^  ${verb} `, 'm'), verb);
    }
    const unknown = await cli(['frobnicate'], {});
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown command 'frobnicate'/);
  });

  it('migrate prepares an empty store, and finds nothing to do the second time', async () => {
    const first = await cli(['migrate'], A);
    assert.equal(first.code, 0, first.stderr);
    const done = messages(first.stderr).find((m) => m.msg === 'store is migrated');
    assert.ok(done.applied.includes('001_generic_record_store'), first.stderr);
    const again = await cli(['migrate'], A);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(messages(again.stderr).find((m) => m.msg === 'store is migrated').applied, 'none (already current)');
  });

  it('create-user makes users who log in over HTTP (hashed as POST /users does), an administrator with --admin', async () => {
    const alice = await cli(['create-user', 'Alice', '--password-stdin', '--admin', '--name', 'Alice Archivist'], A, 'alice-secret\n');
    assert.equal(alice.code, 0, alice.stderr);
    assert.deepEqual(JSON.parse(alice.stdout), { status: 'Created', id: 2, uri: '/users/2', username: 'alice', admin: true });
    const bob = await cli(['create-user', 'bob', '--password', 'bob-secret'], A);
    assert.equal(bob.code, 0, bob.stderr);
    const again = await cli(['create-user', 'BOB', '--password', 'x'], A);
    assert.equal(again.code, 1);
    assert.match(messages(again.stderr)[0].msg, /Username 'bob' is already in use/);
    const noPassword = await cli(['create-user', 'carol'], A);
    assert.equal(noPassword.code, 1);
    assert.match(noPassword.stderr, /--password or --password-stdin/);

    served = await serve(A, 'alice', 'alice-secret');
    const me = await served.call('GET', '/users/current-user');
    assert.deepEqual([me.body.username, me.body.name, me.body.is_admin], ['alice', 'Alice Archivist', true]);
    const bobLogin = await fetch(`${served.base}/users/bob/login?password=bob-secret`, { method: 'POST' });
    assert.equal(bobLogin.status, 200);
    assert.equal((await bobLogin.json()).user.is_admin, false);
    assert.equal((await fetch(`${served.base}/users/bob/login?password=wrong`, { method: 'POST' })).status, 403);
  });

  it('exports a populated repository while the server runs, and imports it into an empty store: the same records, links, trees and answers', async () => {
    const call = served!.call;
    const ok = async (method: string, p: string, body?: unknown) => {
      const res = await call(method, p, body);
      assert.equal(res.status, 200, `${method} ${p}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    repo = (await ok('POST', '/repositories', { repo_code: 'MSS', name: 'Manuscripts' })).id;
    otherRepo = (await ok('POST', '/repositories', { repo_code: 'OTHER', name: 'Another repository' })).id;
    const r = `/repositories/${repo}`;
    uris.subject = (await ok('POST', '/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Rivers', term_type: 'topical', vocabulary: '/vocabularies/1' }] })).uri;
    uris.unlinkedSubject = (await ok('POST', '/subjects', { source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Unused', term_type: 'topical', vocabulary: '/vocabularies/1' }] })).uri;
    uris.person = (await ok('POST', '/agents/people', { names: [{ primary_name: 'Person', name_order: 'direct', sort_name: 'Person, A.' }] })).uri;
    uris.location = (await ok('POST', '/locations', { building: 'Main', room: '101', barcode: 'L-1' })).uri;
    uris.profile = (await ok('POST', '/container_profiles', { name: 'Box', dimension_units: 'inches', extent_dimension: 'width', depth: '15', height: '10', width: '5' })).uri;
    uris.box = (await ok('POST', `${r}/top_containers`, {
      indicator: 'Box 1', barcode: 'B-1', container_profile: { ref: uris.profile },
      container_locations: [{ status: 'current', start_date: '2024-01-01', ref: uris.location }],
    })).uri;
    uris.a1 = (await ok('POST', `${r}/accessions`, {
      id_0: '2024', id_1: '001', title: 'Papers of A. Person', accession_date: '2024-05-01',
      subjects: [{ ref: uris.subject }], linked_agents: [{ role: 'creator', ref: uris.person }],
    })).uri;
    uris.a2 = (await ok('POST', `${r}/accessions`, {
      id_0: '2024', id_1: '002', title: 'More papers', related_accessions: [{ jsonmodel_type: 'accession_sibling_relationship', relator: 'sibling_of', relator_type: 'bound_with', ref: uris.a1 }],
    })).uri;
    // A link cycle, and a record updated after it was created (lock_version 1).
    const a1 = await ok('GET', uris.a1);
    await ok('POST', uris.a1, { ...a1, related_accessions: [{ jsonmodel_type: 'accession_sibling_relationship', relator: 'sibling_of', relator_type: 'bound_with', ref: uris.a2 }] });
    uris.a3 = (await ok('POST', `${r}/accessions`, { id_0: '2024', id_1: '003', title: 'Withdrawn papers' })).uri;
    await ok('POST', `${uris.a3}/suppressed?suppressed=true`);
    uris.resource = (await ok('POST', `${r}/resources`, {
      id_0: 'MSS-1', title: 'The Person papers', level: 'collection', finding_aid_language: 'eng', finding_aid_script: 'Latn',
      dates: [{ date_type: 'inclusive', label: 'creation', begin: '1900', end: '1950' }],
      extents: [{ portion: 'whole', number: '2', extent_type: 'linear_feet' }],
      lang_materials: [{ language_and_script: { language: 'eng' } }],
      subjects: [{ ref: uris.subject }],
    })).uri;
    const ao = async (title: string, parent?: string) => (await ok('POST', `${r}/archival_objects`, {
      title, level: 'file', resource: { ref: uris.resource }, ...(parent ? { parent: { ref: parent } } : {}),
      instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: uris.box }, type_2: 'folder', indicator_2: title } }],
    })).uri;
    uris.series1 = await ao('Series 1');
    uris.file1 = await ao('File 1', uris.series1);
    uris.file2 = await ao('File 2', uris.series1);
    uris.series2 = await ao('Series 2');
    // A parent created after its child: File 2 moves under Series 2, at the front.
    await ok('POST', `${uris.file2}/parent?parent=${uris.series2.split('/').pop()}&position=0`);
    await ok('POST', `${uris.series2}/parent?position=0`);
    uris.digital = (await ok('POST', `${r}/digital_objects`, { title: 'Scans', digital_object_id: 'DO-1' })).uri;
    uris.component = (await ok('POST', `${r}/digital_object_components`, { title: 'Scan 1', digital_object: { ref: uris.digital } })).uri;
    uris.event = (await ok('POST', `${r}/events`, {
      event_type: 'accession', date: { date_type: 'single', label: 'event', begin: '2024-05-01' },
      linked_agents: [{ role: 'implementer', ref: uris.person }], linked_records: [{ role: 'source', ref: uris.a1 }],
    })).uri;
    uris.group = (await ok('POST', `${r}/groups`, { group_code: 'readers', description: 'Readers', member_usernames: ['bob'], grants_permissions: ['view_repository'] })).uri;
    uris.elsewhere = (await ok('POST', `/repositories/${otherRepo}/accessions`, { id_0: 'X', title: 'Not in the export' })).uri;

    const exported = await cli(['export', '--repo', String(repo), '--out', exportFile], A);
    assert.equal(exported.code, 0, exported.stderr);
    const said = messages(exported.stderr);
    const progress = said.filter((m) => m.msg === 'export');
    assert.ok(progress.length >= 1, exported.stderr);
    for (const p of progress) for (const key of ['done', 'total', 'rate', 'eta_s']) assert.ok(key in p, `${key} in ${JSON.stringify(p)}`);
    const lines = fs.readFileSync(exportFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const [header, ...records] = lines;
    assert.deepEqual([header.format, header.version, header.repository, header.records], ['archive-records-export', 1, r, records.length]);
    assert.equal(said.find((m) => m.msg === 'exported').records, records.length);
    assert.equal(fs.existsSync(`${exportFile}.partial`), false);

    // The repository, all of its records (the default groups too), and the global records they link to.
    const dbA = await connect(A.DB_URL);
    let before: Map<string, unknown>;
    try {
      const scoped: string[] = await dbA.knex('records').where({ repo_id: repo }).whereNot({ type: 'repository' }).pluck('uri');
      const expected = [r, ...scoped, uris.subject, uris.person, uris.location, uris.profile, '/vocabularies/1'].sort();
      assert.deepEqual(records.map((l) => l.uri).sort(), expected);
      before = await storeState(dbA, expected);
    } finally {
      await dbA.close();
    }
    for (const line of records) assert.equal(JSON.stringify(line.record), (before.get(line.uri) as any).json, `${line.uri} exported byte for byte`);
    const answersA = new Map<string, unknown>();
    for (const line of records) answersA.set(line.uri, (await ok('GET', line.uri)).valueOf());
    const treeA = await ok('GET', `${uris.resource}/tree/root`);
    const childrenA = await ok('GET', `${uris.series2}/children`);

    const imported = await cli(['import', '--in', exportFile], B);
    assert.equal(imported.code, 0, imported.stderr);
    const summary = messages(imported.stderr).find((m) => m.msg === 'imported');
    // The target's own vocabulary 1 is kept: every installation has one.
    assert.deepEqual([summary.imported, summary.kept, summary.replaced], [records.length - 1, 1, 0]);
    assert.equal(summary.dangling_links.count, 0);
    assert.ok(messages(imported.stderr).some((m) => m.msg === 'import' && m.done === records.length && m.total === records.length));

    const dbB = await connect(B.DB_URL);
    try {
      const after = await storeState(dbB, [...before!.keys()]);
      for (const uri of before!.keys()) {
        if (uri === '/vocabularies/1') continue;
        assert.deepEqual(after.get(uri), { ...(before!.get(uri) as object) }, uri);
      }
    } finally {
      await dbB.close();
    }

    servedB = await serve(B, 'admin', B.ADMIN_PASSWORD);
    for (const line of records) {
      if (line.uri === '/vocabularies/1') continue;
      const got = await servedB.call('GET', line.uri);
      assert.equal(got.status, 200, line.uri);
      assert.deepEqual(got.body, answersA.get(line.uri), line.uri);
    }
    assert.deepEqual((await servedB.call('GET', `${uris.resource}/tree/root`)).body, treeA);
    assert.deepEqual((await servedB.call('GET', `${uris.series2}/children`)).body, childrenA);
    assert.equal((await servedB.call('GET', uris.elsewhere)).status, 400, 'the other repository is not exported');
    // Ids continue after the imported ones; the imported records are indexed for search.
    const next = await servedB.call('POST', `${r}/accessions`, { id_0: '2024', id_1: '004', title: 'After the move' });
    assert.equal(next.body.uri, `${r}/accessions/${Number(uris.a3.split('/').pop()) + 1}`);
    let found = 0;
    for (let i = 0; i < 50 && !found; i++) {
      found = (await servedB.call('GET', `${r}/search?page=1&q=Person`)).body.total_hits ?? 0;
      if (!found) await new Promise((res) => setTimeout(res, 200));
    }
    assert.ok(found >= 2, 'imported records are found by search');
    const bobLogin = await fetch(`${servedB.base}/users/bob/login?password=bob-secret`, { method: 'POST' });
    assert.equal(bobLogin.status, 403, 'users and passwords are not part of a repository export');
  });

  it('refuses to import over records that exist (writing nothing); --replace overwrites them', async () => {
    const count = async () => {
      const db = await connect(B.DB_URL);
      try {
        return Number((await db.knex('records').count({ n: '*' }).first())!.n);
      } finally {
        await db.close();
      }
    };
    const before = await count();
    const again = await cli(['import', '--in', exportFile], B);
    assert.equal(again.code, 1);
    assert.match(messages(again.stderr).find((m) => m.level === 'error').msg, /nothing was written: line \d+: \/repositories\/\d+ already exists in this store; use --replace/);
    assert.equal(await count(), before);
    const replaced = await cli(['import', '--replace'], B, fs.readFileSync(exportFile, 'utf8'));
    assert.equal(replaced.code, 0, replaced.stderr);
    const summary = messages(replaced.stderr).find((m) => m.msg === 'imported');
    assert.deepEqual([summary.imported, summary.replaced, summary.kept], [0, fs.readFileSync(exportFile, 'utf8').trim().split('\n').length - 1, 0]);
    assert.equal(await count(), before);
    const a1 = await servedB!.call('GET', uris.a1);
    assert.equal(a1.body.lock_version, 1);

    const garbage = await cli(['import'], B, '{"format":"archive-records-export","version":1,"records":1}\n{"uri":"/subjects/1","type":"subject","id":2}\n');
    assert.equal(garbage.code, 1);
    assert.match(garbage.stderr, /line 2: /);
    assert.equal(await count(), before);
  });

  it('exports the whole store to standard output with --all and imports it from standard input', async () => {
    const exported = await cli(['export', '--all'], A);
    assert.equal(exported.code, 0, exported.stderr);
    const [header, ...records] = exported.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([header.all, header.records], [true, records.length]);
    assert.ok(records.some((l) => l.uri === uris.elsewhere) && records.some((l) => l.uri === '/users/2'));
    const imported = await cli(['import'], C, exported.stdout);
    assert.equal(imported.code, 0, imported.stderr);
    const summary = messages(imported.stderr).find((m) => m.msg === 'imported');
    // Kept: what the new store created for itself (global repository, admin, vocabulary, the software agent, administrators group).
    assert.equal(summary.kept, 5);
    assert.equal(summary.imported, records.length - 5);
    const [dbA, dbC] = [await connect(A.DB_URL), await connect(C.DB_URL)];
    try {
      const all = records.map((l) => l.uri);
      const [a, c] = [await storeState(dbA, all), await storeState(dbC, all)];
      const kept = new Set(['/repositories/1', '/users/1', '/vocabularies/1', '/agents/software/1', '/repositories/1/groups/1']);
      for (const uri of all) if (!kept.has(uri)) assert.deepEqual(c.get(uri), a.get(uri), uri);
    } finally {
      await dbA.close();
      await dbC.close();
    }
  });

  it('a stopped server brings the index up to date with its last writes before it exits', async () => {
    await stop(served);
    const indexOf = async () => JSON.parse((await cli(['doctor', '--json'], A)).stdout).checks.find((c: any) => c.name === 'search index');
    const before = await indexOf();
    assert.equal(before.details.pending, 0, JSON.stringify(before));
    // An indexer slowed down (one entry per batch, a pause between batches) is still far behind
    // when the last write is answered and SIGTERM arrives.
    served = await serve({ ...A, INDEXER_BATCH_SIZE: '1', INDEXER_PAUSE_MS: '100' }, 'alice', 'alice-secret');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => served!.call('POST', '/subjects', {
      source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: `Drained ${i}`, term_type: 'topical', vocabulary: '/vocabularies/1' }],
    })));
    assert.deepEqual(answers.map((a) => a.status), answers.map(() => 200));
    const started = Date.now();
    await stop(served);
    assert.equal(served.child.exitCode, 0);
    assert.ok(Date.now() - started < 10_000, `shutdown took ${Date.now() - started} ms`);
    const after = await indexOf();
    assert.equal(after.status, 'ok', JSON.stringify(after));
    assert.deepEqual([after.details.documents, after.details.pending], [before.details.documents + 20, 0]);
    served = undefined;
  });

  it('reindex rebuilds a lost index from the store, with progress; doctor tells what is wrong with an index and what to do', async () => {
    const before = JSON.parse((await cli(['doctor', '--json'], A)).stdout).checks.find((c: any) => c.name === 'search index');
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${A.SEARCH_PATH}${suffix}`, { force: true });
    const lost = JSON.parse((await cli(['doctor', '--json'], A)).stdout).checks.find((c: any) => c.name === 'search index');
    assert.equal(lost.status, 'warn');
    assert.match(lost.summary, /no index at/);
    assert.match(lost.fix, /archive-records reindex/);
    assert.equal(fs.existsSync(A.SEARCH_PATH), false, 'doctor creates no index');

    const ran = await cli(['reindex'], { ...A, INDEXER_BATCH_SIZE: '5' });
    assert.equal(ran.code, 0, ran.stderr);
    const said = messages(ran.stderr);
    const progress = said.filter((m) => m.msg === 'reindex');
    assert.ok(progress.length >= 1 && progress.at(-1).done === progress.at(-1).total && progress.at(-1).total > 0, ran.stderr);
    assert.ok(progress.every((p) => 'rate' in p && 'eta_s' in p));
    assert.equal(said.find((m) => m.msg === 'reindexed').records, before.details.documents);
    const after = JSON.parse((await cli(['doctor', '--json'], A)).stdout).checks.find((c: any) => c.name === 'search index');
    assert.equal(after.status, 'ok', JSON.stringify(after));
    assert.deepEqual([after.details.documents, after.details.pending], [before.details.documents, 0]);

    // C was written by imports with no server running: its index was never built.
    const c = JSON.parse((await cli(['doctor', '--json'], C)).stdout).checks.find((x: any) => x.name === 'search index');
    assert.equal(c.status, 'warn');
    // A's index named beside C's store: built from another store.
    const other = JSON.parse((await cli(['doctor', '--json'], { ...C, SEARCH_PATH: A.SEARCH_PATH })).stdout).checks.find((x: any) => x.name === 'search index');
    assert.equal(other.status, 'warn');
    assert.match(other.summary, /built from another store/);
  });

  it('a store migrated by a newer version: every verb says so and exits with status 1 (none hangs)', async () => {
    const F = envOf('future');
    assert.equal((await cli(['migrate'], F)).code, 0);
    const db = await connect(F.DB_URL);
    try {
      await db.knex('knex_migrations').insert({ name: '999_from_the_future', batch: 99, migration_time: new Date() });
    } finally {
      await db.close();
    }
    for (const verb of [['migrate'], ['reindex'], ['export', '--all']]) {
      const ran = await cli(verb, F);
      assert.equal(ran.code, 1, `${verb.join(' ')}: ${ran.stderr}`);
      assert.match(ran.stderr, /migrated by a newer version of archive-records .*999_from_the_future/, verb.join(' '));
    }
    const report = JSON.parse((await cli(['doctor', '--json'], F)).stdout);
    const migrations = report.checks.find((c: any) => c.name === 'migrations');
    assert.equal(migrations.status, 'fail');
    assert.match(migrations.summary, /newer version/);
    assert.deepEqual(migrations.details.unknown, ['999_from_the_future']);
  });

  it('doctor reports the store, its migrations, its records per type and its links, and says what to do', async () => {
    const text = await cli(['doctor'], A);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(text.stdout, /ok {4}store +reachable/);
    assert.match(text.stdout, /ok {4}migrations +\d+ applied, built-in records present/);
    assert.match(text.stdout, /accession +4\n/);
    assert.match(text.stdout, /ok {4}search index +\d+ documents in .*, up to date with the store/);
    const json = await cli(['doctor', '--json'], A);
    const report = JSON.parse(json.stdout);
    assert.equal(report.ok, true);
    assert.deepEqual(report.checks.map((c: any) => [c.name, c.status]), [
      ['store', 'ok'], ['migrations', 'ok'], ['records', 'ok'], ['links', 'ok'], ['trees', 'ok'], ['search index', 'ok'],
    ]);
    const records = report.checks.find((c: any) => c.name === 'records').details;
    assert.deepEqual([records.accession, records.archival_object, records.repository, records.user], [4, 4, 3, 3]);

    // A store never migrated (on SQLite: no file at all), and one that cannot be reached.
    const empty = await cli(['doctor', '--json'], envOf('empty'));
    assert.equal(empty.code, 1);
    const emptyReport = JSON.parse(empty.stdout);
    const failed = emptyReport.checks.find((c: any) => c.status === 'fail');
    if (STORE === 'sqlite') {
      assert.equal(failed.name, 'store');
      assert.match(failed.details.error, /no SQLite file/);
      assert.equal(fs.existsSync(path.join(dir, 'empty.db')), false, 'doctor creates no store');
    } else {
      assert.equal(failed.name, 'migrations');
      assert.match(failed.fix, /archive-records migrate/);
    }
    const unreachable = await cli(['doctor'], { DB_URL: 'mysql://root@127.0.0.1:1/nowhere' });
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stdout, /FAIL {2}store +not reachable/);
    assert.match(unreachable.stdout, /fix: check DB_URL/);
    assert.match(unreachable.stdout, /skip {2}migrations +the store is not reachable/);
  });
});
