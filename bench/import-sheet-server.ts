/**
 * bulk_import_job (load_type ao) of IMPORT_SHEET_ROWS (50,000) rows of bench/sheets.ts's sheet
 * against a server in a process of its own (as make bench runs it: the indexer on, unless
 * CHILD_INDEXER names another INDEXER value), on a scratch SQLite file: the server's peak RSS during
 * the job (VmHWM reset before the upload) and its RSS every 2 s, beside the job's own log line (the
 * rows, up to the commit). Not part of make bench. The built server by default; under tsx e.g.
 *   BENCH_SERVER_JS=src/server.ts npx tsx bench/import-sheet-server.ts   (the server run with --import tsx)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callsAs, peakRssMb, resetPeak, residentMb, startServer } from './lib';
import { runJob } from './jobs';
import { aoSheet, sheetResource } from './sheets';

const n = Number(process.env.IMPORT_SHEET_ROWS ?? 50000);
(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'child-sheet-'));
  const server = await startServer({ DB_URL: `sqlite://${dir}/store.db`, JOB_FILES_DIR: `${dir}/files`, ...(process.env.CHILD_INDEXER ? { INDEXER: process.env.CHILD_INDEXER } : {}) }, process.env.BENCH_SERVER_JS?.endsWith('.ts') ? ['--import', 'tsx'] : []);
  const pid = server.child.pid!;
  try {
    const { call, H: json } = await callsAs(server.base, 'admin', process.env.ADMIN_PASSWORD ?? 'admin');
    const H = { 'X-ArchivesSpace-Session': json['X-ArchivesSpace-Session'] };
    const repo = `/repositories/${(await call('POST', '/repositories', { repo_code: `C${Date.now()}`, name: 'C' })).id}`;
    const ead = `C${Date.now()}`;
    const resource = await sheetResource(call, repo, ead);
    const csv = aoSheet(n, ead);
    await new Promise((r) => setTimeout(r, 3000));
    const samples: number[] = [];
    const reset = resetPeak(pid);
    const before = Math.round(peakRssMb(pid));
    const timer = setInterval(() => samples.push(Math.round(residentMb(pid, 'VmRSS'))), 2000);
    const r = await runJob(server.base, repo, H, { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'ao', content_type: 'csv', filename: 'p.csv' }, {}, { name: 'p.csv', data: csv });
    clearInterval(timer);
    const jobLog = await (await fetch(`${server.base}${r.job.uri}/log`, { headers: H })).text();
    console.log(jobLog.split('\n').filter((l) => /rows\/s|seconds|completed/.test(l)).join('\n'));
    console.log(`load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${n} rows in ${r.seconds.toFixed(1)} s (${Math.round(n / r.seconds)} rows/s); server peak ${Math.round(peakRssMb(pid))} MiB (reset ${reset}, ${before} before); RSS every 2 s: ${samples.join(' ')}`);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
