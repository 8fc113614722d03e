/**
 * The component walker every finding-aid export shares (EAD 2002, EAD3, PDF, container labels):
 * a resource's tree in tree order, each component with its record (links resolved) and depth,
 * read a page of siblings at a time, so a resource of 100,000 components streams in bounded
 * memory. Which nodes of a page have children is asked once for the whole page, so a leaf costs
 * no query of its own and nothing is counted before the first component goes out.
 */
import type { Obj } from '../../../json';
import type { Services } from '../../../records/context';
import { uriLoader } from '../../../records/load';
import { resolveLinks } from '../../../records/resolve';
import { parentKey } from '../../../store/positions';
import { nodesWithChildren, treePage } from '../../../store/tree-pages';
import { EAD_RESOLVE, type EadOptions } from './parts';
import { letEventLoopTurn } from '../../../event-loop';

const PAGE_SIZE = 200;

export interface Component {
  record: Obj;
  /** 1 for the resource's children. */
  depth: number;
}

export interface WalkOptions {
  /** The links resolved on each component, a page at a time. */
  resolve: string[];
  /** Whether a component, and with it its branch, is walked. */
  keep(record: Obj, suppressed: boolean): boolean;
}

/** Each visited component is entered before its children and left after them. */
export interface ComponentVisitor {
  enter(c: Component): Promise<void> | void;
  leave(c: Component): Promise<void> | void;
}

/** What the finding aids walk: unsuppressed components, unpublished ones only when asked (and never below one left out). */
export function findingAidComponents(o: EadOptions): WalkOptions {
  return { resolve: EAD_RESOLVE, keep: (record, suppressed) => !suppressed && (o.includeUnpublished || record.publish !== false) };
}

export async function walkComponents(s: Services, rootUri: string, options: WalkOptions, visit: ComponentVisitor): Promise<void> {
  const parents = new Set<number | null>([null]);
  const walk = async (parent: number | null, depth: number): Promise<void> => {
    if (!parents.has(parent)) return;
    parents.delete(parent);
    let after: number | undefined;
    for (;;) {
      const rows = await treePage(s.db, parentKey(rootUri, parent), { after, size: PAGE_SIZE, shownOnly: true });
      if (!rows.length) return;
      after = rows[rows.length - 1].position;
      const nodes = rows.filter((r) => options.keep(r.record, r.suppressed));
      if (nodes.length) for (const rid of await nodesWithChildren(s.db, nodes.map((n) => n.rid))) parents.add(rid);
      await resolveLinks(nodes.map((n) => n.record), options.resolve, uriLoader(s));
      for (const node of nodes) {
        // An export written to memory (a job's PDF) meets no back-pressure to wait on: it steps aside every SLICE_MS.
        await letEventLoopTurn();
        const c = { record: node.record, depth };
        await visit.enter(c);
        await walk(node.rid, depth + 1);
        await visit.leave(c);
      }
      if (rows.length < PAGE_SIZE) return;
    }
  };
  await walk(null, 1);
}
