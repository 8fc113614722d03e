/**
 * The lists the provider walks: each harvested type's visible records in id order, then the
 * deletions the change log keeps, from a position a resumption token holds (token.ts); and the
 * one record an identifier names.
 */
import type { Obj } from '../../json';
import type { TypeInfo } from '../../registry';
import {
  deletionsAfter, harvestableRecords, type HarvestQuery, type HarvestRow, harvestRowsUnderHiddenAncestor, lastDeletionOf,
} from '../../store/harvest';
import { harvestedTypes, MetadataFormat, typesFor } from './formats';
import { OaiError, timeRange } from './request';
import { Context, repoOfUri, SetDef, setDefinitions } from './sets';
import type { ListPosition } from './token';

export type Item =
  | { kind: 'record'; type: TypeInfo; record: Obj; mtimeMs: number }
  | { kind: 'deleted'; uri: string; atMs: number };

/** What the visible records of one type, in id order, after `lastId`, are asked of the store. */
function harvestQuery(ctx: Context, type: TypeInfo, pos: ListPosition, set: SetDef | undefined): HarvestQuery {
  const { fromMs, untilMs } = timeRange(pos.from, pos.until);
  return { type: type.name, afterId: pos.lastId, repos: ctx.repos, fromMs, untilMs, set: set?.members(type) };
}

/** Records a harvester may see after the query's checks: not under an unpublished ancestor. */
async function visibleRecords(ctx: Context, rows: HarvestRow[], type: TypeInfo): Promise<Item[]> {
  const hidden = await harvestRowsUnderHiddenAncestor(ctx.s.db, rows);
  return rows
    .filter((row) => !hidden.has(row))
    .map((row): Item => ({ kind: 'record', type, record: JSON.parse(row.json) as Obj, mtimeMs: Number(row.system_mtime_ms) }));
}

/**
 * Up to `max` items from `pos` on: records type by type, then deletions. Returns the items and
 * the position after the last one. Pure in `pos`: a token's page is the same in any process.
 */
export async function walk(ctx: Context, format: MetadataFormat, start: ListPosition, max: number): Promise<{ items: Item[]; pos: ListPosition }> {
  const types = typesFor(ctx.s.registry, format);
  const set = start.set !== undefined ? setDefinitions(ctx).find((d) => d.spec === start.set) : undefined;
  const pos = { ...start };
  const items: Item[] = [];
  if (start.set !== undefined && !set) return { items, pos: { ...pos, phase: 'deletes', typeIndex: types.length, lastSeq: Number.MAX_SAFE_INTEGER } };
  while (pos.phase === 'records' && items.length < max) {
    if (pos.typeIndex >= types.length) {
      pos.phase = 'deletes';
      pos.lastSeq = 0;
      break;
    }
    const type = types[pos.typeIndex];
    const limit = max - items.length;
    const rows = await harvestableRecords(ctx.s.db, { ...harvestQuery(ctx, type, pos, set), limit: limit + 1 });
    const taken = rows.slice(0, limit);
    items.push(...(await visibleRecords(ctx, taken, type)));
    if (rows.length <= limit) {
      pos.typeIndex += 1;
      pos.lastId = 0;
    } else pos.lastId = Number(taken[taken.length - 1].id);
  }
  if (pos.phase === 'deletes' && items.length < max) {
    const { fromMs, untilMs } = timeRange(pos.from, pos.until);
    const harvestable = new Set(ctx.repos.map((r) => r.id));
    const typeNames = types.map((t) => t.name);
    while (items.length < max) {
      const limit = max - items.length;
      const rows = await deletionsAfter(ctx.s.db, { types: typeNames, afterSeq: pos.lastSeq, fromMs, untilMs, limit: limit + 1 });
      const taken = rows.slice(0, limit);
      for (const row of taken) {
        if (!harvestable.has(repoOfUri(row.uri) ?? -1)) continue;
        if (set?.deletion && !set.deletion(row.uri)) continue;
        items.push({ kind: 'deleted', uri: row.uri, atMs: Number(row.at_ms) });
      }
      if (taken.length) pos.lastSeq = Number(taken[taken.length - 1].seq);
      if (rows.length <= limit) {
        pos.lastSeq = Number.MAX_SAFE_INTEGER;
        break;
      }
    }
  }
  return { items, pos };
}

/** The record an identifier names: the visible record, or its deletion, or idDoesNotExist. */
export async function findItem(ctx: Context, identifier: string): Promise<Item> {
  const prefix = `${ctx.settings.recordPrefix}/`;
  const uri = identifier.startsWith(prefix) ? identifier.slice(prefix.length) : '';
  const type = uri ? ctx.s.registry.typeOfUri(uri) : undefined;
  const harvested = harvestedTypes(ctx.s.registry);
  if (!type || !harvested.some((t) => t.name === type.name)) throw new OaiError('idDoesNotExist', `No record has the identifier ${identifier}`);
  const id = Number(uri.split('/').pop());
  const position: ListPosition = { prefix: '', phase: 'records', typeIndex: 0, lastId: id - 1, lastSeq: 0, cursor: 0 };
  const rows = Number.isSafeInteger(id) && id > 0 ? await harvestableRecords(ctx.s.db, { ...harvestQuery(ctx, type, position, undefined), id }) : [];
  const [item] = await visibleRecords(ctx, rows, type);
  if (item) return item;
  const deletedAt = await lastDeletionOf(ctx.s.db, uri);
  if (deletedAt !== undefined && ctx.repos.some((r) => r.id === repoOfUri(uri))) return { kind: 'deleted', uri, atMs: deletedAt };
  throw new OaiError('idDoesNotExist', `No record has the identifier ${identifier}`);
}
