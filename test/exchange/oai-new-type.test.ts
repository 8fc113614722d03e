import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../scripts/generate';
import { startTestApp, STORE, TestApp } from '../helpers';
import { assertValid, el, xpath } from './xmllint';

const SCHEMAS = path.resolve(__dirname, '..', '..', 'schemas');

/** A made-up type with export mappings: nothing in src/ knows it, yet OAI harvests it. */
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
    export: {
      oai: {},
      dc: { title: ['title'], identifier: ['code', 'uri'], date: ['@dates'], type: ['@level'], description: ['curator_note'] },
      mods: { identifier: ['code'] },
    },
  },
  properties: {
    uri: { type: 'string', readOnly: true },
    title: { type: 'string', maxLength: 255 },
    code: { type: 'string' },
    level: { type: 'string' },
    publish: { type: 'boolean' },
    curator_note: { type: 'string' },
    dates: { type: 'array', items: { $ref: 'date' } },
  },
  required: ['title'],
};

describe(`a record type dropped in with export mappings is harvested by OAI-PMH (${STORE})`, function () {
  this.timeout(120_000);
  let t: TestApp;
  let dir: string;
  let uri: string;

  before(async () => {
    const scratch = path.resolve(__dirname, '..', '..', '.tmp');
    fs.mkdirSync(scratch, { recursive: true });
    dir = fs.mkdtempSync(path.join(scratch, 'schemas-'));
    const schemas = path.join(dir, 'schemas');
    fs.mkdirSync(schemas);
    for (const f of fs.readdirSync(SCHEMAS)) fs.copyFileSync(path.join(SCHEMAS, f), path.join(schemas, f));
    fs.writeFileSync(path.join(schemas, 'exhibition.json'), JSON.stringify(EXHIBITION));
    const out = path.join(dir, 'generated');
    await generate(schemas, out);
    t = await startTestApp({}, out);
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const repo = await t.http.post('/repositories').set(H).send({ repo_code: 'EXH', name: 'Exhibitions' });
    const base = `/repositories/${repo.body.id}/exhibitions`;
    const created = await t.http.post(base).set(H).send({
      title: 'Maps of the North', code: 'E1', level: 'collection', publish: true, curator_note: 'Thirty maps & charts.',
      dates: [{ date_type: 'inclusive', label: 'creation', begin: '1700', end: '1800' }],
    });
    assert.equal(created.status, 200, created.text);
    uri = created.body.uri;
    await t.http.post(base).set(H).send({ title: 'Not yet open', code: 'E2', publish: false }).expect(200);
  });
  after(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists and serves the new type in the formats it maps, and refuses the others', async () => {
    const list = await t.http.get('/oai').query({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc' });
    assertValid(list.text, 'OAI-PMH.xsd');
    assert.deepEqual(xpath(list.text, `//${el('identifier')}/text()`).split('\n').filter(Boolean), [`oai:archivesspace/${uri}`]);
    const dc = await t.http.get('/oai').query({ verb: 'GetRecord', metadataPrefix: 'oai_dc', identifier: `oai:archivesspace/${uri}` });
    assertValid(dc.text, 'oai-pmh-all.xsd');
    assert.equal(xpath(dc.text, 'string(//*[local-name()="dc"]/*[local-name()="title"])'), 'Maps of the North');
    assert.equal(xpath(dc.text, 'string(//*[local-name()="dc"]/*[local-name()="description"])'), 'Thirty maps & charts.');
    assert.equal(xpath(dc.text, 'string(//*[local-name()="dc"]/*[local-name()="date"])'), '1700 - 1800');
    const mods = await t.http.get('/oai').query({ verb: 'GetRecord', metadataPrefix: 'oai_mods', identifier: `oai:archivesspace/${uri}` });
    assertValid(mods.text, 'oai-pmh-all.xsd');
    assert.equal(xpath(mods.text, `string(//${el('mods')}/${el('identifier')})`), 'E1');
    const marc = await t.http.get('/oai').query({ verb: 'GetRecord', metadataPrefix: 'oai_marc', identifier: `oai:archivesspace/${uri}` });
    assert.equal(xpath(marc.text, `string(//${el('error')}/@code)`), 'cannotDisseminateFormat');
    const formats = await t.http.get('/oai').query({ verb: 'ListMetadataFormats', identifier: `oai:archivesspace/${uri}` });
    assert.deepEqual(xpath(formats.text, `//${el('metadataPrefix')}/text()`).split('\n').filter(Boolean), ['oai_dc', 'oai_mods']);
  });
});
