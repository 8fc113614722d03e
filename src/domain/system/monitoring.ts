import os from 'node:os';
import { errors } from '../../errors';
import type { Obj } from '../../json';
import { isPlainObject } from '../../json';
import { databaseVersion } from '../../store/connect';
import { activeEdits, noteActiveEdits } from '../../store/active-edits';
import { jsonBelow, recordQueries } from '../../store/domain-reads';
import type { Services } from '../../records/context';
import { writeTransaction } from '../../records/context';

/** Edits older than this are forgotten (the staff interface reports every few seconds). */
const EXPIRE_MS = 30_000;

/**
 * POST /update_monitor: records who is editing what, forgets edits not reported lately, and
 * answers, per record being edited, who edits it since when and its current lock_version (so an
 * editor sees that someone else saved meanwhile), as the original's active edits.
 */
export async function updateActiveEdits(s: Services, body: unknown): Promise<Obj> {
  const edits = isPlainObject(body) && Array.isArray(body.active_edits) ? body.active_edits : undefined;
  if (!edits || edits.some((e: unknown) => !isPlainObject(e) || typeof e.uri !== 'string' || typeof e.user !== 'string' || typeof e.time !== 'string' || Number.isNaN(Date.parse(e.time)))) {
    throw errors.invalidParam('active_edits', 'a list of {"user", "uri", "time"} with an ISO time');
  }
  const now = Date.now();
  const noted = (edits as Array<{ uri: string; user: string; time: string }>).map((e) => ({ uri: e.uri, username: e.user, atMs: Date.parse(e.time) }));
  await writeTransaction(s, (trx) => noteActiveEdits(trx, noted, now - EXPIRE_MS));
  const rows = await activeEdits(s.db);
  const result: Obj = {};
  for (const r of rows) {
    result[r.uri] ??= { edited_by: {} };
    result[r.uri].edited_by[r.username] = new Date(Number(r.at_ms)).toISOString();
  }
  const versions = new Map((await recordQueries(s.db).getByUris(Object.keys(result))).map((r) => [r.uri, r.lock_version]));
  for (const uri of Object.keys(result)) result[uri].lock_version = versions.get(uri) ?? null;
  return result;
}

/** GET /system/info: what an administrator checks first. */
export async function systemInfo(s: Services, version: string): Promise<Obj> {
  const db = await databaseVersion(s.db);
  const index = s.search ? await s.search.index.state().catch(() => undefined) : undefined;
  const indexMemory = await s.search?.index.memory?.().catch(() => undefined);
  return {
    version, node_version: process.version, host_os: os.platform(), host_cpu: os.arch(), cpus: os.cpus().length,
    uptime_seconds: Math.round(process.uptime()), memory: process.memoryUsage(),
    db_info: { product: db.product, version: db.version, location: s.db.describe },
    search_info: s.search ? { adapter: s.search.index.kind, checkpoint: index?.checkpoint ?? null, ...(indexMemory ? { thread_memory: indexMemory } : {}) } : null,
    jobs_info: { runs_here: s.config.jobs.run, concurrency: s.config.jobs.concurrency },
  };
}

/** GET …/:id/models_in_graph: the record types in a record's graph (itself, its subrecords, its tree below). */
export async function modelsInGraph(s: Services, typeName: string, repoId: number, id: number): Promise<string[]> {
  const row = await recordQueries(s.db).get(typeName, id);
  if (!row || row.repo_id !== repoId) throw errors.notFound(s.registry.type(typeName).model);
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isPlainObject(value)) {
      if (typeof value.jsonmodel_type === 'string') found.add(value.jsonmodel_type);
      for (const [k, v] of Object.entries(value)) if (k !== '_resolved') walk(v);
    }
  };
  walk(JSON.parse(row.json));
  const isRoot = Object.values(s.registry.types).some((t) => t.tree?.root === typeName);
  const isNode = !!s.registry.types[typeName]?.tree;
  const below = isRoot || isNode ? await jsonBelow(s.db, row, isRoot) : [];
  for (const json of below) walk(JSON.parse(json));
  return [...found].sort();
}
