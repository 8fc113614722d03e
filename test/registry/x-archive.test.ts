import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildManifest, readSchemas } from '../../scripts/generate';

const ROOT = path.resolve(__dirname, '..', '..');
const SCHEMAS = path.join(ROOT, 'schemas');

/** A small routed type whose x-archive block each case breaks in one place. */
const GALLERY = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'gallery',
  title: 'gallery',
  type: 'object',
  'x-archive': {
    kind: 'record',
    uri: '/galleries',
    model: 'Gallery',
    permissions: { read: null, create: 'update_subject_record', update: 'update_subject_record', delete: 'delete_subject_record' },
    search: { title: { first: ['title', { template: '{code}' }] }, fields: { code: ['code'] } },
  },
  properties: { uri: { type: 'string', readOnly: true }, title: { type: 'string' }, code: { type: 'string' } },
};

function manifestWith(breakIt: (block: any) => void) {
  const schemas = readSchemas(SCHEMAS);
  const gallery = structuredClone(GALLERY) as any;
  breakIt(gallery['x-archive']);
  schemas.gallery = gallery;
  return () => buildManifest(schemas);
}

describe('the x-archive block has a schema of its own (src/registry/x-archive.schema.json)', function () {
  this.timeout(60_000);

  it('accepts every schema in schemas/ and a well-formed new type', () => {
    const manifest = manifestWith(() => {})();
    assert.equal(manifest.types.gallery.uri, '/galleries');
    assert.deepEqual(manifest.types.gallery.search?.fields, { code: ['code'] });
  });

  it('refuses an unknown key, naming the file and the key', () => {
    assert.throws(manifestWith((x) => { x.parent = 'abstract_gallery'; }), /^Error: schemas\/gallery\.json: x-archive\.parent is not a key of the block \(allowed there: kind, model, uri,/);
    assert.throws(manifestWith((x) => { x.permissions.merge = 'merge_subject_record'; }), /schemas\/gallery\.json: x-archive\.permissions\.merge is not a key of the block \(allowed there: read, create, update, delete\)/);
    assert.throws(manifestWith((x) => { x.search.titel = 'title'; }), /schemas\/gallery\.json: x-archive\.search\.titel is not a key of the block/);
  });

  it('refuses a wrong shape, naming the file and the key', () => {
    const cases: Array<[(x: any) => void, RegExp]> = [
      [(x) => { x.routes = 'yes'; }, /schemas\/gallery\.json: x-archive\.routes must be boolean \(got "yes"\)/],
      [(x) => { x.kind = 'recrod'; }, /schemas\/gallery\.json: x-archive\.kind must be one of "record", "subrecord", "query", "external" \(got "recrod"\)/],
      [(x) => { delete x.permissions.delete; }, /schemas\/gallery\.json: x-archive\.permissions must have required property 'delete'/],
      [(x) => { x.unique = [{ fields: 'code', within: 'global', errorPath: 'code', message: 'taken' }]; }, /schemas\/gallery\.json: x-archive\.unique\[0\]\.fields must be array \(got "code"\)/],
      [(x) => { x.search.fields.code = { path: 'code', transform: 'upper' }; }, /schemas\/gallery\.json: x-archive\.search\.fields\.code must be a field spec, or a one-element array of one/],
      [(x) => { x.export = { dc: { title: 'title' } }; }, /schemas\/gallery\.json: x-archive\.export\.dc\.title must be array/],
      [(x) => { x.touches = [['parent']]; }, /schemas\/gallery\.json: x-archive\.touches\[0\]\[0\] must match pattern "\^\(root\|linkedFrom:\[a-z_\]\+\)\$" \(got "parent"\)/],
      [(x) => { x.touches = [[]]; }, /schemas\/gallery\.json: x-archive\.touches\[0\] must NOT have fewer than 1 items/],
    ];
    for (const [breakIt, message] of cases) assert.throws(manifestWith(breakIt), message);
  });

  it('makes `generate` exit non-zero with the message', () => {
    const scratch = path.join(ROOT, '.tmp');
    fs.mkdirSync(scratch, { recursive: true });
    const dir = fs.mkdtempSync(path.join(scratch, 'x-archive-'));
    try {
      const schemas = path.join(dir, 'schemas');
      fs.mkdirSync(schemas);
      for (const f of fs.readdirSync(SCHEMAS)) fs.copyFileSync(path.join(SCHEMAS, f), path.join(schemas, f));
      const gallery = structuredClone(GALLERY) as any;
      gallery['x-archive'].copy = false;
      fs.writeFileSync(path.join(schemas, 'gallery.json'), JSON.stringify(gallery));
      const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'generate.ts'), schemas, path.join(dir, 'generated')], { encoding: 'utf8' });
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /schemas\/gallery\.json: x-archive\.copy is not a key of the block/);
      assert.equal(fs.existsSync(path.join(dir, 'generated')), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
