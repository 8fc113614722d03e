/**
 * A SQLite file store checkpoints its WAL in a thread of its own: the writer's COMMIT no longer
 * copies pages back into the database file (and waits for its fsyncs) every 1,000 pages.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { connect, type Database } from '../../src/store/connect';
import { SAFETY_NET_PAGES } from '../../src/store/checkpointer';
import { STORE } from '../helpers';

(STORE === 'sqlite' ? describe : describe.skip)('WAL checkpoints in their own thread (sqlite)', () => {
  let dir: string;
  let db: Database;
  let file: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'art-checkpoint-'));
    file = path.join(dir, 'archive.db');
    db = await connect(`sqlite://${file}`);
  });
  after(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the writer only a safety net, and copies committed pages into the database file without it', async function () {
    this.timeout(90_000);
    await db.knex.raw('CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT)');
    assert.equal((await db.knex.raw('PRAGMA wal_autocheckpoint'))[0].wal_autocheckpoint, SAFETY_NET_PAGES);
    const before = fs.statSync(file).size;
    // About 80 pages: far below the writer's automatic checkpoint, so only the thread can move them.
    for (let i = 0; i < 20; i++) {
      await db.knex.transaction(async (trx) => {
        await trx('filler').insert(Array.from({ length: 40 }, (_, k) => ({ text: `${i}-${k}-${'x'.repeat(400)}` })));
      });
    }
    // Generous: the thread's checkpoint waits for fsyncs, which take seconds on a disk other
    // processes keep busy (a CI run's MariaDB leg beside it); it ends as soon as the file has grown.
    const deadline = Date.now() + 30_000;
    while (fs.statSync(file).size < before + 250_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(fs.statSync(file).size >= before + 250_000, `database file ${fs.statSync(file).size} bytes, was ${before}: nothing checkpointed`);
    // Soon every frame of the WAL is in the database file: a checkpoint of our own finds nothing left to copy.
    const probe = new BetterSqlite3(file);
    try {
      let state = { busy: 1, log: -1, checkpointed: -2 };
      for (let i = 0; i < 300 && (state.busy || state.log !== state.checkpointed); i++) {
        await new Promise((r) => setTimeout(r, 100));
        [state] = probe.pragma('wal_checkpoint(PASSIVE)') as Array<typeof state>;
      }
      assert.equal(state.checkpointed, state.log);
    } finally {
      probe.close();
    }
  });
});
