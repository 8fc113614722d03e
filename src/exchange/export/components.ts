/**
 * The component tree under a root record (a digital object's components) for the exports that
 * nest it whole (MODS relatedItem, METS dmdSec and structMap). One query for the tree: digital
 * objects have tens of components, not the hundred thousand a resource may have (EAD streams
 * those a level at a time).
 */
import type { Services } from '../../records/context';
import { uriLoader } from '../../records/load';
import { resolveLinks } from '../../records/resolve';
import { treeNodes } from '../../store/tree-pages';
import type { Archival } from './common';

export interface ComponentNode {
  record: Archival;
  children: ComponentNode[];
}

/**
 * Components under `rootUri` in tree order. Suppressed components and everything under them
 * are left out always; unpublished ones too unless `includeUnpublished`.
 */
export async function componentTree(s: Services, rootUri: string, includeUnpublished: boolean, resolve: string[] = []): Promise<ComponentNode[]> {
  const rows = await treeNodes(s.db, rootUri);
  interface Loaded extends ComponentNode {
    parent: number | null;
    dropped: boolean;
    children: Loaded[];
  }
  const byRid = new Map<number, Loaded>();
  for (const r of rows) {
    const dropped = r.suppressed || (!includeUnpublished && r.record.publish !== true);
    byRid.set(r.rid, { parent: r.parent_rid, record: r.record, children: [], dropped });
  }
  // Links of every component resolved in one batch per level.
  if (resolve.length) await resolveLinks([...byRid.values()].filter((n) => !n.dropped).map((n) => n.record), resolve, uriLoader(s));
  const top: Loaded[] = [];
  for (const node of byRid.values()) {
    if (node.parent === null) top.push(node);
    else byRid.get(node.parent)?.children.push(node);
  }
  const prune = (nodes: Loaded[]): ComponentNode[] =>
    nodes.filter((n) => !n.dropped).map((n) => ({ record: n.record, children: prune(n.children) }));
  return prune(top);
}
