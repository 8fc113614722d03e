import { errors } from '../errors';
import { RecordQueries } from '../store/records';
import type { Services } from './context';
import { lookupHash, lookupValue } from './keys';
import type { Where } from './context';
import { uriLoader } from './load';
import { resolveLinks } from './resolve';

/** The stored form of one identifier[] value, or undefined when it is not an array of 1 to 4 parts. */
function identifierValue(raw: string): string | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(raw);
  } catch (err) {
    throw errors.unparsableBody((err as Error).message);
  }
  if (!Array.isArray(parts) || parts.length < 1 || parts.length > 4) return undefined;
  return lookupValue('identifier-json', parts.map((p) => (p === '' ? null : p)));
}

/**
 * find_by_id (pagination-and-resolve.md section 6): values of one parameter are alternatives,
 * different parameters must all match. One indexed query per parameter.
 */
export async function findById(s: Services, where: Where, values: Record<string, string[]>, resolve: string[], withheld?: ReadonlySet<string>) {
  const type = where.type;
  const q = new RecordQueries(s.db.reads);
  let matches: Set<string> | undefined;
  for (const [param, rule] of Object.entries(type.lookup ?? {})) {
    if (rule.findById === false) continue;
    const given = values[param];
    if (!given?.length) continue;
    const stored = given.map((v) => (rule.format === 'identifier-json' ? identifierValue(v) : lookupValue(rule.format, [v])));
    const hashes = stored.filter((v): v is string => v !== undefined).map(lookupHash);
    const uris = new Set(await q.findByLookup(type.name, where.repoId ?? 0, param, hashes, !!where.showSuppressed));
    matches = matches ? new Set([...matches].filter((u) => uris.has(u))) : uris;
  }
  const refs: Array<Record<string, unknown>> = [...(matches ?? [])].map((ref) => ({ ref }));
  const key = type.plural!;
  const answer = { [key]: refs };
  if (resolve.length) await resolveLinks([answer], resolve, uriLoader(s, { withheld }));
  return answer;
}
