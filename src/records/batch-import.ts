import type { Tx } from '../store/database';
import { can } from '../access/permissions';
import { ApiError, errors } from '../errors';
import { isPlainObject, type Obj } from '../json';
import type { TypeInfo } from '../registry';
import { RecordQueries } from '../store/records';
import { prepareRecord } from '../validation';
import { planOf, walkShapes } from '../validation/walk';
import type { Actor, Services } from './context';
import { addEnumerationValues } from './value-lists';
import { createRecord, updateRecord } from './write';
import { writeTransaction } from './context';

/**
 * POST /repositories/:repo_id/batch_imports (ArchivesSpace's batch import, the route migration
 * tools post their converted records to): a JSON array of records, each with its jsonmodel_type
 * and a temporary `uri` that the others use to link to it. Every record is checked first (links
 * to other records of the batch stand in for the real ones), then all are created in one
 * transaction, each after the records it links to (and after its siblings of lower `position`);
 * records that link to each other in a circle are created without those links, which are put
 * back at the end. Values of editable lists the records use are added to their lists (as the
 * original does for imports); a subject or agent already in the store (its unique key taken) is used rather than created again.
 * Anything refused rolls the whole batch back.
 */

export interface BatchRecord {
  uri: string;
  type: TypeInfo;
  body: Obj;
}

/** What the answer ends with: each temporary URI → [real URI, id], or the errors that stopped the batch. */
export interface BatchResults {
  saved: Record<string, [string, number]> | [];
  errors?: string[];
}

/** The array a batch must be, each item a record of a creatable type with a temporary URI; refused with 400 before anything starts. */
export async function readBatch(s: Services, actor: Actor, repoId: number, body: unknown): Promise<BatchRecord[]> {
  const bad = (message: string) => errors.invalidParam('batch_import', message);
  if (!Array.isArray(body)) throw bad('must be a JSON array of records, each with its jsonmodel_type and a temporary uri');
  const seen = new Set<string>();
  const allowed = new Map<string, boolean>();
  const records: BatchRecord[] = [];
  for (const [i, item] of body.entries()) {
    if (!isPlainObject(item)) throw bad(`item ${i} is not a JSON object`);
    const type = typeof item.jsonmodel_type === 'string' ? s.registry.types[item.jsonmodel_type] : undefined;
    if (!type || type.kind !== 'record' || !type.uri || !type.permissions) {
      throw bad(`item ${i}: ${JSON.stringify(item.jsonmodel_type ?? null)} is not a record type that can be created`);
    }
    if (typeof item.uri !== 'string' || !item.uri) throw bad(`item ${i}: Missing the temporary uri (required to set record relationships)`);
    if (seen.has(item.uri)) throw bad(`item ${i}: the temporary uri ${item.uri} is used twice`);
    seen.add(item.uri);
    if (!allowed.has(type.name)) {
      const permission = type.permissions.create;
      allowed.set(type.name, permission === null || permission === undefined || await can(s, actor, permission, type.scope === 'repository' ? repoId : undefined));
    }
    if (!allowed.get(type.name)) throw errors.accessDenied();
    const { uri, ...rest } = item;
    records.push({ uri, type, body: rest });
  }
  return records;
}

/** Every string of `value` that is a key of `to` replaced by its value (links by temporary URI become real ones). */
function rewrite(value: unknown, to: Map<string, string>): unknown {
  if (typeof value === 'string') return to.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => rewrite(v, to));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '_resolved' ? v : rewrite(v, to)]));
  return value;
}

/** The temporary URIs `value` mentions. */
function mentions(value: unknown, uris: Set<string>, out = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    if (uris.has(value)) out.add(value);
  } else if (Array.isArray(value)) value.forEach((v) => mentions(v, uris, out));
  else if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) if (k !== '_resolved') mentions(v, uris, out);
  return out;
}

const titleOf = (r: BatchRecord) => String(r.body.title ?? r.body.display_string ?? r.body.name ?? r.uri);

function describe(err: unknown): string {
  if (err instanceof ApiError) return typeof err.body.error === 'string' ? err.body.error : JSON.stringify(err.body.error);
  return err instanceof Error ? err.message : String(err);
}

