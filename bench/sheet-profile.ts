/**
 * A bulk_import_job of archival-object rows (bench/sheets.ts's sheet) against a started server,
 * for profiling and A/B runs (not part of make bench): rows per second, the CPU time per row of the
 * server and of mysqld, and on MariaDB the statements per row (the server's Com_* counters).
 * SHEET_PROFILE_ROWS (default 5,000); DB_URL picks the store (a scratch SQLite file by default,
 * or e.g. mysql://root@127.0.0.1:3306/sheetprof); SHEET_PROFILE_NODE_ARGS go to the server's node
 * (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'); SHEET_PROFILE_INDEXER=off leaves the index out;
 * SHEET_PROFILE_UPDATER=1 then makes the updater sheet of the resource (bench/updater-sheet.ts's row);
 * SHEET_PROFILE_SIGNAL=1 sends the server SIGUSR2 right before and after the job (a counter's window).
 */
import { runJob } from './jobs';
import { cpuMs, mysqlCounters, mysqldPid, profileAgainstServer } from './lib';
import { aoSheet, sheetResource } from './sheets';
import { benchUpdaterSheet } from './updater-sheet';

const n = Number(process.env.SHEET_PROFILE_ROWS ?? 5000);
profileAgainstServer('sheet-profile', { INDEXER: process.env.SHEET_PROFILE_INDEXER ?? 'on' }, (process.env.SHEET_PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean), async (server, dbUrl) => {
  const login = await (await fetch(`${server.base}/users/admin/login?password=admin`, { method: 'POST' })).json() as { session: string };
  const H = { 'X-ArchivesSpace-Session': login.session };
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(server.base + url, { method, headers: { ...H, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const repo = `/repositories/${(await call('POST', '/repositories', { repo_code: `S${Date.now()}`, name: 'Sheets' })).id}`;
  const ead = `PROF${Date.now()}`;
  const resource = await sheetResource(call, repo, ead);
  const csv = aoSheet(n, ead);
  const before = await mysqlCounters(dbUrl);
  const dbPid = dbUrl.startsWith('mysql://') ? mysqldPid() : undefined;
  const cpuBefore = [cpuMs(server.child.pid), cpuMs(dbPid)];
  const signal = () => process.env.SHEET_PROFILE_SIGNAL && process.kill(server.child.pid!, 'SIGUSR2');
  signal();
  const { job, seconds } = await runJob(server.base, repo, H, { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'ao', content_type: 'csv', filename: 'p.csv' },
    {}, { name: 'p.csv', data: csv });
  signal();
  const cpu = [cpuMs(server.child.pid) - cpuBefore[0], cpuMs(dbPid) - cpuBefore[1]];
  const after = await mysqlCounters(dbUrl);
  const per = Object.entries(after).map(([k, v]) => `${k} ${((v - (before[k] ?? 0)) / n).toFixed(2)}`).join(', ');
  const inside = /\(\d+ rows\/s\)/.exec(await (await fetch(`${server.base}${job.uri}/log`, { headers: H })).text())?.[0] ?? '';
  console.log(`bulk import ${job.status}: ${n} rows in ${seconds.toFixed(1)} s, ${Math.round(n / seconds)} rows/s ${inside} inside the job; CPU per row: server ${Math.round((cpu[0] / n) * 1000)} µs${dbPid ? `, mysqld ${Math.round((cpu[1] / n) * 1000)} µs` : ''}${per ? `; per row: ${per}` : ''}`);
  if (process.env.SHEET_PROFILE_UPDATER) await benchUpdaterSheet(server.base, dbUrl.startsWith('mysql://') ? 'mariadb' : 'sqlite', server.child.pid, repo, resource.uri, H, n);
});
