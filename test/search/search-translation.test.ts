import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedIndex } from '../../src/search/embedded';
import { FieldCatalogue } from '../../src/search/fields';
import { parseAdvanced, parseLucene, resolveDateMath } from '../../src/search/query';
import { collectionSchema, toTypesenseDocument, TypesenseIndex, TypesenseTranslator } from '../../src/search/typesense';

const fields = new FieldCatalogue(['first_term_type', 'barcode_u_sstr', 'linked_record_uris']);
const o = { fields, defaultField: 'fullrecord' };
const lucene = (q: string) => parseLucene(q, o);

describe('query parsing (no database)', () => {
  it('follows edismax: default AND, OR loosens its neighbours, -/NOT exclude, lowercase and is a word', () => {
    assert.deepEqual(lucene('civil war'), { kind: 'and', items: [{ kind: 'text', field: 'fullrecord', value: 'civil' }, { kind: 'text', field: 'fullrecord', value: 'war' }] });
    assert.deepEqual(lucene('a OR b'), { kind: 'or', items: [{ kind: 'text', field: 'fullrecord', value: 'a' }, { kind: 'text', field: 'fullrecord', value: 'b' }] });
    assert.deepEqual(lucene('a b OR c'), { kind: 'text', field: 'fullrecord', value: 'a' }, 'a is required, b and c only rank');
    assert.deepEqual(lucene('a -b'), { kind: 'and', items: [{ kind: 'text', field: 'fullrecord', value: 'a' }, { kind: 'not', item: { kind: 'text', field: 'fullrecord', value: 'b' } }] });
    assert.deepEqual(lucene('a NOT b'), lucene('a -b'));
    assert.deepEqual(lucene('x and y').kind, 'and');
    assert.equal((lucene('x and y') as any).items.length, 3);
  });

  it('knows fields: exact terms, exists, ranges with date math, unknown prefixes as words', () => {
    assert.deepEqual(lucene('primary_type:resource'), { kind: 'term', field: 'primary_type', value: 'resource' });
    assert.deepEqual(lucene('-owner_repo_display_string_u_ssort:*'), { kind: 'not', item: { kind: 'exists', field: 'owner_repo_display_string_u_ssort' } });
    assert.deepEqual(lucene('*:*'), { kind: 'all' });
    assert.deepEqual(lucene('years:[1900 TO *]'), { kind: 'range', field: 'years', from: '1900', to: undefined, fromInclusive: true, toInclusive: true });
    assert.deepEqual(lucene('nosuch:thing'), { kind: 'text', field: 'fullrecord', value: 'nosuch thing' });
    assert.deepEqual(lucene('smi*'), { kind: 'text', field: 'fullrecord', value: 'smi', wildcard: 'prefix' });
    assert.deepEqual(lucene('linked_record_uris:"/repositories/2/accessions/5"'), { kind: 'term', field: 'linked_record_uris', value: '/repositories/2/accessions/5' });
    assert.equal(resolveDateMath('2020-03-01T00:00:00Z+1MONTH-1MILLISECOND'), '2020-03-31T23:59:59.999Z');
    assert.deepEqual(lucene(''), { kind: 'none' });
  });

  it('translates advanced queries as the reference does (NOT with one subquery does not negate; filter is literal)', () => {
    const aq = (query: object, literal = false) => parseAdvanced(JSON.stringify({ jsonmodel_type: 'advanced_query', query }), { ...o, literal, param: 'aq' });
    assert.deepEqual(aq({ jsonmodel_type: 'boolean_query', op: 'NOT', subqueries: [{ jsonmodel_type: 'field_query', field: 'primary_type', value: 'resource' }] }), { kind: 'term', field: 'primary_type', value: 'resource' });
    assert.deepEqual(aq({ jsonmodel_type: 'field_query', field: 'subjects', value: 'Maps' }, true), { kind: 'text', field: 'subjects_text', value: 'Maps' });
    assert.deepEqual(aq({ jsonmodel_type: 'field_query', field: 'level', comparator: 'empty' }), { kind: 'not', item: { kind: 'exists', field: 'level' } });
    assert.deepEqual(aq({ jsonmodel_type: 'date_field_query', field: 'create_time', value: '2020-03', comparator: 'equal', precision: 'month' }),
      { kind: 'range', field: 'create_time', from: '2020-03-01T00:00:00.000Z', to: '2020-03-31T23:59:59.999Z', fromInclusive: true, toInclusive: true });
    assert.throws(() => aq({ field: 'x' }), /jsonmodel_type/);
  });
});

