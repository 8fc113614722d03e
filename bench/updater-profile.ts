/**
 * The bulk archival-object updater in one process, for profiling and A/B runs (not part of make
 * bench): a bulk_import_job of UPDATER_PROFILE_ROWS (5,000) rows of bench/sheets.ts's sheet (a date,
 * an extent, a scope note, a top container and an agent each), then
 *  - the updater sheet written straight to a sink (writeUpdaterSheet, no HTTP), with bench/updater-sheet.ts's columns;
 *  - two baselines over the same cells in the same run: exceljs's streaming writer with no styles,
 *    no protection and no validations, and a plain CSV of them (the records read and made into
 *    cells once, before, so both count the writing only);
 *  - the sheet through the route (POST .../generate_spreadsheet), first byte and total;
 *  - bulk_archival_object_updater_job applying that sheet with every title changed, timed from the
 *    job's start to its end (UPDATER_PROFILE_APPLY=0 leaves it out).
 * UPDATER_PROFILE_SAVE=file keeps the route's sheet. DB_URL picks the store (a scratch SQLite file by default). Run e.g.
 *   npx tsx bench/updater-profile.ts   or   node --cpu-prof --import tsx bench/updater-profile.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import ExcelJS from 'exceljs';
import type { Obj } from '../src/json';
import { treeShapeOf } from '../src/store/domain-reads';
import { ALWAYS, sheetColumns } from '../src/jobs/spreadsheets/updater-columns';
import { cellOf, linkedRecords, sheetSource, writeUpdaterSheet } from '../src/jobs/spreadsheets/updater-sheet';
import { inProcessServer } from './in-process';
import { runJob } from './jobs';
import { aoSheet, sheetResource } from './sheets';
import { editedUpdaterSheet } from './updater-sheet';

const COLUMNS = ['level', 'ref_id', 'component_id', 'publish', 'date', 'extent', 'instance', 'langmaterial', 'note_scopecontent', 'note_accessrestrict'];
const n = Number(process.env.UPDATER_PROFILE_ROWS ?? 5000);
const seconds = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e9;
const rate = (s: number) => `${Math.round(n / s)} rows/s (${s.toFixed(2)} s)`;

async function main() {
  const app = await inProcessServer('updater-profile');
  const { dir, s, base, H, call } = app;
  try {
    const repo = `/repositories/${(await call('POST', '/repositories', { repo_code: `U${Date.now()}`, name: 'Updater' })).id}`;
    const ead = `UPD${Date.now()}`;
    const resource = await sheetResource(call, repo, ead);
    const imported = await runJob(base, repo, H, { jsonmodel_type: 'bulk_import_job', resource_id: String(resource.id), load_type: 'ao', content_type: 'csv', filename: 'u.csv' },
      {}, { name: 'u.csv', data: aoSheet(n, ead) });
    console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${n} rows imported: ${rate(imported.seconds)}`);
    // Every archival object of the resource (the order does not change the timing).
    const uris = (await treeShapeOf(s.db, resource.uri)).map((r) => ({ rid: r.rid, uri: r.uri }));
    const options = { minSubrecords: 0, extraSubrecords: 3, minNotes: 2, selected: COLUMNS };

    // The cells, made once for the baselines (the same sizing as the sheet: the most any record has, plus 3).
    const records: Obj[] = [];
    for await (const batch of sheetSource(s, uris).batches()) records.push(...batch);
    const linked = await linkedRecords(s, records);
    const counts: Record<string, number> = { date: 4, extent: 4, instance: 4, digital_object: 3, language_and_script: 1, note_langmaterial: 1, scopecontent: 2, accessrestrict: 2 };
    const columns = sheetColumns(new Set([...COLUMNS, ...ALWAYS]), counts);
    const cells = records.map((ao) => columns.map((c) => cellOf(ao, c, linked)));
    console.log(`${uris.length} archival objects, ${columns.length} columns`);

    // The store's part: one pass of the reads the sheet makes per batch (the sheet makes two: sizing, then rows).
    let t = process.hrtime.bigint();
    for await (const batch of sheetSource(s, uris).batches()) await linkedRecords(s, batch);
    console.log(`one pass of the sheet's reads (records and their linked records): ${rate(seconds(t))}`);

    let bytes = 0;
    t = process.hrtime.bigint();
    await writeUpdaterSheet(s, async (chunk) => { bytes += chunk.length; }, sheetSource(s, uris), options);
    const sheetS = seconds(t);
    console.log(`updater sheet (writeUpdaterSheet, records read in it): ${rate(sheetS)}, ${(bytes / 1e6).toFixed(1)} MB`);

    const sink = new (await import('node:stream')).Writable({ write(_c, _e, done) { done(); } });
    t = process.hrtime.bigint();
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useStyles: false, useSharedStrings: false });
    const sheet = book.addWorksheet('Updates');
    for (const row of cells) sheet.addRow(row.map((v) => v ?? null)).commit();
    sheet.commit();
    await book.commit();
    const rawS = seconds(t);
    console.log(`baseline exceljs streaming, no styles: ${rate(rawS)}; the sheet's ratio to it ${(rawS / sheetS).toFixed(2)}`);

    t = process.hrtime.bigint();
    const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    let csvBytes = 0;
    for (let i = 0; i < cells.length; i += 200) csvBytes += Buffer.byteLength(cells.slice(i, i + 200).map((row) => row.map((v) => quote(v ?? '')).join(',')).join('\n'));
    const csvS = seconds(t);
    console.log(`baseline CSV of the same cells: ${rate(csvS)} (${(csvBytes / 1e6).toFixed(1)} MB); the sheet's ratio to it ${(csvS / sheetS).toFixed(3)}`);

    const body = new URLSearchParams({ resource_uri: resource.uri });
    for (const c of COLUMNS) body.append('selected_columns[]', c);
    t = process.hrtime.bigint();
    const res = await fetch(`${base}/bulk_archival_object_updater${repo}/generate_spreadsheet`, { method: 'POST', headers: { ...H, 'content-type': 'application/x-www-form-urlencoded' }, body });
    if (res.status !== 200 || !res.body) throw new Error(`updater sheet: ${res.status} ${await res.text()}`);
    let first: number | undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      first ??= seconds(t) * 1000;
      chunks.push(Buffer.from(chunk));
    }
    if (process.env.UPDATER_PROFILE_SAVE) fs.writeFileSync(process.env.UPDATER_PROFILE_SAVE, Buffer.concat(chunks));
    console.log(`updater sheet through the route: ${rate(seconds(t))}, first byte after ${first?.toFixed(0)} ms; rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);

    if (process.env.UPDATER_PROFILE_APPLY !== '0') {
      const file = await editedUpdaterSheet(Buffer.concat(chunks));
      const applied = await runJob(base, repo, H, { jsonmodel_type: 'bulk_archival_object_updater_job' }, {}, { name: 'bulk_update.xlsx', data: file });
      const jobLog = await (await fetch(`${base}${applied.job.uri}/log`, { headers: H })).text();
      console.log(`bulk_archival_object_updater_job (${applied.job.status}) of ${n} rows, every title changed: ${rate(applied.seconds)}; its log ends: ${jobLog.trim().split('\n').slice(-2).join(' / ')}`);
    }
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
