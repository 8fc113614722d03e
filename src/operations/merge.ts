import { errors } from '../errors';
import type { Obj } from '../json';
import { RecordQueries, RecordRow } from '../store/records';
import type { Services } from './context';
import { mergeInto } from './write';

export interface MergeResult {
  status: 'Merged';
  id: number;
  selections: unknown[];
  merge_destination_uri: string;
  deleted_uris: string[];
}

const bad = (message: string) => errors.params({ merge_request: [message] });

/**
 * POST /merge_requests/<route>: every candidate merged into the destination in one transaction,
 * each reference to a candidate re-pointed (search documents follow through the change log).
 * The records must exist, be of the route's types and of one type, and, for repository routes,
 * all live in `repoId` (ArchivesSpace's checks, answered 400 in its shape).
 */
export async function mergeRecords(s: Services, route: string, body: Obj, repoId: number | undefined): Promise<MergeResult> {
  const ref = (x: unknown) => (typeof (x as Obj)?.ref === 'string' ? String((x as Obj).ref) : undefined);
  const destinationUri = ref(body.merge_destination);
  const candidateUris = Array.isArray(body.merge_candidates) ? body.merge_candidates.map(ref) : [];
  if (!destinationUri) throw errors.params({ merge_destination: ['Property is required but was missing'] });
  if (!candidateUris.length || candidateUris.some((u: string | undefined) => !u)) {
    throw errors.params({ merge_candidates: ['Must have at least 1 item, each with a ref'] });
  }
  const routeTypes = Object.values(s.registry.types).filter((t) => t.merge?.route === route).map((t) => t.name);
  return s.db.transaction(async (trx) => {
    const q = new RecordQueries(trx);
    const rows = await q.getByUris([destinationUri, ...(candidateUris as string[])]);
    const byUri = new Map(rows.map((r) => [r.uri, r]));
    const all = [destinationUri, ...candidateUris].map((u) => byUri.get(u as string));
    const missing = [destinationUri, ...candidateUris].filter((_, i) => !all[i]);
    if (missing.length) throw errors.missingLinkTarget(String(missing[0]));
    const records = all as RecordRow[];
    const type = records[0].type;
    if (records.some((r) => !routeTypes.includes(r.type) || r.type !== type)) throw bad(`This merge request can only merge ${route} records`);
    if (repoId !== undefined && records.some((r) => r.repo_id !== repoId)) throw bad('All records to merge must be in the repository specified');
    const [destination, ...candidates] = records;
    const victims = candidates.filter((c) => c.uri !== destination.uri);
    for (const victim of victims) await mergeInto(trx, s, destination, victim);
    return { status: 'Merged', id: destination.id, selections: [], merge_destination_uri: destination.uri, deleted_uris: victims.map((v) => v.uri) };
  });
}
