import { errors } from '../../errors';
import type { TypeHooks } from '../../records/context';
import type { Actor, Services } from '../../records/context';
import { prepareRecord } from '../../validation';
import type { Location } from '../../../generated/types';
import { isPlainObject, Obj } from '../../json';
import { createRecord, updateRecord } from '../../records/write';
import { readRecord } from '../../records/load';
import { writeTransaction } from '../../records/context';

/** A location's three coordinates: each a label and an indicator. */
const COORDINATES = [
  ['coordinate_1_label', 'coordinate_1_indicator'],
  ['coordinate_2_label', 'coordinate_2_indicator'],
  ['coordinate_3_label', 'coordinate_3_indicator'],
] as const satisfies ReadonlyArray<readonly [keyof Location, keyof Location]>;

/** "Building, floor, room, area [barcode, classification, label: indicator, ...]", as the original titles locations. */
export function locationTitle(l: Location): string {
  const place = [l.building, l.floor, l.room, l.area].filter(Boolean).join(', ');
  const others = [l.barcode, l.classification];
  for (const [label, indicator] of COORDINATES) {
    if (l[label]) others.push(`${l[label]}: ${l[indicator] ?? ''}`);
  }
  const extra = others.filter(Boolean);
  return extra.length ? `${place} [${extra.join(', ')}]` : place;
}

export const locationHooks: TypeHooks = {
  async beforeSave(_trx, _s, _where, body) {
    body.title = locationTitle(body as Location);
    return undefined;
  },
};

/** Each range is capped, as the original's max_location_range. */
const MAX_RANGE = 1000;

function rangeValues(name: string, range: unknown): string[] {
  if (!isPlainObject(range) || typeof range.label !== 'string' || range.start === undefined || range.end === undefined) {
    throw errors.invalidParam(name, 'needs label, start and end');
  }
  const [start, end] = [String(range.start), String(range.end)];
  let values: string[];
  if (/^\d+$/.test(start) && /^\d+$/.test(end)) {
    const [a, b] = [Number(start), Number(end)];
    values = b >= a && b - a < MAX_RANGE ? Array.from({ length: b - a + 1 }, (_, i) => String(a + i)) : [];
  } else if (/^[A-Za-z]$/.test(start) && /^[A-Za-z]$/.test(end)) {
    const [a, b] = [start.charCodeAt(0), end.charCodeAt(0)];
    values = b >= a ? Array.from({ length: b - a + 1 }, (_, i) => String.fromCharCode(a + i)) : [];
  } else values = [];
  if (!values.length) {
    throw errors.invalidParam(name, `start and end must be numbers or single letters, start <= end, at most ${MAX_RANGE} values`);
  }
  return values;
}

/** POST /locations/batch: one location per combination of the coordinate ranges. */
export async function createLocationBatch(s: Services, actor: Actor, body: unknown, dryRun: boolean) {
  if (!isPlainObject(body)) throw errors.expectedBody('a location_batch object');
  const { coordinate_1_range, coordinate_2_range, coordinate_3_range, ...location } = body;
  const ranges = [coordinate_1_range, coordinate_2_range, coordinate_3_range]
    .map((r, i) => (r === undefined ? undefined : { n: i + 1, label: (r as Obj).label, values: rangeValues(`coordinate_${i + 1}_range`, r) }))
    .filter((r): r is { n: number; label: string; values: string[] } => !!r);
  if (!ranges.length || ranges[0].n !== 1) throw errors.paramRequired('coordinate_1_range');
  let combos: Array<Partial<Location>> = [{}];
  for (const r of ranges) {
    const [label, indicator] = COORDINATES[r.n - 1];
    combos = combos.flatMap((c) => r.values.map((v) => ({ ...c, [label]: r.label, [indicator]: v })));
  }
  const records = combos.map((c) => prepareRecord(s.registry, s.enums, 'location', { ...location, ...c }));
  if (dryRun) return records.map((p) => locationTitle(p.record as Location));
  return writeTransaction(s, async (trx) => {
    const uris: string[] = [];
    for (const p of records) uris.push((await createRecord(s, actor, { type: s.registry.type('location') }, p.record, p.warnings, { trx })).uri);
    return uris;
  });
}

/** POST /locations/batch_update: the given fields set on every listed location. */
export async function updateLocationBatch(s: Services, actor: Actor, body: unknown) {
  if (!isPlainObject(body) || !Array.isArray(body.record_uris)) {
    throw errors.paramRequired('record_uris');
  }
  const { record_uris: uris, jsonmodel_type: _t, ...fields } = body;
  const where = { type: s.registry.type('location') };
  return writeTransaction(s, async (trx) => {
    const updated: string[] = [];
    for (const uri of uris as unknown[]) {
      const id = Number(/^\/locations\/(\d+)$/.exec(String(uri))?.[1]);
      if (!Number.isInteger(id)) throw errors.missingLinkTarget(String(uri));
      const current = await readRecord(s, where, id, trx);
      const p = prepareRecord(s.registry, s.enums, 'location', { ...current, ...fields });
      updated.push((await updateRecord(s, actor, where, id, p.record, p.warnings, { trx })).uri);
    }
    return updated;
  });
}
