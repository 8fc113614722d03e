/**
 * An EAD import through a job against a started server, for profiling and A/B runs (not part of
 * make bench): components per second and, on MySQL/MariaDB, the statements the server sent per
 * component (the server's Com_* counters), and the CPU time per component of the server and of mysqld (steadier than the rate on a shared machine);
 * then how long the indexer took to catch up with it (and, on MySQL, its statements per component). IMPORT_PROFILE_COMPONENTS (default 5,000); DB_URL picks
 * the store (a scratch SQLite file by default); IMPORT_PROFILE_NODE_ARGS go to the server's node; IMPORT_PROFILE_WORKERS its processes (1).
 */
import { generatedEad, runImportJob } from './import';
import { cpuMs, mysqlCounters as counters, mysqldPid, profileAgainstServer } from './lib';

const n = Number(process.env.IMPORT_PROFILE_COMPONENTS ?? 5000);
profileAgainstServer('import-profile', { WORKERS: process.env.IMPORT_PROFILE_WORKERS ?? '1' }, (process.env.IMPORT_PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean), async (server, dbUrl) => {
  const login = await (await fetch(`${server.base}/users/admin/login?password=admin`, { method: 'POST' })).json() as { session: string };
  const H = { 'X-ArchivesSpace-Session': login.session };
  const repo = await (await fetch(`${server.base}/repositories`, { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: JSON.stringify({ repo_code: `I${Date.now()}`, name: 'Imports' }) })).json() as { id: number };
  const xml = generatedEad(n);
  const before = await counters(dbUrl);
  const dbPid = dbUrl.startsWith('mysql://') ? mysqldPid() : undefined;
  const cpuBefore = [cpuMs(server.child.pid) / 1000, cpuMs(dbPid) / 1000];
  const started = Date.now();
  const { job } = await runImportJob(server.base, `/repositories/${repo.id}`, H, xml);
  const seconds = (Date.now() - started) / 1000;
  const cpu = [cpuMs(server.child.pid) / 1000 - cpuBefore[0], cpuMs(dbPid) / 1000 - cpuBefore[1]];
  const after = await counters(dbUrl);
  const per = Object.entries(after).map(([k, v]) => `${k} ${((v - (before[k] ?? 0)) / n).toFixed(2)}`).join(', ');
  console.log(`import ${job.status}: ${n} components in ${seconds.toFixed(1)} s, ${Math.round(n / seconds)} components/s; CPU per component: server ${Math.round((cpu[0] / n) * 1e6)} µs${dbPid ? `, mysqld ${Math.round((cpu[1] / n) * 1e6)} µs` : ''}${per ? `; per component: ${per}` : ''}`);
  // Then the indexer's catch-up with what the import wrote (documents of the components, their
  // containers and whatever carries their data), until the health route has nothing pending.
  const caughtUpFrom = Date.now();
  const beforeIndex = await counters(dbUrl);
  for (;;) {
    const health = await (await fetch(`${server.base}/health`)).json() as { queue: { pending: number } };
    if (health.queue.pending === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const afterIndex = await counters(dbUrl);
  const questions = afterIndex.Questions !== undefined ? `; ${((afterIndex.Questions - beforeIndex.Questions) / n).toFixed(2)} statements per component` : '';
  console.log(`index caught up ${((Date.now() - caughtUpFrom) / 1000).toFixed(1)} s after the job ended${questions}`);
});
