/** Repositories with their agent representation, and their order. */
import { createRepositoryWithAgent, getRepositoryWithAgent, setRepositoryPosition, updateRepositoryWithAgent } from './with-agent';
import { transferRepository } from '../../records/transfer';
import { Endpoint, json } from '../../records/endpoint';

const id = { name: 'id', type: 'integer', required: true } as const;

export function repositoryEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/repositories/with_agent/:id', permission: null, params: [id], errors: ['NotFound'],
      summary: 'Get a Repository by ID, including its agent representation',
      handle: async (call) => json(await getRepositoryWithAgent(call.s, call.params.id)),
    },
    {
      method: 'post', path: '/repositories/with_agent', permission: 'create_repository', rawJsonBody: true,
      summary: 'Create a Repository with an agent representation (one transaction)',
      handle: async (call) => json(await createRepositoryWithAgent(call.s, call.actor!, call.rawBody)),
    },
    {
      method: 'post', path: '/repositories/with_agent/:id', permission: 'create_repository', params: [id], rawJsonBody: true, errors: ['NotFound', 'Conflict'],
      summary: 'Update a repository with an agent representation',
      handle: async (call) => json(await updateRepositoryWithAgent(call.s, call.actor!, call.params.id, call.rawBody)),
    },
    {
      method: 'post', path: '/repositories/:repo_id/position', permission: 'create_repository', errors: ['Conflict'],
      params: [{ name: 'position', type: 'integer', required: true, check: (v) => (v >= 0 ? undefined : `must be a non-negative integer but given: ${v}`) }],
      summary: 'Set the position of a repository in the list of repositories',
      handle: async (call) => json(await setRepositoryPosition(call.s, call.actor!, call.repoId!, call.params.position)),
    },
    {
      method: 'post', path: '/repositories/:repo_id/transfer', permission: 'transfer_repository', errors: ['Conflict'],
      params: [{ name: 'target_repo', type: 'string', required: true }],
      summary: 'Transfer all records to a different repository (target_repo: its URI; transfer_repository in both)',
      handle: async (call) => json(await transferRepository(call.s, call.actor!, call.repoId!, call.params.target_repo)),
    },
  ];
}
