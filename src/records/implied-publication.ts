import type { Obj } from '../json';
import type { Queryable } from '../store/dialect';
import { publishedLinkers, treeColumnsOf, unpublishedRepositoryIds } from '../store/published-links';
import { untilNextWrite } from '../store/until-next-write';
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
/**
 * Linking records looked at per undecided record in the first round: most records are decided by
 * their first. Each later round looks at four times as many, so a record linked by thousands of
 * unpublished records is decided in a few rounds, not thousands / 16.
 */
const FIRST_ROUND = 16;

export async function markImpliedPublication(db: Queryable, s: Services, records: Obj[]): Promise<void> {
  const uris = [...new Set(records.map((r) => r.uri).filter((u): u is string => typeof u === 'string'))];
  // Kept until the next write (an agent linked by 10,000 unpublished records is looked at once per
  // write, not once per GET with resolve[]); inside a transaction nothing is kept or reused.
  const kept = db === s.db.reads ? await untilNextWrite(s) : undefined;
  const key = (uri: string) => `implied-publication:${uri}`;
  const unknown = kept ? uris.filter((u) => !kept.has(key(u))) : uris;
  const linked = unknown.length ? await linkedToPublished(db, s, unknown) : new Set<string>();
  for (const uri of unknown) kept?.set(key(uri), linked.has(uri));
  for (const record of records) record[IMPLIED_PUBLICATION_FIELD] = linked.has(record.uri) || kept?.get(key(record.uri)) === true;
}

async function linkedToPublished(db: Queryable, s: Services, uris: string[]): Promise<Set<string>> {
  const publishable = Object.values(s.registry.types).filter((t) => t.props.publish && t.uri).map((t) => t.name);
  const linked = new Set<string>();
  // Records of an unpublished repository never show a record: they are left out of the look-up,
  // so a subject used only there costs one query, not a walk through all its links.
  const hiddenRepos = await unpublishedRepositoryIds(db);
  // The records linking each one, a few at a time in rid order along the (to_uri, from_rid) index,
  // so a subject linked by thousands costs what its first linking records cost, until one shows it.
  const after = new Map<string, number>(uris.map((u) => [u, 0]));
  for (let round = FIRST_ROUND; after.size; round = Math.min(round * 4, 1024)) {
    const page = await publishedLinkers(db, s.db, [...after], publishable, hiddenRepos, round);
    if (!page.length) break;
    // The page holds published, unsuppressed records only (the store decided): what is left is their tree.
    const rows = await treeColumnsOf(db, [...new Set(page.map((p) => Number(p.rid)))]);
    const hidden = await underHiddenAncestor(db, rows);
    const showing = new Set(rows.filter((r) => !hidden.has(r)).map((r) => Number(r.rid)));
    const counts = new Map<string, number>();
    for (const p of page) {
      if (showing.has(Number(p.rid))) linked.add(p.to_uri);
      counts.set(p.to_uri, (counts.get(p.to_uri) ?? 0) + 1);
      after.set(p.to_uri, Math.max(after.get(p.to_uri) ?? 0, Number(p.rid)));
    }
    // Still open: not shown yet, and a full page (so possibly more linking records).
    for (const uri of [...after.keys()]) if (linked.has(uri) || counts.get(uri) !== round) after.delete(uri);
  }
  return linked;
}
