import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { Importer } from '../../src/exchange/import/types';
import { ImportFailed } from '../../src/exchange/import/types';
import { startTestApp, TestApp } from '../helpers';

/** What an import test file works with: an app, a repository in it, an admin session, a scratch folder. */
export interface ImportFixture {
  t: TestApp;
  repo: number;
  H: Record<string, string>;
  scratch: string;
  /** Writes `text` to the scratch folder as `name`: the file an importer is handed. */
  write(name: string, text: string | Buffer, options?: Record<string, unknown>): { path: string; name: string; options?: Record<string, unknown> };
  /** How many records the store holds (an import that fails must leave it as it was). */
  count(): Promise<number>;
  /** Each of `cases` (file name, text, message) fails `importer` with that message, and the store keeps what it held. */
  refusesEach(importer: Importer, cases: Array<[string, string, RegExp]>): Promise<void>;
}

/** Starts the app and makes the repository before the file's tests, and lets both go after them. */
export function importFixture(repoCode: string, name: string): ImportFixture {
  const fx = {
    write(file: string, text: string | Buffer, options?: Record<string, unknown>) {
      const at = path.join(fx.scratch, file);
      fs.writeFileSync(at, text);
      return options === undefined ? { path: at, name: file } : { path: at, name: file, options };
    },
    async count() {
      return Number((await fx.t.services.db.knex('records').count({ n: '*' }).first())?.n);
    },
    async refusesEach(importer: Importer, cases: Array<[string, string, RegExp]>) {
      const before = await fx.count();
      const quiet = { log: () => undefined, progress: () => undefined };
      for (const [name, text, message] of cases) {
        await assert.rejects(importer.run(fx.t.services, fx.repo, { username: 'admin' }, fx.write(name, text), quiet), (err: Error) => {
          assert.ok(err instanceof ImportFailed, String(err));
          assert.match(err.message, message);
          return true;
        });
      }
      assert.equal(await fx.count(), before, 'nothing of any failed file is in the store');
    },
  } as ImportFixture;
  before(async () => {
    fx.t = await startTestApp();
    fx.H = { 'X-ArchivesSpace-Session': await fx.t.adminToken() };
    fx.repo = (await fx.t.http.post('/repositories').set(fx.H).send({ repo_code: repoCode, name })).body.id;
    fx.scratch = fs.mkdtempSync(path.join(os.tmpdir(), `import-${repoCode.toLowerCase()}-`));
  });
  after(async () => {
    await fx.t?.close();
    if (fx.scratch) fs.rmSync(fx.scratch, { recursive: true, force: true });
  });
  return fx;
}
