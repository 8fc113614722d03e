import { connect } from '../../store/connect';
import { migrate } from '../../store/migrations';
import { sqlOf } from '../../store/database';
import { recountAllChildren } from '../../store/setup';
import { action, cliConfig, withServices } from '../context';
import { say } from '../output';
import type { Verb } from './verb';

export const migrateVerb: Verb = {
  name: 'migrate',
  register(program) {
    program
      .command('migrate')
      .description('bring the store up to date as start-up does (creates a MySQL/MariaDB database if missing, migrations, value lists, built-in records, admin user), then exit')
      .action(action(async () => {
        const config = cliConfig();
        // Run here first only to learn which migrations were new; start-up's own run below finds nothing left.
        const db = await connect(config.dbUrl);
        let applied: string[];
        try {
          applied = await migrate(sqlOf(db));
          // Counted again here, not at every start-up: a restored or hand-edited store gets exact tree counts.
          await recountAllChildren(db);
        } finally {
          await db.close();
        }
        const describe = await withServices(config, async (s) => s.db.describe);
        say.info('store is migrated', { store: describe, applied: applied.length ? applied : 'none (already current)' });
      }));
  },
};