/** Runs a batch read by readBatch; `status` hears each stage and how far the saving is. */
export async function runBatch(
  s: Services, actor: Actor, repoId: number, records: BatchRecord[], status: (update: Obj) => Promise<void>,
): Promise<BatchResults> {
  const uris = new Set(records.map((r) => r.uri));
  const created = new Map<string, string>();
  const ids = new Map<string, number>();
  try {
    await writeTransaction(s, async (trx) => {
      created.clear();
      ids.clear();
      await status({ status: [{ id: 1, label: 'Validating records and checking links', type: 'started' }] });
      await addListValues(trx, s, records);
      // Links within the batch stand in as URIs of a record of the right type, so the schemas accept them.
      const standIns = new Map(records.map((r, i) => [r.uri, `${r.type.uri!.replace(':repo_id', String(repoId))}/${1_000_000_000 + i}`]));
      for (const r of records) {
        try {
          prepareRecord(s.registry, s.enums, r.type.name, rewrite(r.body, standIns));
        } catch (err) {
          throw new Error(`Problem with '${titleOf(r)}' (${r.uri}): ${describe(err)}`, { cause: err });
        }
      }
      await status({ status: [{ id: 1, label: 'Validating records and checking links', type: 'done' }] });

      // Each record is created once every record it waits for is (a queue of those ready, in the
      // batch's order: linear in records and links, however long the chains of siblings).
      const needs = dependencies(s, records, uris);
      const waiting = new Map(records.map((r) => [r.uri, needs.get(r.uri)!.size]));
      const dependents = new Map<string, BatchRecord[]>();
      for (const r of records) {
        for (const d of needs.get(r.uri)!) {
          const list = dependents.get(d);
          if (list) list.push(r);
          else dependents.set(d, [r]);
        }
      }
      const ready = records.filter((r) => waiting.get(r.uri) === 0);
      const severed = new Map<string, Array<[string, unknown]>>();
      let head = 0;
      let firstWaiting = 0;
      let lastTick = Date.now();
      await status({ status: [{ id: 2, label: 'Saving records', type: 'started' }] });
      while (created.size < records.length) {
        let r = head < ready.length ? ready[head++] : undefined;
        if (!r) {
          // A circle of links: the first record still waiting is created without the fields that close it.
          while (created.has(records[firstWaiting].uri)) firstWaiting++;
          const cut = records[firstWaiting];
          const limbs = Object.entries(cut.body).filter(([, value]) => [...mentions(value, uris)].some((d) => !created.has(d)));
          severed.set(cut.uri, limbs);
          r = { ...cut, body: Object.fromEntries(Object.entries(cut.body).filter(([key]) => !limbs.some(([k]) => k === key))) };
        }
        if (created.has(r.uri)) continue;
        await create(trx, s, actor, repoId, r, created, ids);
        for (const dependent of dependents.get(r.uri) ?? []) {
          const left = waiting.get(dependent.uri)! - 1;
          waiting.set(dependent.uri, left);
          if (left === 0 && !created.has(dependent.uri)) ready.push(dependent);
        }
        if (Date.now() - lastTick >= 1000) {
          lastTick = Date.now();
          await status({ ticks: created.size, total: records.length });
        }
      }
      await status({ status: [{ id: 2, label: 'Saving records', type: 'done' }] });
      for (const [uri, limbs] of severed) await reattach(trx, s, actor, records.find((r) => r.uri === uri)!, limbs, created, ids);
    });
    return { saved: Object.fromEntries([...created].map(([logical, real]) => [logical, [real, ids.get(logical)!]])) };
  } catch (err) {
    return { saved: [], errors: [`Server error: ${describe(err)}`] };
  }
}

