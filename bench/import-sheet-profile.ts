/**
 * bulk_import_job (load_type ao) in one process, for profiling and A/B runs (not part of make
 * bench): bench/sheets.ts's sheet of IMPORT_SHEET_ROWS (5,000) rows (a date, an extent, a scope
 * note, a top container for 20 rows and an agent of 50 each) imported through POST …/jobs_with_files,
 * timed from the job's start to its end, beside two baselines in the same run: the same file read
 * by our sheet reader alone (readSheet, rows handed to a no-op), and a raw Knex insert of as many
 * rows of the records table's shape (the JSON of an archival object), 200 a statement, in one
 * transaction. DB_URL picks the store (a scratch SQLite file by default). While the job runs, the
 * process's memory is sampled: its peak RSS during the job (VmHWM, reset before it where Linux
 * allows) and, every IMPORT_SHEET_MEMORY_MS (0: never), the RSS and V8's heap then (after a full GC
 * when run with --expose-gc), to see what grows as the rows go in. IMPORT_SHEET_BASELINES=0 leaves
 * the two baselines out. Run e.g.
 *   npx tsx bench/import-sheet-profile.ts   or   node --cpu-prof --import tsx bench/import-sheet-profile.ts
 *   IMPORT_SHEET_ROWS=50000 IMPORT_SHEET_MEMORY_MS=5000 node --expose-gc --import tsx bench/import-sheet-profile.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AO_MARKER } from '../src/jobs/spreadsheets/ao-load';
import { Problems, readSheet } from '../src/jobs/spreadsheets/sheet';
import { type InProcessServer, inProcessServer } from './in-process';
import { runJob } from './jobs';
import { peakRssMb, resetPeak } from './lib';
import { aoSheet, sheetResource } from './sheets';

const n = Number(process.env.IMPORT_SHEET_ROWS ?? 5000);
const seconds = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e9;
const rate = (s: number) => `${Math.round(n / s)} rows/s (${s.toFixed(2)} s)`;
/** MB as bench/lib.ts peakRssMb counts them (MiB, as /proc gives kB). */
const mb = (bytes: number) => Math.round(bytes / 1048576);
const baselines = process.env.IMPORT_SHEET_BASELINES !== '0';
const memoryMs = Number(process.env.IMPORT_SHEET_MEMORY_MS ?? 0);

/** Every `memoryMs`, a line of this process's memory (after a full GC where --expose-gc gave one); the lines when stopped. */
function sampleMemory(): () => string[] {
  const lines: string[] = [];
  const started = Date.now();
  const gc = (globalThis as { gc?: () => void }).gc;
  const timer = memoryMs ? setInterval(() => {
    const rss = process.memoryUsage().rss;
    gc?.();
    const m = process.memoryUsage();
    lines.push(`  ${((Date.now() - started) / 1000).toFixed(0)} s: rss ${mb(rss)} MB${gc ? ` (${mb(m.rss)} after gc)` : ''}, heap used ${mb(m.heapUsed)} MB of ${mb(m.heapTotal)}, external ${mb(m.external)} MB, array buffers ${mb(m.arrayBuffers)} MB`);
  }, memoryMs) : undefined;
  return () => {
    clearInterval(timer);
    return lines;
  };
}

