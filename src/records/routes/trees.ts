import type { Registry } from '../../registry';
import { acceptChildren, childrenOf, createChildren, moveUnderParent, previousOf, transferComponent } from '../trees/moves';
import { fullTree, orderedRecords, treeNode, treeNodeFromRoot, treeRoot, treeWaypoint, TreeTypes } from '../trees/views';
import { Endpoint, json } from '../endpoint';

const id = { name: 'id', type: 'integer', required: true } as const;
const publishedOnly = { name: 'published_only', type: 'boolean', default: false } as const;
const nonNegative = (v: number) => (v >= 0 ? undefined : `must be a non-negative integer but given: ${v}`);

/** The tree routes of every root/node pair in the registry (resources and archival objects, digital objects and components). */
export function treeEndpoints(registry: Registry): Endpoint[] {
  return Object.values(registry.types)
    .filter((t) => t.tree)
    .flatMap((node): Endpoint[] => {
      const types: TreeTypes = { root: registry.type(node.tree!.root), node };
      const rootPath = `${types.root.uri}/:id`;
      const nodePath = `${node.uri}/:id`;
      const read = types.root.permissions!.read;
      const write = node.permissions!.update;
      const position = { name: 'position', type: 'integer', required: true, check: nonNegative } as const;
      return [
        {
          method: 'get', path: `${rootPath}/tree/root`, permission: read, params: [id, publishedOnly], errors: ['NotFound'],
          summary: `The top of a ${types.root.name}'s tree and its first waypoint`,
          handle: async (c) => json(await treeRoot(c.s, types, c.repoId!, c.params.id, c.params.published_only)),
        },
        {
          method: 'get', path: `${rootPath}/tree/waypoint`, permission: read, errors: ['NotFound'],
          params: [id, { name: 'offset', type: 'integer', required: true, check: nonNegative }, { name: 'parent_node', type: 'string' }, publishedOnly],
          summary: 'One page (200) of the children of the root or of parent_node',
          handle: async (c) =>
            json(await treeWaypoint(c.s, types, c.repoId!, c.params.id, c.params.offset, c.params.parent_node, c.params.published_only)),
        },
        {
          method: 'get', path: `${rootPath}/tree/node`, permission: read, errors: ['NotFound'],
          params: [id, { name: 'node_uri', type: 'string', required: true }, publishedOnly],
          summary: 'A node of the tree and its first waypoint',
          handle: async (c) => json(await treeNode(c.s, types, c.repoId!, c.params.id, c.params.node_uri, c.params.published_only)),
        },
        {
          method: 'get', path: `${rootPath}/tree/node_from_root`, permission: read, errors: ['NotFound'],
          params: [id, { name: 'node_ids', type: 'integer[]', required: true }, publishedOnly],
          summary: 'The waypoints to open from the root down to each node',
          handle: async (c) => json(await treeNodeFromRoot(c.s, types, c.repoId!, c.params.id, c.params.node_ids)),
        },
        {
          method: 'get', path: `${rootPath}/ordered_records`, permission: read, params: [id], errors: ['NotFound'],
          summary: 'The published tree, depth first',
          handle: async (c) => json(await orderedRecords(c.s, types, c.repoId!, c.params.id)),
        },
        {
          method: 'get', path: `${rootPath}/tree`, permission: read, params: [id], errors: ['NotFound'],
          summary: 'The whole tree in one object (older clients)',
          handle: async (c) => json(await fullTree(c.s, types, c.repoId!, c.params.id)),
        },
        {
          method: 'post', path: `${rootPath}/accept_children`, permission: write, errors: ['NotFound', 'Conflict'],
          params: [id, { name: 'children', type: 'string[]', required: true }, position],
          summary: `Move ${node.name} records to the top level, from a position`,
          handle: async (c) =>
            json(await acceptChildren(c.s, types, c.repoId!, { kind: 'root', id: c.params.id }, c.params.children, c.params.position)),
        },
        {
          method: 'post', path: `${nodePath}/accept_children`, permission: write, errors: ['NotFound', 'Conflict'],
          params: [id, { name: 'children', type: 'string[]', required: true }, position],
          summary: `Move ${node.name} records under this one, from a position`,
          handle: async (c) =>
            json(await acceptChildren(c.s, types, c.repoId!, { kind: 'node', id: c.params.id }, c.params.children, c.params.position)),
        },
        ...(['root', 'node'] as const).map((kind): Endpoint => ({
          method: 'post', path: `${kind === 'root' ? rootPath : nodePath}/children`, permission: write, params: [id], errors: ['NotFound', 'Conflict'],
          body: node.tree!.childrenBody,
          summary: `Create ${node.name} records under this ${kind === 'root' ? types.root.name : node.name}, in order`,
          handle: async (c) =>
            json(await createChildren(c.s, c.actor!, types, c.repoId!, { kind, id: c.params.id }, c.body!.record.children)),
        })),
        {
          method: 'post', path: `${nodePath}/parent`, permission: write, errors: ['NotFound', 'Conflict'],
          params: [id, { name: 'parent', type: 'integer' }, position],
          summary: 'Move a record under another parent (or to the top level) at a position',
          handle: async (c) => json(await moveUnderParent(c.s, types, c.repoId!, c.params.id, c.params.parent, c.params.position)),
        },
        {
          method: 'get', path: `${nodePath}/children`, permission: read, params: [id], errors: ['NotFound'],
          summary: 'The direct children, in order',
          handle: async (c) => json(await childrenOf(c.s, types, c.repoId!, c.params.id)),
        },
        ...(node.tree!.transfer ? [transferRow(types, node.tree!.transfer)] : []),
        {
          method: 'get', path: `${nodePath}/previous`, permission: read, params: [id], errors: ['NotFound'],
          summary: 'The previous sibling, or the parent',
          handle: async (c) => json(await previousOf(c.s, types, c.repoId!, c.params.id)),
        },
      ];
    });
}

/** POST /repositories/:repo_id/<route>?target_<root>=<uri>&component=<uri>: a node and its subtree into another root. */
function transferRow(types: TreeTypes, transfer: { route: string; permission: string }): Endpoint {
  const target = `target_${types.root.name}`;
  return {
    method: 'post', path: `/repositories/:repo_id/${transfer.route}`, permission: transfer.permission, errors: ['NotFound', 'Conflict'],
    params: [{ name: target, type: 'string', required: true }, { name: 'component', type: 'string', required: true }],
    summary: `Move a ${types.node.name} and everything below it to the end of another ${types.root.name}'s top level`,
    handle: async (c) => json(await transferComponent(c.s, c.actor!, types, c.repoId!, c.params[target], c.params.component)),
  };
}
