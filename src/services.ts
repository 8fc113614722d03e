import type { Config } from './config';
import { bootstrap } from './bootstrap';
import type { Services } from './operations/context';
import { loadRegistry } from './registry';
import { connect } from './store/connect';
import { groupHooks } from './access/groups';
import { userHooks } from './access/users';
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
  const services = await bootstrap({ config, db, registry, hooks });
  services.search = openSearch(services);
  if (config.search.inProcessIndexer) services.search.indexer.start();
  return services;
}
