import type { Tx } from '../store/database';
import { errors } from '../errors';
import type { Obj } from '../json';
import type { TypeInfo } from '../registry';
import { RecordQueries, RecordRow } from '../store/records';
import { prepareRecord } from '../validation';
import type { Actor, Services } from './context';
import { withhold } from './guarded';
import { mergeInto, updateRecord } from './write';
import { writeTransaction } from './context';

export interface MergeResult {
  status: 'Merged';
  id: number;
  selections: unknown[];
  merge_destination_uri: string;
  /** Only for a request in the vocabulary before 4.1 (`target`), whose answer named the destination so. */
  target_uri?: string;
  deleted_uris: string[];
}

/** The answer in the request's vocabulary: 3.x scripts read `target_uri`, which 4.1 renamed `merge_destination_uri`. */
function inRequestVocabulary<T extends { merge_destination_uri: string }>(body: Obj, answer: T): T & { target_uri?: string } {
  return body.target !== undefined ? { ...answer, target_uri: answer.merge_destination_uri } : answer;
}

const bad = errors.badMergeRequest;

/**
 * POST /merge_requests/<route>: every candidate merged into the destination in one transaction,
 * each reference to a candidate re-pointed (search documents follow through the change log).
 * The records must exist, be of the route's types and of one type, and, for repository routes,
 * all live in `repoId` (ArchivesSpace's checks, answered 400 in its shape).
 */
export async function mergeRecords(s: Services, route: string, body: Obj, repoId: number | undefined): Promise<MergeResult> {
  return writeTransaction(s, async (trx) => {
    const [destination, ...candidates] = await mergeParties(new RecordQueries(trx), s, route, body);
    if (repoId !== undefined && [destination, ...candidates].some((r) => r.repo_id !== repoId)) throw bad('All records to merge must be in the repository specified');
    const victims = candidates.filter((c) => c.uri !== destination.uri);
    for (const victim of victims) await mergeInto(trx, s, destination, victim);
    return inRequestVocabulary(body, { status: 'Merged' as const, id: destination.id, selections: [], merge_destination_uri: destination.uri, deleted_uris: victims.map((v) => v.uri) });
  });
}

/**
 * The destination and candidate refs of a merge request. ArchivesSpace before 4.1 named them
 * `target` and `victims` (merge_request.rb until ANW-1336), and scripts written for 3.x still send
 * those: either vocabulary is read. A body may carry both (a script written for every version);
 * then they must name the same records, as a destructive merge must not guess between two.
 */
function mergeRefs(body: Obj): { destinationUri: string | undefined; candidateUris: Array<string | undefined> } {
  const ref = (x: unknown) => (typeof (x as Obj)?.ref === 'string' ? String((x as Obj).ref) : undefined);
  const refs = (x: unknown) => (Array.isArray(x) ? x.map(ref) : undefined);
  const oneOf = <T>(current: T | undefined, old: T | undefined, names: string) => {
    const same = (x: unknown) => JSON.stringify(Array.isArray(x) ? [...x].sort() : x);
    if (current !== undefined && old !== undefined && same(current) !== same(old)) throw bad(`${names} name different records: send one of them`);
    return current ?? old;
  };
  const destinationUri = oneOf(ref(body.merge_destination), ref(body.target), 'merge_destination and target');
  const candidateUris = oneOf(refs(body.merge_candidates), refs(body.victims), 'merge_candidates and victims') ?? [];
  return { destinationUri, candidateUris };
}

/**
 * The destination and candidates a merge request names (`{"merge_destination": {"ref"}, "merge_candidates": [{"ref"}]}`,
 * or the older `target` and `victims`): they must exist, be of the route's types and of one type
 * (ArchivesSpace's checks, answered 400 in its shape).
 */
async function mergeParties(q: RecordQueries, s: Services, route: string, body: Obj): Promise<RecordRow[]> {
  const { destinationUri, candidateUris } = mergeRefs(body);
  if (!destinationUri) throw errors.propertyMissing('merge_destination');
  if (!candidateUris.length || candidateUris.some((u) => !u)) throw errors.noMergeCandidates();
  const uris = [destinationUri, ...(candidateUris as string[])];
  const byUri = new Map((await q.getByUris(uris)).map((r) => [r.uri, r]));
  const missing = uris.find((u) => !byUri.has(u));
  if (missing) throw errors.missingLinkTarget(missing);
  const records = uris.map((u) => byUri.get(u)!);
  const routeTypes = Object.values(s.registry.types).filter((t) => t.merge?.route === route).map((t) => t.name);
  if (records.some((r) => !routeTypes.includes(r.type) || r.type !== records[0].type)) throw bad(`This merge request can only merge ${route} records`);
  return records;
}

/** One choice of a detailed merge: into the destination's `list` at `index`, the candidate's item at `position` (or a field of it). */
interface DetailChoice {
  list: string;
  index: number;
  what: 'append' | 'replace' | { field: string };
  position: number;
}

/**
 * The selections of a detailed merge (ArchivesSpace's merge_request_detail): a tree shaped like
 * the record whose leaves "REPLACE" mark what is taken from the candidate, each item of a list
 * naming the candidate's item it takes from as `position`. Answered as the original's paths
 * (list.index.field.position → "REPLACE") and as choices.
 */