async function main() {
  const app = await inProcessServer('import-sheet-profile');
  const { dir, config, s, base, H, call } = app;
  try {
    const repo = `/repositories/${(await call('POST', '/repositories', { repo_code: `I${Date.now()}`, name: 'Import' })).id}`;
    const ead = `IMP${Date.now()}`;
    const resource = await sheetResource(call, repo, ead);
    const csv = aoSheet(n, ead);
    const file = path.join(dir, 'sheet.csv');
    fs.writeFileSync(file, csv);
    console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${config.dbUrl.split(':')[0]} ${n} rows, ${(csv.length / 1e6).toFixed(1)} MB`);

    if (baselines) await runBaselines(s, file);

    // With -r ./bench/mysql-statement-counter.cjs (MariaDB): the job's round trips, counted from here.
    const counter = (globalThis as { mysqlStatementCounts?: { reset(): void; take(): Map<string, number> } }).mysqlStatementCounts;
    counter?.reset();
    // The job's own peak: VmHWM reset to the current RSS before it (where Linux allows it).
    const reset = resetPeak(process.pid);
    const rssBefore = Math.round(peakRssMb(process.pid));
    const stopSampling = sampleMemory();
    const cpu = process.cpuUsage();
    const imported = await runJob(base, repo, H, { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'ao', content_type: 'csv', filename: 'p.csv' },
      {}, { name: 'p.csv', data: csv });
    const samples = stopSampling();
    const peak = Math.round(peakRssMb(process.pid));
    const jobLog = await (await fetch(`${base}${imported.job.uri}/log`, { headers: H })).text();
    const used = process.cpuUsage(cpu);
    const lastLine = jobLog.trim().split('\n').filter((l) => l.includes('rows/s')).slice(-1).join('').replace(/^.*?: imported/, 'imported');
    console.log(`bulk_import_job (${imported.job.status}): ${rate(imported.seconds)}; CPU ${Math.round((used.user + used.system) / n)} µs a row (this process); its log: ${lastLine}`);
    if (counter) {
      const counts = [...counter.take()].sort((a, b) => b[1] - a[1]);
      const total = counts.reduce((sum, [, c]) => sum + c, 0);
      console.log(`round trips to MariaDB during the job: ${total} (${(total / n).toFixed(2)} a row); the kinds sent 10 times or more:`);
      for (const [sql, c] of counts.filter(([, c]) => c >= 10)) console.log(`${String(c).padStart(7)} ${(c / n).toFixed(2).padStart(5)}/row  ${sql}`);
    }
    console.log(`peak RSS ${peak} MB (${reset ? 'during the job' : 'since the start'}; ${rssBefore} MB before it)${samples.length ? '; memory as it went:' : ''}`);
    for (const line of samples) console.log(line);
    // With -r ./bench/statement-timer.cjs: its table of statements, printed now.
    if (process.env.IMPORT_SHEET_TIMER) process.emit('SIGTERM');
    console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; rss ${mb(process.memoryUsage().rss)} MB`);
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The baselines: the sheet read alone, then raw inserts of as many rows. */
async function runBaselines(s: InProcessServer['s'], file: string) {
  let t = process.hrtime.bigint();
  await readSheet({ path: file, name: 'sheet.csv' }, 'csv', AO_MARKER, new Problems(), async () => undefined);
  console.log(`baseline, the sheet read alone (readSheet): ${rate(seconds(t))}`);
  // Raw inserts of rows as large as the import's archival objects, in a scratch table.
  const json = JSON.stringify({ jsonmodel_type: 'archival_object', title: 'Component 1', level: 'file', publish: false, dates: [{ begin: '1900', date_type: 'single', label: 'creation' }],
    extents: [{ number: '1', extent_type: 'cubic_feet', portion: 'whole' }], notes: [{ jsonmodel_type: 'note_multipart', type: 'scopecontent', subnotes: [{ content: 'Scope of 1' }] }] });
  await s.db.knex.schema.dropTableIfExists('bench_raw_rows');
  await s.db.knex.schema.createTable('bench_raw_rows', (tb) => { tb.increments('id'); tb.string('uri'); tb.text('json'); });
  t = process.hrtime.bigint();
  await s.db.knex.transaction(async (trx) => {
    for (let i = 0; i < n; i += 200) await trx('bench_raw_rows').insert(Array.from({ length: Math.min(200, n - i) }, (_, j) => ({ uri: `/x/${i + j}`, json })));
  });
  console.log(`baseline, raw Knex insert of ${n} rows (200 a statement, one transaction): ${rate(seconds(t))}`);
  await s.db.knex.schema.dropTable('bench_raw_rows');
}

main().catch((e) => {
  console.error(String((e as Error).stack ?? e).slice(0, 2000));
  process.exit(1);
});
