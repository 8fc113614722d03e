import type { Knex } from 'knex';

/** A store row's tree columns: its parent node and its tree's root (both absent outside trees). */
export interface TreeColumns {
  parent_rid: number | null;
  root_uri: string | null;
}

/**
 * Rows among `rows` that sit under an unpublished or suppressed ancestor (a parent up the tree,
 * or the tree's root), read from the store's tree columns a level at a time for the whole page.
 * Shared by the OAI-PMH provider and the implied publication of linked records.
 * (The read-time tree fields, position and ancestors, are not needed here and cost a sibling
 * count per record under a parent of 100k children.)
 */
export async function underHiddenAncestor<Row extends TreeColumns>(knex: Knex | Knex.Transaction, rows: Row[]): Promise<Set<Row>> {
  const hidden = new Map<string, boolean>();
  const isHidden = (r: { json: string; suppressed: unknown }) => !!Number(r.suppressed) || JSON.parse(r.json).publish !== true;
  const roots = [...new Set(rows.map((r) => r.root_uri).filter((u): u is string => !!u))];
  for (const r of roots.length ? await knex('records').whereIn('uri', roots).select('uri', 'json', 'suppressed') : []) hidden.set(`u${r.uri}`, isHidden(r));
  const parentOf = new Map<number, number | null>();
  let wanted = [...new Set(rows.map((r) => r.parent_rid).filter((p): p is number => p !== null && p !== undefined).map(Number))];
  while (wanted.length) {
    const found = await knex('records').whereIn('rid', wanted).select('rid', 'parent_rid', 'json', 'suppressed');
    for (const r of found) {
      hidden.set(`r${r.rid}`, isHidden(r));
      parentOf.set(Number(r.rid), r.parent_rid === null ? null : Number(r.parent_rid));
    }
    wanted = [...new Set(found.map((r: { parent_rid: number | null }) => r.parent_rid).filter((p: number | null): p is number => p !== null).map(Number))]
      .filter((rid) => !parentOf.has(rid));
  }
  const out = new Set<Row>();
  for (const row of rows) {
    let hiddenAbove = row.root_uri ? hidden.get(`u${row.root_uri}`) ?? true : false;
    for (let rid = row.parent_rid === null ? null : Number(row.parent_rid); !hiddenAbove && rid !== null; rid = parentOf.get(rid) ?? null) {
      hiddenAbove = hidden.get(`r${rid}`) ?? true;
    }
    if (hiddenAbove) out.add(row);
  }
  return out;
}
