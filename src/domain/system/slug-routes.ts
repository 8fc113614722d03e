/** The public interface's slug lookup (slugs.ts). */
import { findBySlug } from './slugs';
import { Endpoint, json } from '../../records/endpoint';

export function slugEndpoints(): Endpoint[] {
  return [{
    method: 'get', path: '/slug', permission: null,
    params: [{ name: 'slug', type: 'string', required: true }, { name: 'controller', type: 'string', required: true }, { name: 'action', type: 'string' }],
    summary: 'Find the record given the slug, return id, repo_id, and table name (id -1 when there is none)',
    handle: async (call) => json(await findBySlug(call.s, call.params.slug, call.params.controller, call.params.action)),
  }];
}
