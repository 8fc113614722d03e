/**
 * The index's catch-up after a bulk import, in one process (not part of make bench): bench/sheets.ts's
 * sheet of IMPORT_SHEET_ROWS (10,000) rows (nested components, a top container for 20 rows, one of
 * 50 agents) imported through POST …/jobs_with_files with the indexer stopped, then the indexer
 * started and timed until it has applied every change-log entry, with the CPU it took (this process,
 * all threads). DB_URL picks the store (a scratch SQLite file by default); search in memory.
 * INDEX_PROFILE=<file> writes a CPU profile of the catch-up alone (for DevTools, or a summary by
 * function). With MariaDB's slow log at long_query_time=0 it shows the statements the catch-up sends.
 *   DB_URL=mysql://root@127.0.0.1:3306/scratch npx tsx bench/index-catch-up-profile.ts
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import { inProcessServer } from './in-process';
import { runJob } from './jobs';
import { aoSheet, sheetResource } from './sheets';

const n = Number(process.env.IMPORT_SHEET_ROWS ?? 10000);

async function main() {
  const app = await inProcessServer('index-catch-up-profile');
  const { s, base, H, call } = app;
  const indexer = s.search!.indexer;
  try {
    const repo = `/repositories/${(await call('POST', '/repositories', { repo_code: `I${Date.now()}`, name: 'Import' })).id}`;
    const ead = `IMP${Date.now()}`;
    const resource = await sheetResource(call, repo, ead);
    // The index holds what was written before the import; the import's records wait for the catch-up.
    indexer.start();
    await indexer.drain(300_000);
    await indexer.stop();
    const imported = await runJob(base, repo, H, { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'ao', content_type: 'csv', filename: 'p.csv' },
      {}, { name: 'p.csv', data: aoSheet(n, ead) });
    console.log(`${s.config.dbUrl.split(':')[0]}: ${n} rows imported (${imported.job.status}) in ${imported.seconds.toFixed(1)} s`);

    const session = new inspector.Session();
    const post = (method: string) => new Promise<any>((resolve, reject) => session.post(method, (err, r) => (err ? reject(err) : resolve(r))));
    if (process.env.INDEX_PROFILE) {
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.start');
    }
    const started = Date.now();
    const cpu = process.cpuUsage();
    indexer.start();
    await indexer.drain(900_000);
    const used = process.cpuUsage(cpu);
    const seconds = (Date.now() - started) / 1000;
    console.log(`the index caught up in ${seconds.toFixed(1)} s (${Math.round(n / seconds)} rows/s), ${((used.user + used.system) / 1e6).toFixed(1)} CPU s`);
    if (process.env.INDEX_PROFILE) fs.writeFileSync(process.env.INDEX_PROFILE, JSON.stringify((await post('Profiler.stop')).profile));
  } finally {
    await app.close();
    fs.rmSync(app.dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