describe('embedded index doc values (one file, two openers)', () => {
  it('answers filters, facets and sorts from doc values, and a second opener follows the first one\'s writes', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'emb-')), 'search.db');
    const writer = new EmbeddedIndex(file, fields);
    const reader = new EmbeddedIndex(file, fields);
    try {
      const doc = (n: number, subjects: string[], title: string) => ({ id: `/x/${n}`, uri: `/x/${n}`, primary_type: 'accession', subjects, title_sort: title, fullrecord: `civil war ${n}`, title });
      await writer.apply([doc(1, ['Maps', 'Ships'], 'Box 10'), doc(2, ['Maps'], 'box 2'), doc(3, [], 'Álbum')], [], { checkpoint: 1, storeId: 's' });
      const request = { query: lucene('civil war'), filters: [], sort: [{ field: 'title_sort', desc: false }], offset: 0, limit: 10, facets: ['subjects'], facetMincount: 1, facetLimit: 10 };
      for (const index of [writer, reader]) {
        const r = await index.search(request);
        assert.deepEqual(r.docs.map((d) => d.uri), ['/x/3', '/x/2', '/x/1'], 'collated order: accents folded, digits numeric');
        assert.deepEqual(r.facets.subjects, [['Maps', 2], ['Ships', 1]]);
      }
      await writer.apply([doc(2, ['Ships'], 'box 2')], ['/x/1'], { checkpoint: 2, storeId: 's' });
      const after = await reader.search({ ...request, filters: [lucene('subjects:Ships')] });
      assert.deepEqual(after.docs.map((d) => d.uri), ['/x/2'], 'the reader caught up with an update and a delete');
      assert.equal(await reader.count(), 2);
      await writer.clear('t');
      assert.equal(await reader.count(), 0, 'a cleared index is cleared for every opener');
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});

describe('embedded index: rebuild pages in flight', () => {
  it('refuses a page whose predecessor did not land (rebuiltFrom), writing nothing of it, and takes pages in order', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'emb-')), 'search.db');
    const index = new EmbeddedIndex(file, fields);
    try {
      const doc = (n: number) => ({ id: `/x/${n}`, uri: `/x/${n}`, primary_type: 'accession', title: `t ${n}`, fullrecord: `page word${n}` });
      await index.apply([], [], { checkpoint: 0, storeId: 's', rebuiltTo: 0 });
      await index.apply([doc(1)], [], { checkpoint: 0, storeId: 's', rebuiltTo: 10, rebuiltFrom: 0 });
      // The page after row 20 arrives while the one up to row 20 failed: it must not mark the rebuild as past it.
      await assert.rejects(index.apply([doc(3)], [], { checkpoint: 0, storeId: 's', rebuiltTo: 30, rebuiltFrom: 20 }), /after row 20 came before that row was written/);
      assert.equal((await index.state()).rebuiltTo, 10, 'a resumed rebuild goes on after the last page written');
      assert.deepEqual((await index.uris()).sort(), ['/x/1']);
      const word3 = await index.search({ query: lucene('word3'), filters: [], sort: [], offset: 0, limit: 10, facets: [], facetMincount: 1, facetLimit: 10 });
      assert.equal(word3.total, 0, 'nothing of the refused page is searchable');
      await index.apply([doc(2)], [], { checkpoint: 0, storeId: 's', rebuiltTo: 20, rebuiltFrom: 10 });
      await index.apply([doc(3)], [], { checkpoint: 0, storeId: 's', rebuiltTo: 30, rebuiltFrom: 20 });
      assert.equal((await index.state()).rebuiltTo, 30);
      assert.equal(await index.count(), 3);
    } finally {
      await index.close();
    }
  });
});

