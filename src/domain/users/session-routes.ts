import { login } from './users';
import { deleteSession } from '../../access/sessions';
import { Endpoint, json } from '../../records/endpoint';

/** Login and logout. */
export function sessionEndpoints(): Endpoint[] {
  return [
    {
      method: 'post', path: '/users/:username/login', permission: null, summary: 'Log in and get a session token', errors: ['AccessDenied', 'TooManyRequests'],
      params: [
        { name: 'username', type: 'string', required: true },
        { name: 'password', type: 'string', required: true },
        { name: 'expiring', type: 'boolean', default: true },
      ],
      handle: async (call) => json(await login(call.s, call.params.username, call.params.password, call.params.expiring, call.client)),
    },
    {
      method: 'post', path: '/logout', permission: null, summary: 'End the current session',
      handle: async (call) => {
        if (!call.token) return json({ status: 'no_active_session' });
        await deleteSession(call.s.db, call.token);
        return json({ status: 'session_logged_out' });
      },
    },
  ];
}
