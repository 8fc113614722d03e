/**
 * One report rendered in this process on an existing store (DB_URL, e.g. one
 * `BENCH_PARTS=reports BENCH_KEEP=1 make bench` kept), its output counted and dropped, for the
 * report rows' speed and memory (not part of make bench):
 * `DB_URL=… npx tsx bench/report-profile.ts accession_report pdf [rows]`, with node's
 * `--cpu-prof` for a profile (`node --cpu-prof --import tsx bench/report-profile.ts …`). It
 * prints rows/s and rows per CPU second (the steadier figure on a busy machine), and every REPORT_PROFILE_EVERY rows (5,000) the RSS and the heap after a
 * garbage collection (with `--expose-gc`): a report that holds memory per row shows a heap that
 * grows; and how long the event loop was held at most (what a request beside the report waits).
 * REPORT_PROFILE_SNAPSHOT=N writes a heap snapshot at row N.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import { cliConfig, withServices } from '../src/cli/context';
import { checkReportJob } from '../src/reports';
import { renderReport } from '../src/reports/render';

const [name = 'accession_report', format = 'pdf', most] = process.argv.slice(2);
const every = Number(process.env.REPORT_PROFILE_EVERY ?? 5000);
const snapshotAt = Number(process.env.REPORT_PROFILE_SNAPSHOT ?? 0);
const gc = (globalThis as { gc?: () => void }).gc;
const mb = (n: number) => Math.round(n / 1e6);

async function main() {
  const { report, format: f, values } = checkReportJob({ report_type: name, format, job_params: {} });
  await withServices(cliConfig(), async (s) => {
    const controller = new AbortController();
    let bytes = 0;
    let rows = 0;
    const started = process.hrtime.bigint();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    let cpuStarted = process.cpuUsage();
    let firstAt = started;
    const write = async (chunk: string | Buffer) => { bytes += chunk.length; };
    const point = () => {
      gc?.();
      const m = process.memoryUsage();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      console.log(`${rows} rows ${seconds.toFixed(1)} s: rss ${mb(m.rss)} MB, heap used ${mb(m.heapUsed)} MB${gc ? ' (after gc)' : ''}, external ${mb(m.external)} MB`);
    };
    await renderReport(report, { s, repoId: 2, format: f, includeSuppressed: false, values }, write, controller.signal, (n) => {
      rows = n;
      // From the first row: the modules' loading and the totals' pass before the rows are not the renderer's.
      if (n === 1) {
        cpuStarted = process.cpuUsage();
        firstAt = process.hrtime.bigint();
      }
      if (snapshotAt && n === snapshotAt) console.log(`heap snapshot: ${v8.writeHeapSnapshot()}`);
      if (n % every === 0) point();
      if (most && n >= Number(most)) controller.abort();
    }).catch((err) => { if (!controller.signal.aborted) throw err; });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    point();
    const cpu = process.cpuUsage(cpuStarted);
    const fromFirst = Number(process.hrtime.bigint() - firstAt) / 1e9;
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    console.log(`${name} ${f}: ${rows} rows in ${seconds.toFixed(1)} s, ${Math.round(rows / seconds)} rows/s (${Math.round(rows / fromFirst)} from the first row); from the first row ${cpuSeconds.toFixed(1)} CPU s (this process, all threads), ${Math.round(rows / cpuSeconds)} rows per CPU s; ${(bytes / 1e6).toFixed(1)} MB written; event loop held p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms, at most ${(delay.max / 1e6).toFixed(0)} ms; load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
  });
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
