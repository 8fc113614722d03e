import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import supertest from 'supertest';
import type { Express } from 'express';
import { loadConfig, Config } from '../src/config';
import { createApp } from '../src/http/app';
import type { Services } from '../src/records/context';
import { closeServices, openServices } from '../src/services';

/** The store this run tests: TEST_STORE=sqlite (default) or mariadb. */
export const STORE = (process.env.TEST_STORE ?? 'sqlite') as 'sqlite' | 'mariadb';
const MARIADB_URL = process.env.MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';

/**
 * A fresh, empty database URL for one test app, and a function that drops it. On SQLite in memory,
 * or with TEST_SQLITE_FILE=1 in a file of its own (what a server runs on: the reads go through
 * read connections of their own, a :memory: store's are the writer's).
 */
export function freshDatabase(): { dbUrl: string; drop: () => Promise<void> } {
  if (STORE === 'sqlite' && process.env.TEST_SQLITE_FILE === '1') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-test-'));
    return { dbUrl: `sqlite://${path.join(dir, 'archive.db')}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  if (STORE === 'sqlite') return { dbUrl: 'sqlite://:memory:', drop: async () => {} };
  const name = `art_test_${crypto.randomBytes(6).toString('hex')}`;
  return {
    dbUrl: `${MARIADB_URL}/${name}`,
    drop: async () => {
      const u = new URL(MARIADB_URL.replace(/^mariadb:/, 'mysql:'));
      const admin = knexFactory({
        client: 'mysql2',
        connection: { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) },
      });
      try {
        await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await admin.destroy();
      }
    },
  };
}

export interface TestApp {
  app: Express;
  services: Services;
  config: Config;
  http: ReturnType<typeof supertest>;
  /** Logs in as admin and returns the session token. */
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

export async function startTestApp(env: Record<string, string> = {}, generatedDir?: string): Promise<TestApp> {
  const db = freshDatabase();
  const config = loadConfig({ ...process.env, DB_URL: db.dbUrl, SEARCH_PATH: ':memory:', LOG_REQUESTS: 'false', ...env });
  const services = await openServices(config, generatedDir);
  const app = createApp(services);
  const http = supertest(app);
  let token: string | undefined;
  return {
    app,
    services,
    config,
    http,
    async adminToken() {
      if (!token) {
        const res = await http.post('/users/admin/login').query({ password: config.adminPassword });
        if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${res.text}`);
        token = res.body.session as string;
      }
      return token;
    },
    async close() {
      await closeServices(services);
      await db.drop();
    },
  };
}

/** Creates a repository and returns its id. */
export async function createRepository(t: TestApp, code = `R${crypto.randomBytes(3).toString('hex')}`): Promise<number> {
  const res = await t.http
    .post('/repositories')
    .set('X-ArchivesSpace-Session', await t.adminToken())
    .send({ repo_code: code, name: `Repository ${code}` });
  if (res.status !== 200) throw new Error(`repository create failed: ${res.status} ${res.text}`);
  return res.body.id as number;
}
