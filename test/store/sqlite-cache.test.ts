/**
 * SQLITE_CACHE_MB sets the page cache of a SQLite store's writer and reader connections (4 MB by
 * default, not better-sqlite3's 16); a value that is not a whole number of megabytes is refused
 * with a message naming the setting.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../../src/store/connect';
import { STORE } from '../helpers';

(STORE === 'sqlite' ? describe : describe.skip)('SQLite page cache (SQLITE_CACHE_MB)', () => {
  let dir: string;
  const saved = process.env.SQLITE_CACHE_MB;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-cache-'));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.SQLITE_CACHE_MB;
    else process.env.SQLITE_CACHE_MB = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const cacheSizes = async () => {
    const db = await connect(`sqlite://${path.join(dir, 'c.db')}`);
    try {
      const writer = await db.knex.raw('PRAGMA cache_size') as Array<{ cache_size: number }>;
      const reader = db.readConnection!().pragma('cache_size', { simple: true });
      return [writer[0].cache_size, reader];
    } finally {
      await db.close();
    }
  };

  it('gives both connections 4 MB by default and the configured size otherwise', async () => {
    delete process.env.SQLITE_CACHE_MB;
    assert.deepEqual(await cacheSizes(), [-4096, -4096]);
    process.env.SQLITE_CACHE_MB = '32';
    assert.deepEqual(await cacheSizes(), [-32768, -32768]);
  });

  it('refuses a value that is not a whole number of megabytes, naming the setting', async () => {
    for (const bad of ['0', '-4', '2.5', 'lots']) {
      process.env.SQLITE_CACHE_MB = bad;
      await assert.rejects(connect(`sqlite://${path.join(dir, 'c.db')}`), /SQLITE_CACHE_MB must be a whole number of megabytes from 1 to 65536/, bad);
    }
  });
});
