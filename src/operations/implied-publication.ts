import type { Knex } from 'knex';
import type { Obj } from '../json';
import { underHiddenAncestor } from '../store/visibility';
import type { Services } from './context';

/** The read-only field a schema declares to carry it (subjects, agents, top containers). */
export const IMPLIED_PUBLICATION_FIELD = 'is_linked_to_published_record';

/**
 * `is_linked_to_published_record`: whether a published record links this one (as ArchivesSpace's
 * implied publication: a subject, agent or container shown by a public record). A linking record
 * counts when its type can be published, it is published and not suppressed, its repository is
 * not marked unpublished, and, in a tree, no ancestor up to the root is unpublished or suppressed.
 * Records whose types have no publish flag (events) never count.
 */
/** Linking records looked at per undecided record and round: most records are decided by their first. */
const ROUND = 16;

export async function markImpliedPublication(db: Knex | Knex.Transaction, s: Services, records: Obj[]): Promise<void> {
  const uris = [...new Set(records.map((r) => r.uri).filter((u): u is string => typeof u === 'string'))];
  const publishable = Object.values(s.registry.types).filter((t) => t.props.publish && t.uri).map((t) => t.name);
  // Which records link each one (ids only: a subject may be linked by thousands), then their
  // contents a few at a time until one of them shows it, so the cost follows the answer.
  const candidates = new Map<string, number[]>();
  const links: Array<{ to_uri: string; rid: number }> = uris.length
    ? await db('record_refs as x').join('records as r', 'r.rid', 'x.from_rid')
      .whereIn('x.to_uri', uris).whereIn('r.type', publishable).where('r.suppressed', false)
      .orderBy('r.rid').select('x.to_uri', 'r.rid')
    : [];
  for (const l of links) candidates.set(l.to_uri, [...(candidates.get(l.to_uri) ?? []), Number(l.rid)]);
  const linked = new Set<string>();
  const hiddenRepos = new Map<number, boolean>();
  type Row = { rid: number; repo_id: number; json: string; parent_rid: number | null; root_uri: string | null };
  for (let round = 0; ; round++) {
    const open = [...candidates].filter(([uri, rids]) => !linked.has(uri) && rids.length > round * ROUND);
    if (!open.length) break;
    const batch = [...new Set(open.flatMap(([, rids]) => rids.slice(round * ROUND, (round + 1) * ROUND)))];
    const rows: Row[] = await db('records').whereIn('rid', batch).select('rid', 'repo_id', 'json', 'parent_rid', 'root_uri');
    const published = rows.filter((r) => JSON.parse(r.json).publish === true);
    const unknownRepos = [...new Set(published.map((r) => Number(r.repo_id)).filter((id) => id > 0 && !hiddenRepos.has(id)))];
    for (const repo of unknownRepos.length ? await db('records').where('type', 'repository').whereIn('id', unknownRepos).select('id', 'json') : []) {
      hiddenRepos.set(Number(repo.id), JSON.parse(repo.json).publish === false);
    }
    const shown = published.filter((r) => !hiddenRepos.get(Number(r.repo_id)));
    const hidden = await underHiddenAncestor(db, shown);
    const showing = new Set(shown.filter((r) => !hidden.has(r)).map((r) => Number(r.rid)));
    for (const [uri, rids] of open) if (rids.slice(round * ROUND, (round + 1) * ROUND).some((rid) => showing.has(rid))) linked.add(uri);
  }
  for (const record of records) record[IMPLIED_PUBLICATION_FIELD] = linked.has(record.uri);
}
