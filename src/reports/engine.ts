/**
 * The report engine: walks a definition's records a page at a time (keyset pages: memory holds
 * one page whatever the number of records), resolves each page's links and linkers in a few
 * batched reads, and yields the rows in the definition's columns. The renderers consume the rows
 * as they come, so a report's size never reaches memory.
 */
import type { Obj } from '../json';
import type { Services } from '../records/context';
import { jsonOfUri } from '../store/domain-reads';
import { jsonOfUris, linkersOfTypes, type ReportCursor, reportCount, reportOrder, reportPage, type ReportRow, reportRowsByRid } from '../store/report-reads';
import type { ReportDefinition, Row, RunParams } from './definition';
import { letEventLoopTurn } from '../event-loop';

const PAGE = 200;
/** Keys read at a time for a report in a property's order: each read goes over every record of the type (the properties are in no index). */
const ORDER_PAGE = 5000;

/** The objects holding `ref`s at a dotted path (arrays crossed). */
function holdersAt(records: Obj[], path: string): Obj[] {
  const parts = path.split('.');
  let at: unknown[] = records;
  for (const part of parts.slice(0, -1)) {
    at = at.flatMap((o) => {
      const next = o && typeof o === 'object' ? (o as Obj)[part] : undefined;
      return Array.isArray(next) ? next : next === undefined || next === null ? [] : [next];
    });
  }
  const last = parts[parts.length - 1];
  return (at as Obj[]).filter((o) => o && typeof o === 'object' && typeof o[last] === 'string');
}

async function resolvePaths(s: Services, records: Obj[], paths: string[]): Promise<void> {
  for (const path of paths) {
    const last = path.split('.').pop()!;
    const holders = holdersAt(records, path);
    const uris = [...new Set(holders.map((h) => h[last] as string))];
    if (!uris.length) continue;
    const byUri = new Map((await jsonOfUris(s.db, uris)).map((r) => [r.uri, JSON.parse(r.json) as Obj]));
    for (const h of holders) h._resolved = byUri.get(h[last]);
  }
}

async function attachLinkers(s: Services, records: Obj[], def: Pick<ReportDefinition, 'linkedBy'>): Promise<void> {
  for (const link of def.linkedBy ?? []) {
    const byTarget = new Map<string, Obj[]>();
    for (const l of await linkersOfTypes(s.db, records.map((r) => r.uri), link.types)) {
      const list = byTarget.get(l.to_uri) ?? [];
      list.push(JSON.parse(l.json));
      byTarget.set(l.to_uri, list);
    }
    for (const r of records) r._linkedBy = { ...(r._linkedBy ?? {}), [link.as]: byTarget.get(r.uri) ?? [] };
  }
}

/** Row pages of a type: in id order, or of the definition's `order` (many keys read at a time, the records by row id). */
async function* rowPages(def: ReportDefinition, run: RunParams, type: string): AsyncGenerator<ReportRow[]> {
  const where = { types: [type], repoId: def.scope === 'repository' ? run.repoId : undefined, includeSuppressed: run.includeSuppressed };
  if (!def.order) {
    for (let afterId = 0; ;) {
      const page = await reportPage(run.s.db, { type, repoId: where.repoId, includeSuppressed: where.includeSuppressed, afterId, limit: PAGE });
      if (page.length) yield page;
      if (page.length < PAGE) return;
      afterId = page[page.length - 1].id;
    }
  }
  for (let after: ReportCursor = { rid: 0 }; ;) {
    const keys = await reportOrder(run.s.db, { ...where, after, limit: ORDER_PAGE, orderBy: def.order });
    for (let i = 0; i < keys.length; i += PAGE) {
      const page = await reportRowsByRid(run.s.db, keys.slice(i, i + PAGE).map((k) => k.rid));
      if (page.length) yield page;
    }
    if (keys.length < ORDER_PAGE) return;
    after = keys[keys.length - 1];
  }
}

/**
 * Objects that are not the walked records themselves (a record's subrecords, a classification's
 * terms) given what a definition's pages get: their linkers, then their links resolved.
 */
export async function prepareObjects(s: Services, objects: Obj[], needs: Pick<ReportDefinition, 'resolve' | 'linkedBy'>): Promise<void> {
  await attachLinkers(s, objects.filter((o) => typeof o.uri === 'string'), needs);
  await resolvePaths(s, objects, needs.resolve ?? []);
}

/**
 * The items of `source`, the next one asked for as soon as one is handed on: a page's reads (on
 * MySQL, round trips to another process) overlap the rendering of the page before, instead of
 * the two taking turns (in one process, 4.8 s of a 9.7 s accession CSV waited on MariaDB; 6.9-7.5 s
 * read ahead; two pages ahead were no faster).
 */
