/**
 * A server in this process, for the one-process profiles (bench/import-sheet-profile.ts,
 * bench/updater-profile.ts): the store of DB_URL or a scratch SQLite file, search in memory, the
 * indexer off, logged in as the administrator. `call` sends JSON; `H` holds the session alone (a
 * job's upload sets its own content type).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Config, loadConfig } from '../src/config';
import { createApp } from '../src/http/app';
import { closeServices, openServices } from '../src/services';
import type { Services } from '../src/records/context';
import { callsAs } from './lib';

export interface InProcessServer {
  dir: string;
  config: Config;
  s: Services;
  base: string;
  H: Record<string, string>;
  call: (method: string, url: string, body?: unknown) => Promise<any>;
  close: () => Promise<void>;
}

export async function inProcessServer(name: string): Promise<InProcessServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  const config = loadConfig({ ...process.env, DB_URL: process.env.DB_URL ?? `sqlite://${dir}/store.db`, SEARCH_PATH: ':memory:', LOG_REQUESTS: 'false', INDEXER: 'off' });
  const s = await openServices(config);
  const server = createApp(s).listen(0);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { H: json, call } = await callsAs(base, 'admin', config.adminPassword);
  const H = { 'X-ArchivesSpace-Session': json['X-ArchivesSpace-Session'] };
  return { dir, config, s, base, H, call, close: async () => { server.close(); await closeServices(s); } };
}
