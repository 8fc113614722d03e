/**
 * How long the in-process indexer holds the event loop (what a request beside it waits): a store of
 * INDEXER_HOLD_RECORDS accessions (5,000), each linked to one of 50 subjects, is written with the
 * indexer stopped, then the indexer applies their change-log entries, and then rebuilds the index,
 * while perf_hooks.monitorEventLoopDelay watches and a GET is asked every 20 ms.
 * `npx tsx bench/indexer-hold.ts` (SQLite file store in a temporary folder; DB_URL for another).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { importers } from '../src/exchange/import';
import { createRepository, startTestApp } from '../test/helpers';

const n = Number(process.env.INDEXER_HOLD_RECORDS ?? 5000);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'indexer-hold-'));
  const t = await startTestApp({ DB_URL: process.env.DB_URL ?? `sqlite://${path.join(dir, 'archive.db')}` });
  try {
    const H = { 'X-ArchivesSpace-Session': await t.adminToken() };
    const repo = await createRepository(t);
    const probe = (await t.http.post(`/repositories/${repo}/accessions`).set(H).send({ id_0: 'PROBE', title: 'Probe', accession_date: '2020-01-01' })).body.uri;
    const indexer = t.services.search.indexer;
    await indexer.drain(60_000);
    await indexer.stop();
    const file = path.join(dir, 'rows.csv');
    fs.writeFileSync(file, ['accession_title,accession_number_1,accession_number_2,accession_accession_date,subject_term,subject_term_type,subject_source',
      ...Array.from({ length: n }, (_, i) => `Held ${i},HOLD,${i},2024-01-01,Topic ${i % 50},topical,local`)].join('\n'));
    await importers.accession_csv.run(t.services, repo, { username: 'admin' }, { path: file, name: 'rows.csv' }, { log: () => undefined, progress: () => undefined });

    const measure = async (label: string, work: () => Promise<unknown>) => {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      const gets: number[] = [];
      let running = true;
      const asking = (async () => {
        while (running) {
          const started = performance.now();
          await t.http.get(probe).set(H);
          gets.push(performance.now() - started);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      delay.enable();
      const started = performance.now();
      await work();
      const ms = performance.now() - started;
      delay.disable();
      running = false;
      await asking;
      gets.sort((a, b) => a - b);
      console.log(`${label}: ${(ms / 1000).toFixed(1)} s; event loop held at most ${(delay.max / 1e6).toFixed(0)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms); `
        + `${gets.length} GETs, median ${gets[gets.length >> 1]?.toFixed(0)} ms, max ${gets[gets.length - 1]?.toFixed(0)} ms; load ${os.loadavg()[0].toFixed(1)}`);
    };
    await measure(`indexing ${n} new accessions`, async () => {
      indexer.start();
      await indexer.drain(300_000);
    });
    await measure(`rebuilding the index (${n} accessions, 50 subjects)`, () => indexer.rebuild());
  } finally {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
