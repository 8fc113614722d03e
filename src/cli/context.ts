/** What every verb needs: configuration, the store, the services, and one way to fail. */
import { Config, loadConfig } from '../config';
import { ApiError } from '../errors';
import type { Services } from '../records/context';
import { loadRegistry, Registry } from '../registry';
import { closeServices, openServices } from '../services';
import { connect, Database } from '../store/connect';
import { assertNotNewer } from '../store/migrations';
import { CliError, say } from './output';

/**
 * The environment's configuration (the server's, src/config.ts), with the indexer off: a verb is
 * short-lived, and the server (or `archive-records indexer`) applies the change log its writes leave.
 */
export function cliConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig({ ...env, INDEXER: 'off' });
}

/** The services the server runs on (the store migrated and seeded, as at start-up), closed afterwards. */
export async function withServices<T>(config: Config, fn: (s: Services) => Promise<T>): Promise<T> {
  const s = await openServices(config);
  try {
    return await fn(s);
  } finally {
    await closeServices(s);
  }
}

/** The store as it is (nothing migrated or created) and the registry: for verbs that only read. */
export async function withStore<T>(config: Config, fn: (db: Database, registry: Registry) => Promise<T>): Promise<T> {
  const registry = loadRegistry();
  const db = await connect(config.dbUrl);
  try {
    await assertNotNewer(db.knex);
    return await fn(db, registry);
  } finally {
    await db.close();
  }
}

/** What went wrong, in one line: an API error's message or error map, or the exception's message. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) {
    const e = err.body.error;
    if (typeof e === 'string') return e;
    // An error map ({"username": ["... already in use"]}): each path with its messages.
    return Object.entries(e as Record<string, string[]>).map(([path, messages]) => `${path}: ${messages.join(', ')}`).join('; ');
  }
  return err instanceof Error ? err.message : String(err);
}

/** A verb's action: a failure becomes one message on stderr (with what to do, when known) and exit status 1. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      say.error(messageOf(err), err instanceof CliError && err.fix ? { fix: err.fix } : undefined);
      process.exitCode = err instanceof CliError ? err.exitCode : 1;
    }
  };
}

/** Standard input as text, without its final newline (a password piped from a file or a secret store). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