describe('Typesense translation (no server)', () => {
  const t = new TypesenseTranslator(fields);
  it('puts words in q and everything else in filter_by', () => {
    assert.deepEqual(t.query(lucene('civil war'), [lucene('primary_type:resource')]), { q: 'civil war', query_by: 'fullrecord', filter_by: 'primary_type:=`resource`' });
    assert.deepEqual(t.query(lucene('*:*'), []), { q: '*', query_by: 'fullrecord' });
    assert.deepEqual(t.query(lucene('smi*'), []), { q: 'smi', query_by: 'fullrecord', prefix: true });
    assert.equal(t.query(lucene('publish:true AND years:[1860 TO 1870]'), []).filter_by, 'publish:=true && (years:>=1860 && years:<=1870)');
    assert.equal(t.query(lucene('create_time:[2020-01-01T00:00:00Z TO *]'), []).filter_by, `(create_time__ms:>=${Date.parse('2020-01-01T00:00:00Z')})`);
    assert.equal(t.query(lucene('-owner_repo_display_string_u_ssort:*'), []).filter_by, '__present:!=`owner_repo_display_string_u_ssort`');
    assert.equal(t.query(lucene('primary_type:resource OR primary_type:accession'), []).filter_by, '(primary_type:=`resource` || primary_type:=`accession`)');
    assert.equal(t.query(lucene('-primary_type:resource'), []).filter_by, 'primary_type:!=`resource`');
    assert.equal(t.query(lucene('identifier:SC'), []).filter_by, '(identifier__key:=`sc` || identifier:`SC`)');
    assert.equal(t.query(lucene('-identifier:SC'), []).filter_by, 'identifier__key:!=`sc`');
  });
  it('refuses what Typesense cannot express with a 400, not a wrong answer', () => {
    assert.throws(() => t.query(lucene('civil -war'), []), (e: any) => e.status === 400 && /not supported by the Typesense/.test(JSON.stringify(e.body)));
    assert.throws(() => t.query(lucene('top_container_u_typeahead_utext:*box12*'), []), (e: any) => e.status === 400);
  });
  it('sorts on helper keys: collation keys for strings, epoch ms for dates, text match for score', () => {
    assert.equal(t.sort([{ field: 'title_sort', desc: false }, { field: 'create_time', desc: true }, { field: 'score', desc: true }]), 'title_sort__key:asc,create_time__ms:desc,_text_match:desc');
  });
  it('maps documents: presence list, date ms, collation keys; the schema declares the helpers', () => {
    const doc = toTypesenseDocument({ id: '/r/1', uri: '/r/1', title_sort: 'Box 2', create_time: '2020-01-01T00:00:00Z', types: ['resource'] }, fields);
    assert.equal(doc.id, '/r/1');
    assert.deepEqual(doc.__present, ['uri', 'title_sort', 'create_time', 'types']);
    assert.equal(doc.create_time__ms, Date.parse('2020-01-01T00:00:00Z'));
    assert.equal(doc.title_sort__key, 'box 000000000002');
    assert.ok((collectionSchema('c').fields as any[]).some((f) => f.name === '.*__ms' && f.type === 'int64'));
  });
});

describe('Typesense adapter against a live server (TYPESENSE_URL)', function () {
  this.timeout(30_000);
  let index: TypesenseIndex;
  before(function () {
    if (!process.env.TYPESENSE_URL) {
      console.log('      SKIPPED: set TYPESENSE_URL (and TYPESENSE_API_KEY) to run the Typesense integration tests');
      this.skip();
    }
    index = new TypesenseIndex(process.env.TYPESENSE_URL!, process.env.TYPESENSE_API_KEY ?? 'xyz', `test_${crypto.randomBytes(4).toString('hex')}`, fields);
  });
  it('indexes, searches with filters and facets, deletes, and keeps its checkpoint', async () => {
    await index.clear('store-1');
    await index.apply([
      { id: '/a/1', uri: '/a/1', primary_type: 'accession', title: 'Civil war letters', fullrecord: 'Civil war letters', types: ['accession'], publish: true },
      { id: '/r/1', uri: '/r/1', primary_type: 'resource', title: 'Maps', fullrecord: 'Maps of Texas', types: ['resource'], publish: false },
    ], [], { checkpoint: 7, storeId: 'store-1' });
    // No rebuild under way: rebuiltTo is null (the resumable reindex's mark).
    assert.deepEqual(await index.state(), { checkpoint: 7, storeId: 'store-1', rebuiltTo: null });
    const hit = await index.search({ query: lucene('civil'), filters: [lucene('publish:true')], sort: [], offset: 0, limit: 10, facets: ['primary_type'], facetMincount: 1, facetLimit: 100 });
    assert.deepEqual(hit.docs.map((d) => d.uri), ['/a/1']);
    assert.deepEqual(hit.facets.primary_type, [['accession', 1]]);
    await index.apply([], ['/a/1'], { checkpoint: 8, storeId: 'store-1' });
    assert.equal(await index.count(), 1);
  });

  it('keeps a rebuild mark through applies that do not mention it, and drops it when told (null) or cleared', async () => {
    await index.apply([], [], { checkpoint: 9, storeId: 'store-1', rebuiltTo: 40 });
    await index.apply([], [], { checkpoint: 10, storeId: 'store-1' });
    assert.deepEqual(await index.state(), { checkpoint: 10, storeId: 'store-1', rebuiltTo: 40 });
    await index.apply([], [], { checkpoint: 11, storeId: 'store-1', rebuiltTo: null });
    assert.deepEqual(await index.state(), { checkpoint: 11, storeId: 'store-1', rebuiltTo: null });
    await index.apply([], [], { checkpoint: 12, storeId: 'store-1', rebuiltTo: 3 });
    await index.clear('store-2');
    assert.deepEqual(await index.state(), { checkpoint: 0, storeId: 'store-2', rebuiltTo: null });
  });
});