async function* readAhead<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  // A read that fails while the page before is still being rendered is answered when awaited, not
  // as an unhandled rejection meanwhile (which would end the process).
  const ask = () => {
    const read = source.next();
    read.catch(() => undefined);
    return read;
  };
  let next = ask();
  try {
    for (;;) {
      const item = await next;
      if (item.done) return;
      next = ask();
      yield item.value;
    }
  } finally {
    // A consumer that stops early (a limit, a cancel, an error) leaves a read in flight: it ends unheard, then the source is closed.
    void next.then(() => source.return(undefined), () => undefined).catch(() => undefined);
  }
}

/** The report's records, page by page, with what each page needs attached; the next page read while this one is used. */
function pages(def: ReportDefinition, run: RunParams): AsyncGenerator<Obj[]> {
  return readAhead(pagesInTurn(def, run));
}

async function* pagesInTurn(def: ReportDefinition, run: RunParams): AsyncGenerator<Obj[]> {
  const { s } = run;
  for (const type of def.types) {
    for await (const page of rowPages(def, run, type)) {
      const records = page.map((r) => {
        const record = JSON.parse(r.json) as Obj;
        record.uri = r.uri;
        return record;
      });
      // Linkers first: a path may go on through them (`_linkedBy.<as>.resource.ref`).
      await attachLinkers(s, records, def);
      await resolvePaths(s, records, def.resolve ?? []);
      if (def.attach) await def.attach(s, records, run);
      yield records;
    }
  }
}

/** The columns a format shows. */
export function columnsOf(def: ReportDefinition, format: RunParams['format']) {
  return def.columns.filter((c) => !c.formats || c.formats.includes(format));
}

/** The report's records (those its `where` keeps), as they are read. */
export async function* reportRecords(def: ReportDefinition, run: RunParams, signal?: AbortSignal): AsyncGenerator<Obj> {
  for await (const records of pages(def, run)) {
    for (const record of records) {
      // A report is a long run of promise steps that never waits on the event loop by itself:
      // it steps aside every SLICE_MS, so requests (and the runner's cancel) are answered meanwhile.
      await letEventLoopTurn();
      if (signal?.aborted) throw new Error('canceled');
      if (!def.where || def.where(record, run)) yield record;
    }
  }
}

/** Each record's rows (several where the definition says so), in the order read. */
async function* itemsOf(def: ReportDefinition, run: RunParams, signal?: AbortSignal): AsyncGenerator<Obj> {
  for await (const record of reportRecords(def, run, signal)) yield* def.rowsOf ? def.rowsOf(record, run) : [record];
}

/**
 * The rows in the definition's `rowOrder` over the whole report (equal ones as read): only the
 * first `limit` are held, each later one put in its place or dropped, so memory is the limit's.
 */
async function* sortedItems(def: ReportDefinition, run: RunParams, order: (a: Obj, b: Obj) => number, signal?: AbortSignal): AsyncGenerator<Obj> {
  const kept: Obj[] = [];
  const most = def.limit ?? Infinity;
  for await (const item of itemsOf(def, run, signal)) {
    let lo = 0;
    for (let hi = kept.length; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if (order(kept[mid], item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= most) continue;
    kept.splice(lo, 0, item);
    if (kept.length > most) kept.pop();
  }
  yield* kept;
}

/** The report's rows, as they are read (several of a record where the definition says so; no more than its limit). */
export async function* reportRows(def: ReportDefinition, run: RunParams, signal?: AbortSignal): AsyncGenerator<Row> {
  const columns = columnsOf(def, run.format);
  let n = 0;
  for await (const item of def.rowOrder ? sortedItems(def, run, def.rowOrder, signal) : itemsOf(def, run, signal)) {
    if (def.limit !== undefined && n++ >= def.limit) return;
    const row: Row = {};
    for (const c of columns) {
      const v = c.value(item, run);
      row[c.name] = v === undefined ? null : Array.isArray(v) && !v.length ? null : v;
    }
    yield row;
  }
}

/** What ArchivesSpace puts before the rows: the count it keeps, and the repository's name. */
export async function reportInfo(def: ReportDefinition, run: RunParams): Promise<Record<string, string | number | null>> {
  // Totals come before the rows, as ArchivesSpace writes them: one pass over the records ahead of the rows (memory stays flat).
  const info: Record<string, string | number | null> = def.summary ? await def.summary(reportRecords(def, run), run) : {};
  if (def.countAs) {
    info[def.countAs] = await reportCount(run.s.db, { types: def.types, repoId: def.scope === 'repository' ? run.repoId : undefined, includeSuppressed: run.includeSuppressed });
  }
  if (!def.noRepositoryInfo) {
    const repository = await jsonOfUri(run.s.db, `/repositories/${run.repoId}`);
    info.repository = repository ? String(JSON.parse(repository).name ?? '') : '';
  }
  return info;
}
