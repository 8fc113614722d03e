/**
 * The embedded index against a brute-force evaluator: random documents, random writes (upserts,
 * updates, deletes) and random queries (words, terms, year ranges, exists, and / or / not), with
 * facets and a sort (one to three keys, single- and multi-valued, pages near the front and further). A second opener of the same file follows the writer and must answer the same.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { SearchDoc } from '../../src/search/documents';
import { EmbeddedIndex } from '../../src/search/embedded';
import { collationKey, FieldCatalogue } from '../../src/search/fields';
import type { SearchRequest, SortKey } from '../../src/search/port';
import type { Query } from '../../src/search/query';

const fields = new FieldCatalogue([]);
const WORDS = ['civil', 'war', 'river', 'mill', 'harbour', 'letters', 'maps'];
const TYPES = ['accession', 'resource', 'archival_object'];
const SUBJECTS = ['Maps', 'Ships', 'Texas', 'Mills'];

interface Doc {
  uri: string;
  primary_type: string;
  subjects: string[];
  years: number[];
  publish: boolean;
  words: string[];
  title: string;
}

const docArb = (n: number) => fc.record({
  primary_type: fc.constantFrom(...TYPES),
  subjects: fc.uniqueArray(fc.constantFrom(...SUBJECTS), { maxLength: 3 }),
  years: fc.option(fc.tuple(fc.integer({ min: 1800, max: 1900 }), fc.integer({ min: 0, max: 30 })), { nil: undefined }),
  publish: fc.boolean(),
  words: fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
  title: fc.constantFrom('Box 2', 'box 10', 'Álbum', 'Zeta', 'alpha', 'Box 1'),
}).map((d): Doc => {
  const years: number[] = [];
  if (d.years) for (let y = d.years[0]; y <= d.years[0] + d.years[1]; y++) years.push(y);
  return { uri: `/x/${n}`, primary_type: d.primary_type, subjects: d.subjects, years, publish: d.publish, words: d.words, title: `${d.title} ${n}` };
});

function toSearchDoc(d: Doc): SearchDoc {
  const doc: SearchDoc = { id: d.uri, uri: d.uri, primary_type: d.primary_type, publish: d.publish, fullrecord: d.words.join(' '), title: d.title, title_sort: d.title, json: JSON.stringify(d) };
  if (d.subjects.length) doc.subjects = d.subjects;
  if (d.years.length) doc.years = d.years;
  return doc;
}

const queryArb: fc.Arbitrary<Query> = fc.letrec<{ q: Query }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...WORDS).map((value): Query => ({ kind: 'text', field: 'fullrecord', value })),
    fc.constantFrom(...TYPES).map((value): Query => ({ kind: 'term', field: 'primary_type', value })),
    fc.constantFrom(...SUBJECTS).map((value): Query => ({ kind: 'term', field: 'subjects', value })),
    fc.boolean().map((v): Query => ({ kind: 'term', field: 'publish', value: String(v) })),
    fc.integer({ min: 1795, max: 1935 }).map((y): Query => ({ kind: 'term', field: 'years', value: String(y) })),
    fc.tuple(fc.integer({ min: 1790, max: 1940 }), fc.integer({ min: 0, max: 40 }), fc.boolean(), fc.boolean()).map(([from, span, fi, ti]): Query =>
      ({ kind: 'range', field: 'years', from: String(from), to: String(from + span), fromInclusive: fi, toInclusive: ti })),
    fc.constantFrom('subjects', 'years').map((field): Query => ({ kind: 'exists', field })),
    tie('q').map((item): Query => ({ kind: 'not', item })),
    fc.array(tie('q'), { minLength: 2, maxLength: 3 }).map((items): Query => ({ kind: 'and', items })),
    fc.array(tie('q'), { minLength: 2, maxLength: 3 }).map((items): Query => ({ kind: 'or', items })),
  ),
})).q;

function matches(d: Doc, q: Query): boolean {
  switch (q.kind) {
    case 'all': return true;
    case 'none': return false;
    case 'not': return !matches(d, q.item);
    case 'and': return q.items.every((i) => matches(d, i));
    case 'or': return q.items.some((i) => matches(d, i));
    case 'text': return d.words.includes(q.value);
    case 'exists': return q.field === 'subjects' ? d.subjects.length > 0 : d.years.length > 0;
    case 'term':
      if (q.field === 'primary_type') return d.primary_type === q.value;
      if (q.field === 'subjects') return d.subjects.includes(q.value);
      if (q.field === 'publish') return String(d.publish) === q.value;
      return d.years.includes(Number(q.value));
    case 'range': {
      const from = Number(q.from);
      const to = Number(q.to);
      return d.years.some((y) => (q.fromInclusive ? y >= from : y > from) && (q.toInclusive ? y <= to : y < to));
    }
  }
}

function facet(hits: Doc[], of: (d: Doc) => string[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const d of hits) for (const v of new Set(of(d))) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, 10);
}

/** Sorts on one to four keys; ties (often, without title_sort last) go in index order. */
const sortArb = fc.tuple(
  fc.constantFrom([], ['years'], ['primary_type', 'years'], ['score'], ['years', 'primary_type']),
  fc.boolean(),
  fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
).map(([lead, titled, descs]): SortKey[] => [...lead, ...(titled || !lead.length ? ['title_sort'] : [])].map((field, i) => ({ field, desc: descs[i] })));

