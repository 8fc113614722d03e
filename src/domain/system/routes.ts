import { databaseVersion } from '../../store/connect';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../registry';
import type { Endpoint } from '../../records/endpoint';

const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string };

/** System information and version. */
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
  ];
}
