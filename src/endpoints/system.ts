import { databaseVersion } from '../store/connect';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../registry';
import { login } from '../operations/users';
import { deleteSession } from '../access/sessions';
import { Endpoint, json } from './types';

const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string };

/** System information, version, login and logout. */
export function systemEndpoints(): Endpoint[] {
  return [
    {
      method: 'get', path: '/', permission: null, summary: 'System information',
      handle: async (call) => {
        const { product, version } = await databaseVersion(call.s.db);
        return {
          json: JSON.stringify(
            {
              databaseProductName: product,
              databaseProductVersion: version,
              host_os: os.platform(),
              host_cpu: os.arch(),
              build: `archive-records-backend ${pkg.version}`,
              node_version: process.version,
              archivesSpaceVersion: call.s.config.compatVersion,
            },
            null,
            2,
          ),
        };
      },
    },
    {
      method: 'get', path: '/version', permission: null, produces: 'text/plain', summary: 'Version (plain text, parsed by ArchivesSnake)',
      handle: async (call) => ({ text: `ArchivesSpace (${call.s.config.compatVersion})`, contentType: 'text/plain' }),
    },
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
        await deleteSession(call.s.db.knex, call.token);
        return json({ status: 'session_logged_out' });
      },
    },
  ];
}
