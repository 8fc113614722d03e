import type { Config } from './config';
import { bootstrap } from './bootstrap';
import type { Services } from './operations/context';
import { loadRegistry } from './registry';
import { connect } from './store/connect';
import { groupHooks } from './operations/groups';
import { userHooks } from './operations/users';
import { repositoryHooks } from './operations/repositories';
import { treeHooks } from './trees/hooks';
import { locationHooks } from './operations/locations';
import { topContainerHooks } from './operations/containers';
import { openSearch } from './search';

/** Connects, migrates and loads the registry: everything the app and the CLI verbs share. */
export async function openServices(config: Config, generatedDir?: string): Promise<Services> {
  const registry = loadRegistry(generatedDir);
  const db = await connect(config.dbUrl);
  const hooks = { ...treeHooks(registry), repository: repositoryHooks, group: groupHooks, user: userHooks, location: locationHooks, top_container: topContainerHooks };
  let services: Services;
  try {
    services = await bootstrap({ config, db, registry, hooks });
  } catch (err) {
    // A verb that fails here must still exit: an open pool would keep the process alive.
    await db.knex.destroy();
    throw err;
  }
  services.search = openSearch(services);
  if (config.search.inProcessIndexer) services.search.indexer.start();
  return services;
}
