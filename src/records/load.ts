import type { Queryable } from '../store/dialect';
import { errors } from '../errors';
import type { Obj } from '../json';
import { RecordGetter, RecordQueries, RecordRow, recordReads } from '../store/records';
import type { Services, Where } from './context';
import { IMPLIED_PUBLICATION_FIELD, markImpliedPublication } from './implied-publication';
import { withhold } from './guarded';
import { untilNextWrite } from '../store/until-next-write';

/**
 * The record loader every reader shares (the read operations, resolve[], the search indexer,
 * the exporters): a record by id with the scope and suppression rules, records by URI, and the
 * fields type hooks compute at read time.
 */

export function recordUri(where: Where, id: number): string {
  return `${where.type.uri!.replace(':repo_id', String(where.repoId))}/${id}`;
}

export async function fetchRow(q: RecordGetter, where: Where, id: number): Promise<RecordRow> {
  const row = await q.get(where.type.name, id);
  const scoped = where.type.scope === 'repository';
  if (!row || (scoped && row.repo_id !== where.repoId) || (scoped && row.suppressed && !where.showSuppressed)) {
    throw errors.notFound(where.type.model);
  }
  return row;
}

/** The stored record (for domain code that reads before it writes). */
export async function readRecord(s: Services, where: Where, id: number, db: Queryable = s.db.reads): Promise<Obj> {
  return JSON.parse((await fetchRow(new RecordQueries(db), where, id)).json);
}

/**
 * Loader for resolve[]: a batch of URIs → records (scope is not checked, as in the reference).
 * `impliedPublication: false` (the search indexer): linked records come without
 * is_linked_to_published_record, which no document reads from a link and which costs a look at
 * the linked record's own referrers (an agent may have thousands) on every write that links it.
 */
export function uriLoader(s: Services, o: { impliedPublication?: boolean; withheld?: ReadonlySet<string> } = {}) {
  // Linked records with properties withheld from the caller are kept apart from the whole ones.
  const withheld = o.withheld?.size ? `-${[...o.withheld].sort().join(',')}` : '';
  const keyOf = (uri: string) => `linked:${o.impliedPublication === false ? 'plain' : 'decorated'}${withheld}:${uri}`;
  return async (uris: string[]) => {
    // Linked records are kept until the next write (the same subjects and agents are linked from
    // many records); resolveLinks copies each before it is placed, so the kept ones stay as read.
    const kept = await untilNextWrite(s);
    const missing = uris.filter((u) => !u.endsWith('/tree') && !kept.has(keyOf(u)));
    if (missing.length) {
      const rows = await recordReads(s).getByUris(missing);
      const records = rows.map((r) => JSON.parse(r.json) as Obj);
      await decorateRecords(s, records, s.db.reads, o);
      withhold(s.registry, records, o.withheld);
      records.forEach((record, i) => kept.set(keyOf(record.uri), record, 1 + (rows[i].json.length >> 10)));
    }
    const found = new Map<string, Obj>();
    for (const uri of uris) {
      const record = kept.get<Obj>(keyOf(uri));
      if (record) found.set(uri, record);
    }
    for (const uri of uris.filter((u) => u.endsWith('/tree'))) {
      const tree = await loadTree(s, uri);
      if (tree) found.set(uri, tree);
    }
    return found;
  };
}

/** resolve[]=tree: a root's `tree` link resolves to its whole tree, built by the root type's hook (pagination-and-resolve.md section 5). */
async function loadTree(s: Services, treeUri: string): Promise<Obj | undefined> {
  const rootUri = treeUri.slice(0, -'/tree'.length);
  const root = s.registry.typeOfUri(rootUri);
  const whole = root && s.hooks[root.name]?.wholeTree;
  if (!whole) return undefined;
  const row = await new RecordQueries(s.db.reads).keysAt(rootUri);
  return row ? whole(s, row.repo_id, row.id) : undefined;
}

/** Whether records of the type get fields computed at read time (else the stored JSON is served as it is). */
export function decoratesType(s: Services, typeName: string): boolean {
  return !!s.hooks[typeName]?.decorate || !!s.registry.types[typeName]?.props[IMPLIED_PUBLICATION_FIELD];
}

/**
 * Adds what is computed from storage at read time: each type's hook, one batch per type, and the
 * implied publication of every type whose schema declares the field.
 */
export async function decorateRecords(
  s: Services, records: Obj[], db: Queryable = s.db.reads, o: { impliedPublication?: boolean } = {},
): Promise<void> {
  // Hooks read links and lookup keys: any the transaction still holds back are written first.
  if (db !== s.db.reads) await new RecordQueries(db).writeHeldRows();
  const byType = new Map<string, Obj[]>();
  for (const r of records) {
    const group = byType.get(r.jsonmodel_type);
    if (group) group.push(r);
    else byType.set(r.jsonmodel_type, [r]);
  }
  for (const [type, group] of byType) await s.hooks[type]?.decorate?.(db, s, group);
  if (o.impliedPublication === false) return;
  const implied = records.filter((r) => s.registry.types[r.jsonmodel_type]?.props[IMPLIED_PUBLICATION_FIELD]);
  if (implied.length) await markImpliedPublication(db, s, implied);
}

