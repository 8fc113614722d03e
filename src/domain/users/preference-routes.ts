/** The preference routes beside the generic record routes of the preference type. */
import { GLOBAL_REPO_ID } from '../../registry';
import { currentPreferences, effectiveDefaults } from './preferences';
import { Endpoint, json } from '../../records/endpoint';

export function preferenceEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/repositories/:repo_id/preferences/defaults', permission: null, params: [{ name: 'username', type: 'string' }],
      summary: 'The defaults in effect in a repository (for a user, when named): each layer of preferences over the more general ones',
      handle: async (call) => json(await effectiveDefaults(call.s, call.repoId!, call.params.username)),
    },
    {
      method: 'get', path: '/repositories/:repo_id/current_preferences', permission: null,
      summary: "The preferences records that apply to the calling user in a repository (global, user_global, repo, user_repo) and the defaults they add up to",
      handle: async (call) => json({ ...(await currentPreferences(call.s, call.repoId!, call.actor?.username)), defaults: await effectiveDefaults(call.s, call.repoId!, call.actor?.username) }),
    },
    {
      method: 'get', path: '/current_global_preferences', permission: null,
      summary: "The installation's preferences records that apply to the calling user, and the defaults they add up to",
      handle: async (call) => json({ ...(await currentPreferences(call.s, GLOBAL_REPO_ID, call.actor?.username)), defaults: await effectiveDefaults(call.s, GLOBAL_REPO_ID, call.actor?.username) }),
    },
  ];
}
