import { errors } from '../../errors';
import type { Registry, TypeInfo } from '../../registry';
import type { Services, TypeHooks } from '../context';
import { committedChangeLogHead, RecordQueries } from '../../store/records';
import { rewriteStored } from '../write';
import type { Obj } from '../../json';
import { fullTree, type TreeTypes } from './views';
import { ancestorChains, canPlaceUnder, descendants, logicalPositions, type ParentRow, place, placeNew, placeNewUnder, placeOf, type RankAnchor } from '../../store/positions';
import { untilNextWrite } from '../../store/until-next-write';
import type { Tx } from '../../store/database';
import { transactionMemo } from '../../store/transaction-memo';
import { deleteRecordRows, joinTree, moveRowsToRoot, placesOfUris, ridsInTree, topNodesOf, treeRowOfUri } from '../../store/trees';

interface NodeState {
  rootUri: string;
  parentUri?: string;
  /** The parent's row id, read by beforeSave (it cannot change before afterSave, in the same transaction). */
  parentRid?: number;
  position?: number;
  rehome: boolean;
  /** A create whose parent is read and checked when it is placed (placeOnCreate): the check. */
  checked?: (parent: ParentRow | undefined) => ParentRow;
}


/**
 * A node that moves to another root takes its subtree along: each record below it names the new
 * root (stored JSON, links and change log, as any server-side rewrite) and sits in its tree.
 */
async function carrySubtree(trx: Tx, s: Services, rid: number, rootUri: string): Promise<void> {
  // The subtree's rows name another root now.
  transactionMemo(trx)?.inserted.clear();
  const below = await descendants(trx, rid);
  const q = new RecordQueries(trx);
  for (let i = 0; i < below.length; i += 500) {
    const rids = below.slice(i, i + 500);
    for (const row of await moveRowsToRoot(trx, rids, rootUri)) {
      const rootProperty = s.registry.types[row.type]?.tree?.rootProperty;
      if (rootProperty) await rewriteStored(q, s, row, (record) => ((record[rootProperty] = { ref: rootUri }), true));
    }
  }
}

