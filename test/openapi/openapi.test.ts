import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiPath, servedEndpoints } from '../../src/openapi';
import { answeredErrors } from '../../src/records/endpoint';
import { ERROR_KINDS } from '../../src/errors';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../src/openapi/swagger';
import { startTestApp, STORE, TestApp } from '../helpers';

describe(`the OpenAPI document and the API page (${STORE})`, function () {
  this.timeout(60_000);
  let t: TestApp;
  let doc: any;

  before(async () => {
    t = await startTestApp();
    const res = await t.http.get('/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^application\/json/);
    doc = JSON.parse(res.text);
  });
  after(async () => t?.close());

  it('is a valid OpenAPI 3.1 document, every $ref resolving', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors)?.slice(0, 2000));
    assert.equal(validator.version, '3.1');
    assert.doesNotThrow(() => validator.resolveRefs());
  });

  it('describes every row of the endpoint table, with its permission', () => {
    const rows = servedEndpoints(t.services.registry);
    const missing = rows.filter((e) => !doc.paths[openApiPath(e.path)]?.[e.method]).map((e) => `${e.method} ${e.path}`);
    assert.deepEqual(missing, []);
    for (const e of rows) {
      const op = doc.paths[openApiPath(e.path)][e.method];
      assert.equal(op['x-permission'], e.permission, `${e.method} ${e.path}`);
      assert.ok(op.description.includes(e.permission === null ? 'none checked' : `\`${e.permission}\``), `${e.method} ${e.path}`);
      for (const name of [...e.path.matchAll(/:(\w+)/g)].map((m) => m[1])) {
        assert.ok(op.parameters.some((p: any) => p.in === 'path' && p.name === name && p.required), `${e.method} ${e.path}: path parameter ${name}`);
      }
      // The documented error answers are exactly the ones the row declares (errors.ts kinds).
      const documented = Object.keys(op.responses).filter((code) => Number(code) >= 400).sort();
      const declared = answeredErrors(e).map((k) => String(ERROR_KINDS[k].status)).sort();
      assert.deepEqual(documented, declared, `${e.method} ${e.path}: documented errors`);
      for (const kind of answeredErrors(e)) assert.equal(op.responses[ERROR_KINDS[kind].status].$ref, `#/components/responses/${kind}`);
    }
    const described = Object.values(doc.paths).reduce((n: number, item: any) => n + Object.keys(item).length, 0);
    const mounted = new Set(rows.map((e) => `${e.method} ${e.path}`)).size;
    assert.equal(described, mounted);
    // The app mounts nothing but the endpoint table's rows, so these are all its routes.
    console.log(`      OpenAPI describes ${described} of the ${mounted} mounted routes`);
  });

  it('takes record schemas, bodies, answers and errors from the registry', () => {
    const item = doc.paths['/repositories/{repo_id}/accessions/{id}'];
    assert.deepEqual(item.get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/accession' });
    assert.deepEqual(item.post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/accession' });
    assert.deepEqual(item.post.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/WriteResult' });
    assert.deepEqual(item.delete.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/DeleteResult' });
    assert.equal(item.post.responses['409'].$ref, '#/components/responses/Conflict');
    assert.deepEqual(item.get.security, [{ session: [] }]);
    assert.equal(item.get['x-permission'], 'view_repository');

    const list = doc.paths['/repositories/{repo_id}/accessions'].get;
    const names = list.parameters.map((p: any) => p.name);
    for (const name of ['repo_id', 'page', 'page_size', 'id_set[]', 'all_ids', 'modified_since', 'resolve[]']) assert.ok(names.includes(name), name);
    const page = list.responses['200'].content['application/json'].schema.oneOf[0];
    assert.deepEqual(page.properties.results.items, { $ref: '#/components/schemas/accession' });

    const accession = doc.components.schemas.accession;
    assert.deepEqual(accession.properties.dates.items, { $ref: '#/components/schemas/date' });
    assert.ok(accession.properties.related_accessions.items.anyOf.some((s: any) => s.$ref === '#/components/schemas/accession_sibling_relationship'));
    assert.match(accession.properties.subjects.items.properties.ref.description, /URI of a subject record/);
    assert.equal(accession.properties.uri.readOnly, true);
    assert.equal(JSON.stringify(doc.components.schemas).includes('x-archive'), false);

    const write = doc.components.schemas.WriteResult;
    assert.deepEqual(Object.keys(write.properties).sort(), ['id', 'lock_version', 'stale', 'status', 'uri', 'warnings']);
    assert.deepEqual(doc.components.schemas.SessionError.properties.code.enum, ['SESSION_GONE', 'SESSION_EXPIRED']);
    assert.deepEqual(doc.components.securitySchemes.session, {
      type: 'apiKey', in: 'header', name: 'X-ArchivesSpace-Session', description: doc.components.securitySchemes.session.description,
    });
    assert.match(doc.components.securitySchemes.session.description, /X-Archive-Session and X_ARCHIVESSPACE_SESSION/);

    const login = doc.paths['/users/{username}/login'].post;
    assert.deepEqual(login.security, [{}, { session: [] }]);
    assert.ok(login.responses['429'] && login.responses['403'] && login.responses['412']);
    assert.ok(doc.paths['/version'].get.responses['200'].content['text/plain']);
  });

  it('is the committed generated/openapi.json (make generate keeps it current)', () => {
    const committed = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'generated', 'openapi.json'), 'utf8'));
    assert.deepEqual(doc, committed);
  });

  it('serves the API page with its assets from this process, under a policy that lets them run', async () => {
    const page = await t.http.get('/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type'], /^text\/html/);
    assert.equal(page.headers['content-security-policy'], DOCS_CONTENT_SECURITY_POLICY);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(/https?:/.test(page.text), false, 'nothing from another origin');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1], 'http://x/docs').pathname);
    assert.deepEqual(assets.sort(), ['/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
    for (const asset of assets) {
      const res = await t.http.get(asset);
      assert.equal(res.status, 200, asset);
      assert.match(res.headers['content-type'], asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, asset);
      assert.ok(res.text.length > 0, asset);
    }
    const bundle = await t.http.get('/docs/swagger-ui-bundle.js');
    assert.ok(bundle.text.includes('SwaggerUIBundle'));
    const init = await t.http.get('/docs/init.js');
    assert.match(init.text, /'openapi\.json'/);
    assert.match(init.text, /validatorUrl: null/);
    assert.equal((await t.http.get('/docs/swagger-ui.js.map')).status, 404);
  });
});
