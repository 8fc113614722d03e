import { GLOBAL_REPO_ID } from '../../registry';
import { ADMINISTRATORS, setMembership } from '../../domain/users/groups';
import { normaliseUsername, setPassword } from '../../domain/users/users';
import { createRecord } from '../../records/write';
import { prepareRecord } from '../../validation';
import { action, cliConfig, readStdin, withServices } from '../context';
import { CliError } from '../output';
import type { Verb } from './verb';
import { writeTransaction } from '../../records/context';

/** The actor recorded as created_by, as for the records start-up creates. */
const SYSTEM = { username: 'admin' };

interface Options {
  password?: string;
  passwordStdin?: boolean;
  admin?: boolean;
  name?: string;
}

export const createUserVerb: Verb = {
  name: 'create-user',
  register(program) {
    program
      .command('create-user')
      .description('create a user who can log in (as POST /users does: same checks, same password hashing)')
      .argument('<username>', 'the login name (letters, digits, - _ . @ and space; stored lower-case)')
      .option('--password <password>', 'the password (visible to other local users in the process list: prefer --password-stdin)')
      .option('--password-stdin', 'read the password from standard input')
      .option('--admin', 'make the user a system administrator (member of the administrators group)')
      .option('--name <name>', 'the display name (default: the username)')
      .action(action(async (rawUsername: string, options: Options) => {
        if (!!options.password === !!options.passwordStdin) {
          throw new CliError('give the password with --password or --password-stdin (one of them)', 'archive-records create-user NAME --password-stdin < secret-file');
        }
        const password = options.password ?? (await readStdin());
        if (!password) throw new CliError('the password is empty');
        const username = normaliseUsername(rawUsername);
        const result = await withServices(cliConfig(), async (s) => {
          const { record, warnings } = prepareRecord(s.registry, s.enums, 'user', { username, name: options.name ?? username });
          return writeTransaction(s, async (trx) => {
            const created = await createRecord(s, SYSTEM, { type: s.registry.type('user') }, record, warnings, { trx });
            await setPassword(trx, username, created.id, password);
            if (options.admin) await setMembership(trx, s, SYSTEM, GLOBAL_REPO_ID, ADMINISTRATORS, username, true);
            return created;
          });
        });
        process.stdout.write(`${JSON.stringify({ status: result.status, id: result.id, uri: result.uri, username, admin: !!options.admin })}\n`);
      }));
  },
};