/** The values of editable lists the batch uses that are not on their lists yet, added. */
async function addListValues(trx: Tx, s: Services, records: BatchRecord[]): Promise<void> {
  const wanted = new Map<string, Set<string>>();
  for (const r of records) {
    walkShapes(s.registry, { typeName: r.type.name, props: r.type.props, obj: r.body, path: '' }, (shape) => {
      for (const [name, info] of planOf(shape.props).enumerated) {
        const list = s.enums.get(info.enumName!);
        if (!list?.editable) continue;
        const value = shape.obj[name];
        for (const v of Array.isArray(value) ? value : [value]) {
          if (typeof v !== 'string' || !v || list.values.includes(v)) continue;
          if (!wanted.has(info.enumName!)) wanted.set(info.enumName!, new Set());
          wanted.get(info.enumName!)!.add(v);
        }
      }
    });
  }
  if (wanted.size) await addEnumerationValues(trx, s, wanted);
}

/**
 * What each record waits for: the records of the batch it links to, and the sibling before it
 * by `position` (ArchivesSpace creates siblings in their order, so each lands where it says).
 */
function dependencies(s: Services, records: BatchRecord[], uris: Set<string>): Map<string, Set<string>> {
  const needs = new Map(records.map((r) => {
    const d = mentions(r.body, uris);
    d.delete(r.uri);
    return [r.uri, d];
  }));
  const groups = new Map<string, BatchRecord[]>();
  for (const r of records) {
    const tree = r.type.tree;
    if (!tree || typeof r.body.position !== 'number') continue;
    const parent = (r.body[tree.parentProperty] as Obj | undefined)?.ref ?? (r.body[tree.rootProperty] as Obj | undefined)?.ref;
    if (typeof parent !== 'string') continue;
    if (!groups.has(parent)) groups.set(parent, []);
    groups.get(parent)!.push(r);
  }
  for (const group of groups.values()) {
    group.sort((a, b) => Number(a.body.position) - Number(b.body.position));
    for (let i = 1; i < group.length; i++) needs.get(group[i].uri)!.add(group[i - 1].uri);
  }
  return needs;
}

async function create(
  trx: Tx, s: Services, actor: Actor, repoId: number, r: BatchRecord, created: Map<string, string>, ids: Map<string, number>,
): Promise<void> {
  const where = { type: r.type, repoId: r.type.scope === 'repository' ? repoId : undefined };
  try {
    const prepared = prepareRecord(s.registry, s.enums, r.type.name, rewrite(r.body, created));
    const result = await createRecord(s, actor, where, prepared.record, prepared.warnings, { trx });
    created.set(r.uri, result.uri);
    ids.set(r.uri, result.id);
  } catch (err) {
    // A record the store already holds (a subject with the same terms, an agent with the same names): the batch links to that one.
    const holder = err instanceof ApiError && isPlainObject(err.body.error) ? (err.body.error as Obj).conflicting_record : undefined;
    if (r.type.scope === 'global' && Array.isArray(holder) && typeof holder[0] === 'string') {
      created.set(r.uri, holder[0]);
      ids.set(r.uri, Number(holder[0].split('/').pop()));
      return;
    }
    throw new Error(`Problem creating '${titleOf(r)}' (${r.uri}): ${describe(err)}`, { cause: err });
  }
}

/** Puts back the fields a record was created without (a circle of links), merged with what others added since. */
async function reattach(
  trx: Tx, s: Services, actor: Actor, r: BatchRecord, limbs: Array<[string, unknown]>, created: Map<string, string>, ids: Map<string, number>,
): Promise<void> {
  const stored = await new RecordQueries(trx).get(r.type.name, ids.get(r.uri)!);
  const record: Obj = JSON.parse(stored!.json);
  for (const [key, value] of limbs) {
    const real = rewrite(value, created);
    if (Array.isArray(real) && Array.isArray(record[key])) {
      const have = new Set((record[key] as unknown[]).map((v) => JSON.stringify(v)));
      record[key] = [...(record[key] as unknown[]), ...real.filter((v) => !have.has(JSON.stringify(v)))];
    } else record[key] = real;
  }
  try {
    const prepared = prepareRecord(s.registry, s.enums, r.type.name, record);
    await updateRecord(s, actor, { type: r.type, repoId: stored!.repo_id || undefined }, stored!.id, { ...prepared.record, lock_version: stored!.lock_version }, prepared.warnings, { trx });
  } catch (err) {
    throw new Error(`Problem linking '${titleOf(r)}' (${r.uri}) to the records it links to in a circle: ${describe(err)}`, { cause: err });
  }
}
