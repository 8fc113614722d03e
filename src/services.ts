import type { Config } from './config';
import { bootstrap } from './bootstrap';
import type { Services, TypeHooks } from './operations/context';
import { loadRegistry, type Registry } from './registry';
import { connect } from './store/connect';
import { groupHooks } from './operations/groups';
import { userHooks } from './operations/users';
import { repositoryHooks } from './operations/repositories';
import { treeHooks } from './trees/hooks';
import { locationHooks } from './operations/locations';
import { topContainerHooks } from './operations/containers';
import { openSearch } from './search';

/** Domain rules a schema can name (x-archive.hooks): the few types whose rules are code. */
export const NAMED_HOOKS: Record<string, TypeHooks> = {
  repository: repositoryHooks, group: groupHooks, user: userHooks, location: locationHooks, top_container: topContainerHooks,
};

/** Each type's hooks: its tree role's (src/trees) or the named set its schema declares. */
function typeHooks(registry: Registry): Record<string, TypeHooks> {
  const hooks = treeHooks(registry);
  for (const type of Object.values(registry.types)) {
    if (!type.hooks) continue;
    const named = NAMED_HOOKS[type.hooks];
    if (!named) throw new Error(`schemas/${type.name}.json names hooks "${type.hooks}", which src/services.ts does not define`);
    if (hooks[type.name]) throw new Error(`${type.name} has tree hooks and the named hooks "${type.hooks}": one set per type`);
    hooks[type.name] = named;
  }
  return hooks;
}

/** Connects, migrates and loads the registry: everything the app and the CLI verbs share. */
export async function openServices(config: Config, generatedDir?: string): Promise<Services> {
  const registry = loadRegistry(generatedDir);
  const db = await connect(config.dbUrl);
  const hooks = typeHooks(registry);
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