/** Pages: small ones near the front take the top-k path, larger ones a full sort. */
const pageArb = fc.tuple(fc.constantFrom(0, 0, 1, 3, 7), fc.constantFrom(1, 2, 5));

/** One sort key's value of a brute-force document (null: missing, last either way). */
function sortValue(d: Doc, key: SortKey): string | number | null {
  switch (key.field) {
    case 'title_sort': return collationKey(d.title).slice(0, 200);
    case 'primary_type': return d.primary_type;
    case 'years': return d.years.length ? (key.desc ? Math.max(...d.years) : Math.min(...d.years)) : null;
    default: return 0;
  }
}

/** The order of a sort, then of the index's document ids. */
function bySort(sort: SortKey[], idOf: (uri: string) => number): (a: Doc, b: Doc) => number {
  return (a, b) => {
    for (const key of sort) {
      const va = sortValue(a, key);
      const vb = sortValue(b, key);
      if (va === vb) continue;
      if (va === null) return 1;
      if (vb === null) return -1;
      return (va < vb) !== key.desc ? -1 : 1;
    }
    return idOf(a.uri) - idOf(b.uri);
  };
}

const stepArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 39 }), fc.constantFrom('put', 'put', 'delete' as const), fc.integer({ min: 0, max: 1_000_000 })), { minLength: 5, maxLength: 60 });

describe('embedded index against a brute-force evaluator (property)', function () {
  // About 20 s alone on a slow machine (19.4 s with the index of 9d3a33e, 19.9 s now): the suite's
  // 20 s failed it whenever a CI run's other work shared the cores.
  this.timeout(120_000);
  it('every random query answers the same hits, facets and sorted page as brute force, on the writer and on a second opener', async () => {
    // 200 runs check about 1,250 generated queries (issue 20 asks for 1,000), each on both openers.
    const runs = Number(process.env.PROPERTY_RUNS ?? 200);
    let checked = 0;
    const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
    await fc.assert(
      fc.asyncProperty(stepArb, fc.array(queryArb, { minLength: 3, maxLength: 6 }), sortArb, pageArb, async (steps, queries, sort, [offset, limit]) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emb-prop-'));
        const writer = new EmbeddedIndex(path.join(dir, 'i.db'), fields);
        const reader = new EmbeddedIndex(path.join(dir, 'i.db'), fields);
        try {
          const truth = new Map<string, Doc>();
          const check = async (q: Query) => {
            checked++;
            const expected = [...truth.values()].filter((d) => matches(d, q));
            // Ties in index order: the ids the index gave the documents (the same in both openers).
            const sorted = [...expected].sort(bySort(sort, (uri) => (writer as unknown as { held: { docOf: Map<string, number> } }).held.docOf.get(uri)!));
            const request: SearchRequest = {
              query: q, filters: [], sort, offset, limit,
              facets: ['primary_type', 'subjects'], facetMincount: 1, facetLimit: 10,
            };
            for (const index of [writer, reader]) {
              const r = await index.search(request);
              const where = `${index === writer ? 'writer' : 'reader'}, query ${JSON.stringify(q)}`;
              assert.equal(r.total, expected.length, where);
              assert.deepEqual(r.docs.map((d) => d.uri), sorted.slice(offset, offset + limit).map((d) => d.uri), `${where}, sort ${JSON.stringify(sort)}, offset ${offset}, limit ${limit}`);
              assert.deepEqual(r.facets.primary_type, facet(expected, (d) => [d.primary_type]), where);
              assert.deepEqual(r.facets.subjects, facet(expected, (d) => d.subjects), where);
            }
          };
          // Writes in a few batches, each an upsert / delete mix.
          for (let b = 0; b < steps.length; b += 7) {
            const upserts: SearchDoc[] = [];
            const deletes: string[] = [];
            for (const [n, op, salt] of steps.slice(b, b + 7)) {
              const uri = `/x/${n}`;
              if (op === 'delete') {
                truth.delete(uri);
                const put = upserts.findIndex((u) => u.uri === uri);
                if (put >= 0) upserts.splice(put, 1);
                deletes.push(uri);
                continue;
              }
              const d = fc.sample(docArb(n), { numRuns: 1, seed: salt })[0];
              truth.set(uri, d);
              // A later write of the same uri in one batch replaces the earlier one.
              const at = upserts.findIndex((u) => u.uri === uri);
              if (at >= 0) upserts.splice(at, 1);
              const del = deletes.indexOf(uri);
              if (del >= 0) deletes.splice(del, 1);
              upserts.push(toSearchDoc(d));
            }
            // Deletes go first in an apply: a uri deleted then written in one batch is written.
            await writer.apply(upserts, deletes.filter((u) => !upserts.some((x) => x.uri === u)), { checkpoint: b + 1, storeId: 's' });
            // Between writes too: what the index keeps between searches must follow each write.
            await check(queries[(b / 7) % queries.length]);
          }
          for (const q of queries) await check(q);
        } finally {
          await writer.close();
          await reader.close();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: runs, seed },
    );
    if (process.env.PROPERTY_RUNS === undefined) assert.ok(checked >= 1000, `only ${checked} queries were checked`);
  });
});
