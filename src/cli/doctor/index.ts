/**
 * `archive-records doctor`: is the store reachable and migrated, what it holds, whether its links
 * hold, and what to do when something is wrong. Every check reads only.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config';
import { loadRegistry } from '../../registry';
import { connect, Database } from '../../store/connect';
import { ping } from '../../store/doctor';
import { linksCheck, migrationsCheck, recordsCheck, storeCheck, treesCheck } from './checks';
import { searchCheck } from './search';
import type { CheckResult, DoctorCheck, DoctorContext } from './types';

/** In the order they run and are shown. A new check is one entry here. */
export const CHECKS: DoctorCheck[] = [storeCheck, migrationsCheck, recordsCheck, linksCheck, treesCheck, searchCheck];

/** Checks that read tables skip themselves until the store is reachable and migrated. */
const NEEDS_TABLES = new Set(['records', 'links', 'trees', 'search index']);

export interface DoctorReport {
  ok: boolean;
  store: string;
  checks: CheckResult[];
}

export async function runDoctor(config: Config, checks: DoctorCheck[] = CHECKS): Promise<DoctorReport> {
  const registry = loadRegistry();
  let db: Database | undefined;
  let connectError: string | undefined;
  const sqliteFile = config.dbUrl.startsWith('sqlite://') ? config.dbUrl.slice('sqlite://'.length) : undefined;
  try {
    // Connecting would create an empty file at a mistyped path; a check only looks.
    if (sqliteFile && sqliteFile !== ':memory:' && !fs.existsSync(sqliteFile)) throw new Error(`there is no SQLite file at ${path.resolve(sqliteFile)}`);
    db = await connect(config.dbUrl);
    await ping(db);
  } catch (err) {
    connectError = err instanceof Error ? err.message : String(err);
    await db?.close();
    db = undefined;
  }
  const ctx: DoctorContext = { config, registry, db, migrated: false };
  const results: CheckResult[] = [];
  try {
    for (const check of checks) {
      let result: CheckResult;
      if (check !== storeCheck && !db) result = { name: check.name, status: 'skip', summary: 'the store is not reachable' };
      else if (NEEDS_TABLES.has(check.name) && !ctx.migrated) result = { name: check.name, status: 'skip', summary: 'the store is not migrated' };
      else {
        try {
          result = await check.run(ctx);
        } catch (err) {
          result = { name: check.name, status: 'fail', summary: `the check itself failed: ${err instanceof Error ? err.message : String(err)}` };
        }
      }
      if (check === storeCheck && connectError) result.details = { error: connectError };
      if (check === migrationsCheck && result.status === 'ok') ctx.migrated = true;
      results.push(result);
    }
  } finally {
    await db?.close();
  }
  return { ok: results.every((r) => r.status !== 'fail'), store: describe(config.dbUrl), checks: results };
}

/** DB_URL without its password. */
function describe(dbUrl: string): string {
  return dbUrl.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

const MARK: Record<CheckResult['status'], string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** The report as text for a person at a terminal. */
export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const lines = [`archive-records doctor: ${report.store}`, ''];
  for (const c of report.checks) {
    lines.push(`  ${MARK[c.status]}  ${c.name.padEnd(width)}  ${c.summary}`);
    if (c.name === 'records' && c.details && typeof c.details === 'object') {
      const counts = Object.entries(c.details as Record<string, number>);
      const w = Math.max(0, ...counts.map(([t]) => t.length));
      for (const [type, n] of counts) lines.push(`${' '.repeat(width + 10)}${type.padEnd(w)}  ${String(n).padStart(8)}`);
    }
    const error = (c.details as { error?: string } | undefined)?.error;
    if (error) lines.push(`${' '.repeat(width + 10)}${error}`);
    for (const e of ((c.details as { examples?: Array<{ from: string; to: string }> } | undefined)?.examples ?? [])) {
      lines.push(`${' '.repeat(width + 10)}${e.from} -> ${e.to}`);
    }
    if (c.fix && c.status !== 'ok') lines.push(`${' '.repeat(width + 10)}fix: ${c.fix}`);
  }
  lines.push('', report.ok ? 'No problems that stop the server.' : 'Problems found: see the FAIL lines and their fixes.');
  return `${lines.join('\n')}\n`;
}
