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
export async function markImpliedPublication(db: Knex | Knex.Transaction, s: Services, records: Obj[]): Promise<void> {
  const uris = records.map((r) => r.uri).filter((u): u is string => typeof u === 'string');
  const publishable = Object.values(s.registry.types).filter((t) => t.props.publish && t.uri).map((t) => t.name);
  type Row = { to_uri: string; repo_id: number; json: string; parent_rid: number | null; root_uri: string | null };
  const rows: Row[] = uris.length
    ? await db('record_refs as x').join('records as r', 'r.rid', 'x.from_rid')
      .whereIn('x.to_uri', uris).whereIn('r.type', publishable).where('r.suppressed', false)
      .select('x.to_uri', 'r.repo_id', 'r.json', 'r.parent_rid', 'r.root_uri')
    : [];
  const published = rows.filter((r) => JSON.parse(r.json).publish === true);
  const repoIds = [...new Set(published.map((r) => Number(r.repo_id)).filter((id) => id > 0))];
  const hiddenRepos = new Set<number>();
  for (const repo of repoIds.length ? await db('records').where('type', 'repository').whereIn('id', repoIds).select('id', 'json') : []) {
    if (JSON.parse(repo.json).publish === false) hiddenRepos.add(Number(repo.id));
  }
  const shown = published.filter((r) => !hiddenRepos.has(Number(r.repo_id)));
  const hidden = await underHiddenAncestor(db, shown);
  const linked = new Set(shown.filter((r) => !hidden.has(r)).map((r) => r.to_uri));
  for (const record of records) record[IMPLIED_PUBLICATION_FIELD] = linked.has(record.uri);
}