/** Position, parent and ancestors come from storage: moves never rewrite the stored JSON. */
function nodeHooks(type: TypeInfo): TypeHooks {
  const { rootProperty, parentProperty } = type.tree!;
  return {
    derivedFields: [parentProperty, 'position', 'ancestors', 'has_unpublished_ancestor'],
    async beforeSave(trx, _s, _where, body, previous) {
      const rootUri: string = body[rootProperty].ref;
      const parentUri: string | undefined = body[parentProperty]?.ref;
      const position: number | undefined = body.position;
      delete body[parentProperty];
      delete body.position;
      delete body.ancestors;
      const rehome = !previous || previous[rootProperty]?.ref !== rootUri;
      const checked = (parent: { rid: number; type: string; root_uri: string | null } | undefined) => {
        if (!parent || parent.type !== type.name) throw errors.missingLinkTarget(parentUri!);
        if (parent.root_uri !== rootUri) {
          // The original fails with a 500 "Consistency check failed" here.
          throw errors.refusedOnSave(parentProperty, `must belong to the same ${rootProperty}: ${parentUri} is not in ${rootUri}`);
        }
        return parent;
      };
      // A create appended under its parent on MySQL reads the parent where it locks the parent's
      // group (placeOnCreate: placeNewUnder), one round trip fewer; the parent is checked there.
      const deferred = !previous && position === undefined && parentUri !== undefined && await canPlaceUnder(trx);
      let parentRid: number | undefined;
      if (rehome && parentUri && !deferred) parentRid = Number(checked(await treeRowOfUri(trx, parentUri)).rid);
      return { rootUri, parentUri, parentRid, position, rehome, checked: deferred ? checked : undefined } satisfies NodeState;
    },

    async placeOnCreate(trx, _s, _where, state) {
      const st = state as NodeState;
      if (st.checked && st.parentUri) {
        const placed = await placeNewUnder(trx, st.rootUri, st.parentUri, st.checked);
        if (placed) return placed;
        st.parentRid = Number(st.checked(await treeRowOfUri(trx, st.parentUri)).rid);
      }
      return placeNew(trx, st.rootUri, st.parentRid ?? null, st.position, st.parentUri);
    },

    async afterSave(trx, s, saved) {
      const st = saved.state as NodeState;
      // A new node was inserted in its place (placeOnCreate).
      if (saved.created) return;
      if (st.rehome) {
        await place(trx, saved.rid, st.rootUri, st.parentRid ?? null);
        await carrySubtree(trx, s, saved.rid, st.rootUri);
      } else if (st.position !== undefined) {
        const current = await placeOf(trx, saved.rid);
        if (current) await place(trx, saved.rid, current.root_uri, current.parent_rid, st.position);
      }
    },

    async beforeDelete(trx, _s, row) {
      await deleteRecordRows(trx, (await descendants(trx, row.rid!)).reverse());
    },

    async decorate(db, s, records) {
      // One query for the places of all records, one per distinct root and one ancestor chain per
      // distinct parent; the sibling counts come from one pass per sibling group.
      const places = await placesOfUris(db, records.map((r) => r.uri));
      const placeOfUri = new Map(places.map((p) => [p.uri, p]));
      const roots = new Map<string, Obj>();
      const q = new RecordQueries(db);
      for (const uri of new Set(places.map((p) => p.root_uri))) {
        const root = await q.jsonAt(uri);
        roots.set(uri, root ? JSON.parse(root) : {});
      }
      // Outside a transaction the furthest place a pass reached in each group is kept until the next
      // write; only passes over several siblings use it (a single record is one count).
      const several = new Set(places.map((p) => p.parent_key)).size < places.length;
      const kept = several && db === s.db.reads ? await untilNextWrite(s) : undefined;
      let anchored = false;
      const anchors = kept && {
        get: (key: string) => {
          const anchor = kept.get<RankAnchor>(`rank-anchor:${key}`);
          anchored ||= anchor !== undefined;
          return anchor;
        },
        set: (key: string, anchor: RankAnchor) => kept.set(`rank-anchor:${key}`, anchor),
      };
      let positions = await logicalPositions(db, [...placeOfUri.values()], anchors);
      // A write committed meanwhile may have moved places an anchor counted: counted again from each group's start.
      if (anchored && (await committedChangeLogHead(s.db)) !== kept!.head) positions = await logicalPositions(db, [...placeOfUri.values()]);
      const chains = await ancestorChains(db, placeOfUri.values());
      for (const record of records) {
        const where = placeOfUri.get(record.uri);
        if (!where) continue;
        const chain = chains.get(where.rid)!;
        const steps = [...chain.map((c) => ({ uri: c.uri, record: JSON.parse(c.json) })), { uri: where.root_uri, record: roots.get(where.root_uri)! }];
        record.position = positions.get(where.rid);
        if (chain.length) record[parentProperty] = { ref: chain[0].uri };
        record.ancestors = steps.map((step) => (step.record.level ? { ref: step.uri, level: step.record.other_level ?? step.record.level } : { ref: step.uri }));
        record.has_unpublished_ancestor = steps.some((step) => step.record.publish !== true || step.record.suppressed === true);
      }
    },
  };
}

/** Roots answer with their tree link, and take their whole tree with them when deleted. */
function rootHooks(types: TreeTypes): TypeHooks {
  return {
    derivedFields: ['tree'],
    wholeTree: (s, repoId, id) => fullTree(s, types, repoId, id),
    async beforeDelete(trx, _s, row) {
      await deleteRecordRows(trx, await ridsInTree(trx, row.uri));
    },
    async decorate(_db, _s, records) {
      for (const record of records) record.tree = { ref: `${record.uri}/tree` };
    },
    /** A merged root's nodes join the target's tree, after its own top-level nodes, in their order. */
    async beforeMerge(trx, _s, target, victim) {
      const top = await topNodesOf(trx, victim.uri);
      await joinTree(trx, victim.uri, target.uri);
      for (const rid of top) await place(trx, rid, target.uri, null);
    },
  };
}

/** Hooks for every tree in the registry: node types name their root type in x-archive.tree. */
export function treeHooks(registry: Registry): Record<string, TypeHooks> {
  const hooks: Record<string, TypeHooks> = {};
  for (const type of Object.values(registry.types)) {
    if (!type.tree) continue;
    hooks[type.name] = nodeHooks(type);
    hooks[type.tree.root] = rootHooks({ root: registry.type(type.tree.root), node: type });
  }
  return hooks;
}