function parseSelections(selections: unknown): { paths: Record<string, string>; choices: DetailChoice[] } {
  const paths: Record<string, string> = {};
  const choices: DetailChoice[] = [];
  if (!selections || typeof selections !== 'object' || Array.isArray(selections)) throw bad('selections must be an object of the subrecord lists to take from the candidate');
  for (const [list, items] of Object.entries(selections as Obj)) {
    if (!Array.isArray(items)) continue;
    items.forEach((item: unknown, index: number) => {
      if (!item || typeof item !== 'object') return;
      const position = Number((item as Obj).position);
      for (const [key, value] of Object.entries(item as Obj)) {
        if (value !== 'REPLACE' || key === 'position') continue;
        if (!Number.isInteger(position) || position < 0) throw bad(`selections.${list}[${index}] needs the candidate's position of the item to take (a whole number)`);
        paths[`${list}.${index}.${key}.${position}`] = 'REPLACE';
        choices.push({ list, index, position, what: key === 'append' || key === 'replace' ? key : { field: key } });
      }
    });
  }
  return { paths, choices };
}

/** The destination with the choices made from the candidate (a copy: neither is changed). */
function mergeDetails(type: TypeInfo, destination: Obj, candidate: Obj, choices: DetailChoice[]): Obj {
  const detail = type.merge?.detail ?? {};
  const merged: Obj = structuredClone(destination);
  for (const c of choices) {
    const from: unknown[] = Array.isArray(candidate[c.list]) ? candidate[c.list] : [];
    const into: Obj[] = Array.isArray(merged[c.list]) ? merged[c.list] : (merged[c.list] = []);
    const byIndex = detail.appendedByIndex?.includes(c.list);
    const taken = structuredClone(from[byIndex ? c.index : c.position]) as Obj | undefined;
    if (taken === undefined) throw bad(`the candidate has no ${c.list} at position ${byIndex ? c.index : c.position}`);
    const flags = detail.oneOf?.[c.list] ?? [];
    if (typeof c.what === 'object') {
      if (!into[c.index]) throw bad(`the destination has no ${c.list} at index ${c.index} to take ${c.what.field} into`);
      into[c.index][c.what.field] = taken[c.what.field];
    } else if (c.what === 'append' || byIndex) {
      for (const flag of flags) if (flag in taken) taken[flag] = false;
      into.push(taken);
    } else {
      if (!into[c.index]) throw bad(`the destination has no ${c.list} at index ${c.index} to replace`);
      for (const flag of flags) taken[flag] = into[c.index][flag];
      into[c.index] = taken;
    }
  }
  return merged;
}

/**
 * POST /merge_requests/<route>_detail: the first candidate's chosen subrecords and fields go into
 * the destination, then the candidates are merged into it as /merge_requests/<route> does; with
 * `dryRun`, only the merged destination is answered (`result`), nothing is written. A caller
 * without a guarding permission cannot merge records holding what it guards (the original's 409).
 */
export async function mergeDetailed(
  s: Services, actor: Actor, route: string, body: Obj, dryRun: boolean, withheld: ReadonlySet<string>,
): Promise<Obj> {
  const request = (body.merge_request_detail && typeof body.merge_request_detail === 'object' ? body.merge_request_detail : body) as Obj;
  const { paths, choices } = parseSelections(request.selections ?? {});
  const run = async (trx: Tx) => {
    const q = new RecordQueries(trx);
    const [destination, ...candidates] = await mergeParties(q, s, route, request);
    const type = s.registry.type(destination.type);
    const destinationJson = JSON.parse(destination.json) as Obj;
    const merged = mergeDetails(type, destinationJson, JSON.parse(candidates[0].json), choices);
    const answer = inRequestVocabulary(request, { status: 'Merged', id: destination.id, selections: paths, merge_destination_uri: destination.uri, deleted_uris: candidates.map((c) => c.uri), result: merged });
    const shown = () => {
      withhold(s.registry, [answer.result], withheld);
      return answer;
    };
    if (dryRun) return shown();
    const guarded = Object.entries(type.guardedProperties ?? {}).filter(([, code]) => withheld.has(code)).map(([property]) => property);
    const holds = (json: string) => guarded.some((p) => {
      const v = (JSON.parse(json) as Obj)[p];
      return Array.isArray(v) ? v.length > 0 : v !== undefined;
    });
    if ([destination, ...candidates].some((r) => holds(r.json))) {
      throw errors.conflictingMerge(`The merge cannot be completed because one or more of the records has ${guarded.join(', ')} you do not have permission to access.`);
    }
    for (const victim of candidates.filter((c) => c.uri !== destination.uri)) await mergeInto(trx, s, destination, victim);
    if (choices.length) {
      const current = (await q.get(destination.type, destination.id))!;
      const prepared = prepareRecord(s.registry, s.enums, destination.type, { ...merged, lock_version: current.lock_version });
      await updateRecord(s, actor, { type, repoId: destination.repo_id || undefined }, destination.id, { ...prepared.record, lock_version: current.lock_version }, prepared.warnings, { trx });
      answer.result = JSON.parse((await q.get(destination.type, destination.id))!.json);
    }
    return shown();
  };
  // A dry run reads in a transaction too (one snapshot) and writes nothing.
  return writeTransaction(s, run);
}
