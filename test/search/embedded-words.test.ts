/**
 * The embedded index's words: one FTS row per document with a column for each word field the
 * catalogue knew when the table was made, and rows of their own for any other text field. A word
 * is found in its own field only, through either layout, after updates and deletes, by a second
 * opener, and across a rebuild that gives the newly known fields their columns.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SearchDoc } from '../../src/search/documents';
import Database from 'better-sqlite3';
import { EmbeddedIndex, FTS_AUTOMERGE } from '../../src/search/embedded';
import { FieldCatalogue } from '../../src/search/fields';
import type { SearchRequest } from '../../src/search/port';

function request(field: string, value: string, wildcard?: 'prefix'): SearchRequest {
  return {
    query: { kind: 'text', field, value, ...(wildcard ? { wildcard } : {}) },
    filters: [], sort: [{ field: 'uri', desc: false }], offset: 0, limit: 10, facets: [], facetMincount: 1, facetLimit: 10,
  };
}

const found = async (index: EmbeddedIndex, field: string, value: string, wildcard?: 'prefix') =>
  (await index.search(request(field, value, wildcard))).docs.map((d) => d.uri);

// `box_u_utext` is a text field by its suffix that no schema maps: the plain catalogue gives it no column.
function doc(n: number, title: string, box?: string, extra: Record<string, string> = {}): SearchDoc {
  return { id: `/x/${n}`, uri: `/x/${n}`, primary_type: 'accession', title, fullrecord: `record ${title}`, ...(box ? { box_u_utext: box } : {}), ...extra, json: '{}' };
}

describe('embedded index: the words of known and other text fields', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emb-words-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds a word in its own field only, whether the field has a column or rows of its own', async () => {
    const file = path.join(dir, 'i.db');
    const index = new EmbeddedIndex(file, new FieldCatalogue([]));
    const second = new EmbeddedIndex(file, new FieldCatalogue([]));
    try {
      await index.apply([doc(1, 'Harbour maps', 'oak chest'), doc(2, 'Oak letters'), doc(3, 'Ledgers', 'harbour crate', { other_u_stext: 'oak' })], [], { checkpoint: 1, storeId: 's' });
      for (const reader of [index, second]) {
        assert.deepEqual(await found(reader, 'title', 'oak'), ['/x/2']);
        assert.deepEqual(await found(reader, 'box_u_utext', 'oak'), ['/x/1']);
        assert.deepEqual(await found(reader, 'other_u_stext', 'oak'), ['/x/3']);
        assert.deepEqual(await found(reader, 'box_u_utext', 'harbour'), ['/x/3']);
        assert.deepEqual(await found(reader, 'title', 'harbour'), ['/x/1']);
        assert.deepEqual(await found(reader, 'fullrecord', 'harbour'), ['/x/1']);
        assert.deepEqual(await found(reader, 'title', 'led', 'prefix'), ['/x/3']);
        assert.deepEqual(await found(reader, 'box_u_utext', 'cr', 'prefix'), ['/x/3']);
        assert.deepEqual(await found(reader, 'title', 'chest'), [], 'a word of another field of the same document');
      }

      // Updates replace both layouts' words; deletes remove them.
      await index.apply([doc(1, 'Oak maps'), doc(3, 'Ledgers', 'pine crate')], ['/x/2'], { checkpoint: 2, storeId: 's' });
      for (const reader of [index, second]) {
        assert.deepEqual(await found(reader, 'title', 'oak'), ['/x/1']);
        assert.deepEqual(await found(reader, 'title', 'harbour'), []);
        assert.deepEqual(await found(reader, 'box_u_utext', 'oak'), [], 'the field the update left out');
        assert.deepEqual(await found(reader, 'box_u_utext', 'harbour'), []);
        assert.deepEqual(await found(reader, 'box_u_utext', 'pine'), ['/x/3']);
        assert.deepEqual(await found(reader, 'other_u_stext', 'oak'), []);
        assert.deepEqual(await found(reader, 'fullrecord', 'letters'), [], 'the deleted document');
      }
    } finally {
      await second.close();
      await index.close();
    }
  });

  it('a rebuild gives a column to a field the catalogue has come to know, with the same answers', async () => {
    const file = path.join(dir, 'i.db');
    const before = new EmbeddedIndex(file, new FieldCatalogue([]));
    await before.apply([doc(1, 'Maps', 'oak chest'), doc(2, 'Oak', 'pine')], [], { checkpoint: 1, storeId: 's' });
    assert.deepEqual(await found(before, 'box_u_utext', 'oak'), ['/x/1']);
    await before.close();

    // A schema now maps the field: the file keeps its table until a rebuild makes it again.
    const after = new EmbeddedIndex(file, new FieldCatalogue(['box_u_utext']));
    try {
      assert.deepEqual(await found(after, 'box_u_utext', 'oak'), ['/x/1']);
      await after.clear('s');
      await after.apply([doc(1, 'Maps', 'oak chest'), doc(2, 'Oak', 'pine')], [], { checkpoint: 1, storeId: 's' });
      assert.deepEqual(await found(after, 'box_u_utext', 'oak'), ['/x/1']);
      assert.deepEqual(await found(after, 'title', 'oak'), ['/x/2']);
      assert.deepEqual(await found(after, 'box_u_utext', 'maps'), []);
    } finally {
      await after.close();
    }
    // The table made anew keeps the index's merge setting (FTS5 keeps it in the table's own configuration).
    const file2 = new Database(file, { readonly: true });
    try {
      assert.equal(file2.prepare(`SELECT v FROM search_text_config WHERE k = 'automerge'`).pluck().get(), FTS_AUTOMERGE);
    } finally {
      file2.close();
    }
  });

  it('a process writing after another rebuilt the table with more columns writes into the new ones', async () => {
    const file = path.join(dir, 'i.db');
    const older = new EmbeddedIndex(file, new FieldCatalogue([]));
    const newer = new EmbeddedIndex(file, new FieldCatalogue(['box_u_utext']));
    try {
      await older.apply([doc(1, 'Maps', 'oak chest')], [], { checkpoint: 1, storeId: 's' });
      await newer.clear('s');
      // The older process has not looked at the file since: its write catches up first.
      // year_sort: the last word field by name, so the last column of the new table.
      await older.apply([doc(2, 'Oak', 'pine', { year_sort: 'elm' }), doc(3, 'Zinc', 'oak', { zeta_u_utext: 'oak' })], [], { checkpoint: 2, storeId: 's' });
      for (const reader of [older, newer]) {
        assert.deepEqual(await found(reader, 'box_u_utext', 'oak'), ['/x/3']);
        assert.deepEqual(await found(reader, 'box_u_utext', 'pine'), ['/x/2']);
        assert.deepEqual(await found(reader, 'title', 'oak'), ['/x/2']);
        assert.deepEqual(await found(reader, 'zeta_u_utext', 'oak'), ['/x/3']);
        assert.deepEqual(await found(reader, 'year_sort', 'elm'), ['/x/2']);
        assert.deepEqual(await found(reader, 'title', 'maps'), [], 'cleared by the rebuild');
      }
    } finally {
      await newer.close();
      await older.close();
    }
  });
});
