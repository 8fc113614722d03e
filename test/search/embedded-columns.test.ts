/**
 * The embedded index holds doc values only for the fields searches use: built from the file on a
 * field's first use, kept up to date by writes after it, and built at open by the next opener.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SearchDoc } from '../../src/search/documents';
import { EmbeddedIndex } from '../../src/search/embedded';
import { FieldCatalogue } from '../../src/search/fields';
import type { SearchRequest } from '../../src/search/port';
import type { Query } from '../../src/search/query';

const fields = new FieldCatalogue([]);

function doc(n: number, subjects: string[], identifier: string): SearchDoc {
  return { id: `/x/${n}`, uri: `/x/${n}`, primary_type: 'accession', fullrecord: `letters ${n}`, title: `T ${n}`, title_sort: `t ${n}`, subjects, identifier, json: '{}' };
}

function request(query: Query, facets: string[] = []): SearchRequest {
  return { query, filters: [], sort: [{ field: 'title_sort', desc: false }], offset: 0, limit: 10, facets, facetMincount: 1, facetLimit: 10 };
}

const heldColumns = (index: EmbeddedIndex) => [...(index as unknown as { held: { columns: Map<string, unknown> } }).held.columns.keys()].sort();

describe('embedded index: doc values of the fields searches use', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emb-cols-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('builds a column on first use, follows later writes, and the next opener builds it at open', async () => {
    const file = path.join(dir, 'i.db');
    const writer = new EmbeddedIndex(file, fields);
    await writer.apply([doc(1, ['Maps'], 'A-1'), doc(2, ['Maps', 'Ships'], 'A-2'), doc(3, [], 'A-3')], [], { checkpoint: 1, storeId: 's' });
    assert.deepEqual(heldColumns(writer), [], 'nothing is held before a search uses a field');

    const first = await writer.search(request({ kind: 'all' }, ['subjects']));
    assert.equal(first.total, 3);
    assert.deepEqual(first.facets.subjects, [['Maps', 2], ['Ships', 1]]);
    assert.deepEqual(first.docs.map((d) => d.uri), ['/x/1', '/x/2', '/x/3']);
    assert.deepEqual(heldColumns(writer), ['subjects', 'title_sort'], 'only the fields the search faceted and sorted on');

    // Writes after the build change the held column; the identifier column is built later, from the file as written.
    await writer.apply([doc(3, ['Ships'], 'B-3'), doc(4, ['Texas'], 'A-4')], ['/x/1'], { checkpoint: 2, storeId: 's' });
    const after = await writer.search(request({ kind: 'term', field: 'identifier', value: 'B-3' }, ['subjects']));
    assert.deepEqual(after.docs.map((d) => d.uri), ['/x/3']);
    assert.deepEqual(after.facets.subjects, [['Ships', 1]]);
    const all = await writer.search(request({ kind: 'all' }, ['subjects']));
    assert.deepEqual(all.facets.subjects, [['Ships', 2], ['Maps', 1], ['Texas', 1]]);

    // A field no document has: no column, no hits, no error.
    assert.equal((await writer.search(request({ kind: 'term', field: 'no_such_field', value: 'x' }))).total, 0);

    // The fields used are kept in the file with the next write (here one that only moves the checkpoint).
    await writer.apply([], [], { checkpoint: 3, storeId: 's' });
    const opener = new EmbeddedIndex(file, fields);
    try {
      assert.deepEqual(heldColumns(opener), ['identifier', 'subjects', 'title_sort'], 'the fields used before are built at open');
      const again = await opener.search(request({ kind: 'term', field: 'identifier', value: 'A-4' }, ['subjects']));
      assert.deepEqual(again.docs.map((d) => d.uri), ['/x/4']);
      assert.deepEqual(again.facets.subjects, [['Texas', 1]]);
    } finally {
      await opener.close();
      await writer.close();
    }
  });

  it('a rebuild (clear) keeps the list of used fields for the next opener', async () => {
    const file = path.join(dir, 'i.db');
    const index = new EmbeddedIndex(file, fields);
    await index.apply([doc(1, ['Maps'], 'A-1')], [], { checkpoint: 1, storeId: 's' });
    await index.search(request({ kind: 'term', field: 'identifier', value: 'A-1' }));
    await index.apply([doc(2, [], 'A-2')], [], { checkpoint: 2, storeId: 's' });
    await index.clear('s2');
    assert.deepEqual(heldColumns(index), ['identifier', 'title_sort']);
    await index.apply([doc(5, ['Maps'], 'C-5')], [], { checkpoint: 1, storeId: 's2' });
    assert.deepEqual((await index.search(request({ kind: 'term', field: 'identifier', value: 'C-5' }))).docs.map((d) => d.uri), ['/x/5']);
    await index.close();
    const opener = new EmbeddedIndex(file, fields);
    assert.deepEqual(heldColumns(opener), ['identifier', 'title_sort']);
    await opener.close();
  });
});
