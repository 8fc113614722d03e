/**
 * The embedded index's per-query time, in process (no HTTP, no worker): opens an index file (the
 * bench's archive.search.db, kept with BENCH_KEEP=1) and times the bench's search rows as the
 * index worker answers them. `node --cpu-prof -r tsx/cjs bench/search-profile.ts <file>` shows
 * where the time goes.
 *
 *   npx tsx bench/search-profile.ts /tmp/archive-bench-XXXX/archive.search.db [runs]
 */
import { loadRegistry } from '../src/registry';
import { EmbeddedIndex } from '../src/search/embedded';
import { FieldCatalogue } from '../src/search/fields';
import type { SearchRequest } from '../src/search/port';
import { or, parseLucene, term, type Query } from '../src/search/query';

const file = process.argv[2];
if (!file) throw new Error('usage: bench/search-profile.ts <index file> [runs]');
const runs = Number(process.argv[3] ?? 200);

const registry = loadRegistry();
const mapped = Object.values(registry.types).flatMap((t) => Object.keys(t.search?.fields ?? {}));
const boosts = Object.fromEntries(Object.values(registry.types).filter((t) => t.search?.boost).map((t) => [t.name, t.search!.boost!]));
const fields = new FieldCatalogue(mapped);

const opened = process.hrtime.bigint();
const index = new EmbeddedIndex(file, fields, boosts);
console.log(`opened in ${(Number(process.hrtime.bigint() - opened) / 1e6).toFixed(0)} ms`);

const repo = process.env.REPO ?? '/repositories/2';
const options = { fields, defaultField: 'fullrecord' };
const facets = ['primary_type', 'subjects'];
const scope: Query[] = [or([term('repository', repo), term('repository', 'global')]), term('suppressed', 'false')];
const titleSort = [{ field: 'title_sort', desc: false }];
const score = [{ field: 'score', desc: true }];

function request(q: string, sort: SearchRequest['sort'], fq: string[] = []): SearchRequest {
  const filters = [scope[0], ...fq.map((f) => parseLucene(f, options, 'filter_query')), scope[1]];
  return { query: parseLucene(q, options), filters, sort, offset: 0, limit: 10, facets, facetMincount: 0, facetLimit: 100 };
}

const rows: Array<[string, SearchRequest]> = [
  ['1 document', request('u4242', score)],
  ['1%', request('batch42', score)],
  ['10%', request('topic4', score)],
  ['100%', request('society', score)],
  ['10% sorted', request('topic4', titleSort)],
  ['100% sorted', request('society', titleSort)],
  ['two-filter sorted', request('society', titleSort, ['years:[1850 TO 1860]', 'primary_type:accession'])],
];

void (async () => {
  for (const [what, r] of rows.filter(([w]) => !process.env.ONLY || w === process.env.ONLY)) {
    const first = await index.search(r);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = process.hrtime.bigint();
      await index.search(r);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
    const bytes = JSON.stringify(first).length;
    console.log(`${what.padEnd(20)} hits ${String(first.total).padStart(6)}  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  (${bytes} bytes)`);
  }
  if (process.env.AFTER_WRITE) {
    // The first search after a write rebuilds what the index keeps between searches (on a copy of the file!).
    for (const [what, r] of rows.filter(([w]) => !process.env.ONLY || w === process.env.ONLY)) {
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const doc = { ...(await index.search({ ...r, offset: i, limit: 1 })).docs[0] };
        await index.apply([doc], [], { checkpoint: 0 });
        const t = process.hrtime.bigint();
        await index.search(r);
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      times.sort((a, b) => a - b);
      console.log(`${what.padEnd(20)} first search after a write: p50 ${times[5].toFixed(2)} ms, max ${times[9].toFixed(2)} ms`);
    }
  }
  await index.close();
})();
