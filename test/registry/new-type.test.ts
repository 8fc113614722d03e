import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../scripts/generate';
import { startTestApp, STORE, TestApp } from '../helpers';

const SCHEMAS = path.resolve(__dirname, '..', '..', 'schemas');

/** A made-up type: nothing in src/ knows it. */
const EXHIBITION = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'exhibition',
  title: 'exhibition',
  type: 'object',
  'x-archive': {
    kind: 'record',
    uri: '/repositories/:repo_id/exhibitions',
    model: 'Exhibition',
    listing: 'paginated',
    permissions: { read: 'view_repository', create: 'update_accession_record', update: 'update_accession_record', delete: 'delete_archival_record' },
    unique: [{ fields: ['code'], within: 'repository', errorPath: 'code', message: 'Exhibition code already in use' }],
    search: { identifier: 'code', resolve: ['subjects'], fields: { opens: 'opens', opens_year: { path: 'opens', transform: 'year' } } },
  },
  properties: {
    uri: { type: 'string', readOnly: true },
    title: { type: 'string', maxLength: 255 },
    code: { type: 'string' },
    opens: { type: 'string', format: 'date' },
    dates: { type: 'array', items: { $ref: 'date' } },
    subjects: {
      type: 'array',
      items: {
        type: 'object', 'x-link': true,
        properties: { ref: { type: 'string', 'x-ref': ['subject'] }, _resolved: { type: 'object', readOnly: true } },
        required: ['ref'],
      },
    },
  },
  required: ['title'],
};

const scratchDirs: string[] = [];

function schemasWith(...extra: object[]): { schemas: string; out: string } {
  // Inside the project (.tmp/ is ignored by git) so the generated code finds node_modules.
  const scratch = path.resolve(__dirname, '..', '..', '.tmp');
  fs.mkdirSync(scratch, { recursive: true });
  const dir = fs.mkdtempSync(path.join(scratch, 'schemas-'));
  scratchDirs.push(dir);
  const schemas = path.join(dir, 'schemas');
  fs.mkdirSync(schemas);
  for (const f of fs.readdirSync(SCHEMAS)) fs.copyFileSync(path.join(SCHEMAS, f), path.join(schemas, f));
  for (const schema of extra) fs.writeFileSync(path.join(schemas, `${(schema as { $id: string }).$id}.json`), JSON.stringify(schema));
  return { schemas, out: path.join(dir, 'generated') };
}

describe(`adding a record type by dropping a schema (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let base: string;

  before(async () => {
    const { schemas, out } = schemasWith(EXHIBITION);
    await generate(schemas, out);
    t = await startTestApp({}, out);
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const repo = await t.http.post('/repositories').set(H).send({ repo_code: 'EXH', name: 'Exhibitions' });
    base = `/repositories/${repo.body.id}/exhibitions`;
  });
  after(async () => {
    await t?.close();
    for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves create, get, update with lock_version, stale 409, delete and 404', async () => {
    const created = await t.http.post(base).set(H).send({ title: 'Maps of the North', code: 'E1', opens: '2025-03-01' });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.uri, `${base}/1`);
    const got = await t.http.get(created.body.uri).set(H);
    assert.equal(got.body.jsonmodel_type, 'exhibition');
    assert.deepEqual(got.body.dates, []);
    const updated = await t.http.post(created.body.uri).set(H).send({ ...got.body, title: 'Maps of the Far North' });
    assert.equal(updated.body.lock_version, 1);
    const stale = await t.http.post(created.body.uri).set(H).send(got.body);
    assert.equal(stale.status, 409);
    await t.http.delete(created.body.uri).set(H).expect(200);
    const gone = await t.http.get(created.body.uri).set(H);
    assert.deepEqual([gone.status, gone.body], [404, { error: 'Exhibition not found' }]);
  });

  it('pages, lists all ids and id sets', async () => {
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push((await t.http.post(base).set(H).send({ title: `Show ${i}`, code: `P${i}` })).body.id);
    const page2 = await t.http.get(base).query({ page: 2 }).set(H);
    assert.deepEqual([page2.body.total, page2.body.last_page, page2.body.results.length], [12, 2, 2]);
    assert.deepEqual((await t.http.get(base).query({ all_ids: true }).set(H)).body, ids);
    const set = await t.http.get(base).query({ id_set: `${ids[3]},${ids[1]}` }).set(H);
    assert.deepEqual(set.body.map((r: { title: string }) => r.title), ['Show 1', 'Show 3']);
  });

  it('validates with the reference messages and enforces the schema unique key', async () => {
    const bad = await t.http.post(base).set(H).send({ title: 'x'.repeat(256), opens: 'tomorrow', dates: [{ date_type: 'single', label: 'creation' }] });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.error.title, ['Must be 255 characters or fewer']);
    assert.deepEqual(bad.body.error.opens, ['Not a valid date']);
    assert.deepEqual(bad.body.error['dates/0/expression'], ['is required unless a begin or end date is given']);
    const missing = await t.http.post(base).set(H).send({ code: 'Z' });
    assert.deepEqual(missing.body.error, { title: ['Property is required but was missing'] });
    await t.http.post(base).set(H).send({ title: 'A', code: 'DUP' }).expect(200);
    const dup = await t.http.post(base).set(H).send({ title: 'B', code: 'DUP' });
    assert.deepEqual([dup.status, dup.body], [400, { error: { code: ['Exhibition code already in use'] } }]);
  });

  it('resolves its links', async () => {
    const subject = await t.http.post('/subjects').set(H).send({
      source: 'local', vocabulary: '/vocabularies/1', terms: [{ term: 'Cartography', term_type: 'topical', vocabulary: '/vocabularies/1' }],
    });
    const show = await t.http.post(base).set(H).send({ title: 'Linked', subjects: [{ ref: subject.body.uri }] });
    const got = await t.http.get(show.body.uri).query({ 'resolve[]': 'subjects' }).set(H);
    assert.equal(got.body.subjects[0]._resolved.terms[0].term, 'Cartography');
  });

  it('is searchable from its schema mapping: title, identifier, linked subjects, mapped fields', async () => {
    const made = await t.http.post(base).set(H).send({ title: 'Sea charts', code: 'EX-7', opens: '2031-05-01' });
    assert.equal(made.status, 200, made.text);
    await t.services.search!.indexer.drain();
    const byWord = await t.http.get(`${base.replace(/\/exhibitions$/, '')}/search`).set(H).query('page=1&q=charts&type[]=exhibition');
    assert.deepEqual(byWord.body.results.map((r: any) => [r.uri, r.identifier, r.opens, r.jsonmodel_type]), [[made.body.uri, 'EX-7', '2031-05-01', 'exhibition']]);
    const bySubject = await t.http.get(`${base.replace(/\/exhibitions$/, '')}/search`).set(H).query('page=1&q=subjects:Cartography&type[]=exhibition');
    assert.equal(bySubject.body.total_hits, 1);
  });

  it('makes generation fail clearly for a reference to a type with no schema', async () => {
    const broken = structuredClone(EXHIBITION) as any;
    broken.$id = 'broken_type';
    broken.properties.curator = { type: 'string', 'x-ref': ['no_such_type'] };
    const { schemas, out } = schemasWith(broken);
    await assert.rejects(generate(schemas, out), /schemas\/broken_type\.json: property curator names the type no_such_type/);
  });

  it('makes generation refuse a schema naming a rule, hook, derivation, permission, value list, $ref or tree root that does not exist', async () => {
    const cases: Array<[(s: any) => void, RegExp]> = [
      [(s) => { s['x-archive'].validations = ['no_such_rule']; }, /schemas\/broken_type\.json: x-archive\.validations names the rule "no_such_rule"/],
      [(s) => { s['x-archive'].hooks = 'no_such_hooks'; }, /schemas\/broken_type\.json: x-archive\.hooks names "no_such_hooks"/],
      [(s) => { s['x-archive'].generated = { title: 'no_such_derivation' }; }, /x-archive\.generated\.title names "no_such_derivation"/],
      [(s) => { s['x-archive'].permissions.read = 'no_such_permission'; }, /x-archive\.permissions\.read names the permission "no_such_permission"/],
      [(s) => { s.properties.kind = { type: 'string', 'x-enum': 'no_such_list' }; }, /property kind names the value list "no_such_list"/],
      [(s) => { s.properties.dates = { type: 'array', items: { $ref: 'no_such_subrecord' } }; }, /property dates names the type no_such_subrecord/],
      [(s) => { s['x-archive'].tree = { root: 'no_such_root', rootProperty: 'show', parentProperty: 'parent', childrenBody: 'x' }; }, /x-archive\.tree\.root names the type "no_such_root"/],
      [(s) => { s['x-archive'].touches = [['linkedFrom:no_such_linker', 'root']]; }, /x-archive\.touches names the type "no_such_linker"/],
    ];
    for (const [breakIt, message] of cases) {
      const broken = structuredClone(EXHIBITION) as any;
      broken.$id = 'broken_type';
      breakIt(broken);
      const { schemas, out } = schemasWith(broken);
      await assert.rejects(generate(schemas, out), message);
    }
  });
});

/**
 * A collection type with its own tree, declaring in x-archive what other types have in code
 * elsewhere: a search boost, public types, a tree role with its view, container collections.
 */
const link = (type: string) => ({
  type: 'object', 'x-link': true,
  properties: { ref: { type: 'string', 'x-ref': [type] }, _resolved: { type: 'object', readOnly: true } }, required: ['ref'],
});
const PERMISSIONS = { read: 'view_repository', create: 'update_resource_record', update: 'update_resource_record', delete: 'delete_archival_record' };
const SHOW = {
  $schema: 'http://json-schema.org/draft-07/schema#', $id: 'show', title: 'show', type: 'object',
  'x-archive': {
    kind: 'record', uri: '/repositories/:repo_id/shows', model: 'Show', listing: 'paginated', permissions: PERMISSIONS,
    containerCollection: true,
    search: { boost: 500, publicTypes: ['pui_show', 'pui'] },
  },
  properties: {
    uri: { type: 'string', readOnly: true }, title: { type: 'string' }, publish: { type: 'boolean' }, level: { type: 'string' },
    instances: { type: 'array', items: { $ref: 'instance' } },
  },
  required: ['title'],
};
const SHOW_PIECE = {
  $schema: 'http://json-schema.org/draft-07/schema#', $id: 'show_piece', title: 'show_piece', type: 'object',
  'x-archive': {
    kind: 'record', uri: '/repositories/:repo_id/show_pieces', model: 'ShowPiece', listing: 'paginated', permissions: PERMISSIONS,
    tree: { root: 'show', rootProperty: 'show', parentProperty: 'parent', childrenBody: 'show_piece_children', view: { root: ['level'], node: ['label', 'level'] } },
    search: { fields: { show: 'show.ref' } },
  },
  properties: {
    uri: { type: 'string', readOnly: true }, title: { type: 'string' }, label: { type: 'string' }, level: { type: 'string' },
    publish: { type: 'boolean' }, position: { type: 'integer' }, show: link('show'), parent: link('show_piece'),
    instances: { type: 'array', items: { $ref: 'instance' } },
  },
  required: ['title', 'show'],
};
const SHOW_PIECE_CHILDREN = {
  $schema: 'http://json-schema.org/draft-07/schema#', $id: 'show_piece_children', title: 'show_piece_children', type: 'object',
  'x-archive': { kind: 'subrecord', model: 'ShowPieceChildren' },
  properties: { children: { type: 'array', items: { $ref: 'show_piece' } } },
  required: ['children'],
};

describe(`behaviour a dropped schema declares, with no code (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let H: Record<string, string>;
  let repo: string;
  let show: string;
  let box: string;

  before(async () => {
    const { schemas, out } = schemasWith(SHOW, SHOW_PIECE, SHOW_PIECE_CHILDREN);
    await generate(schemas, out);
    t = await startTestApp({}, out);
    H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    repo = `/repositories/${(await t.http.post('/repositories').set(H).send({ repo_code: 'SHOW', name: 'Shows' })).body.id}`;
    box = (await t.http.post(`${repo}/top_containers`).set(H).send({ type: 'box', indicator: '7' })).body.uri;
    const created = await t.http.post(`${repo}/shows`).set(H).send({ title: 'Lantern slides', publish: true, level: 'collection' });
    assert.equal(created.status, 200, created.text);
    show = created.body.uri;
    const pieces = await t.http.post(`${show}/children`).set(H).send({
      children: [{
        title: 'Lantern slide one', label: 'Slide 1', level: 'item', publish: true, show: { ref: show },
        instances: [{ instance_type: 'mixed_materials', sub_container: { top_container: { ref: box } } }],
      }],
    });
    assert.equal(pieces.status, 200, pieces.text);
    await t.http.post(`${repo}/accessions`).set(H).send({ id_0: 'L1', title: 'Lantern slides accession', accession_date: '2024-01-01' });
    await t.services.search!.indexer.drain();
  });
  after(async () => {
    await t?.close();
    for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ranks by its search boost in searches without a sort', async () => {
    const res = await t.http.get(`${repo}/search`).set(H).query({ q: 'lantern', page: 1 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.results.map((r: any) => r.primary_type).slice(0, 2), ['show', 'accession']);
  });

  it('answers to its public types when published', async () => {
    const res = await t.http.get(`${repo}/search`).set(H).query({ q: 'lantern', page: 1, 'type[]': 'pui_show' });
    assert.deepEqual(res.body.results.map((r: any) => r.uri), [show]);
  });

  it('serves its tree with the view parts its tree role names', async () => {
    const root = await t.http.get(`${show}/tree/root`).set(H);
    assert.equal(root.status, 200, root.text);
    assert.equal(root.body.level, 'collection');
    assert.equal(root.body.identifier, undefined);
    const [entry] = root.body.precomputed_waypoints[''][0];
    assert.equal(entry.label, 'Slide 1');
    assert.equal(entry.level, 'item');
    assert.equal(entry.containers, undefined);
  });

  it('is a container collection: lists its top containers and shows in their collection', async () => {
    const listed = await t.http.get(`${show}/top_containers`).set(H);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.map((c: any) => c.ref), [box]);
    const container = await t.http.get(box).set(H);
    assert.deepEqual(container.body.collection.map((c: any) => c.ref), [show]);
  });
});
