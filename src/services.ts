import v8 from 'node:v8';
import type { Config } from './config';
import { bootstrap } from './bootstrap';
import type { Services, TypeHooks } from './records/context';
import { loadRegistry, type Registry } from './registry';
import { connect } from './store/connect';
import { treeHooks } from './records/trees/hooks';
import { combineHooks } from './records/context';
import { NAMED_HOOKS } from './domain';
import { openSearch } from './search';
import { openJobs } from './jobs';
import { openWebhooks } from './domain/webhooks/dispatcher';
import { setHistoryPolicy } from './store/history';
import { startHistoryUpkeep } from './records/history';

/** Each type's hooks: its tree role's (src/records/trees) or the named set its schema declares. */
function typeHooks(registry: Registry): Record<string, TypeHooks> {
  const hooks = treeHooks(registry);
  for (const type of Object.values(registry.types)) {
    if (!type.hooks) continue;
    const named = NAMED_HOOKS[type.hooks];
    if (!named) throw new Error(`schemas/${type.name}.json names hooks "${type.hooks}", which src/domain/index.ts does not define`);
    hooks[type.name] = hooks[type.name] ? combineHooks(hooks[type.name], named) : named;
  }
  return hooks;
}

/** Stops what openServices started, in order: webhook deliveries, history's upkeep, the job runner, the search index and indexer, the store's pool. */
export async function closeServices(s: Services): Promise<void> {
  await s.webhooks?.stop();
  s.historyUpkeep?.stop();
  await s.jobs?.stop();
  await s.search?.close();
  await s.db.close();
}

/** Migrates and seeds the store, then lets it go: what a cluster's primary does once before it forks its workers. */
export async function prepareStore(config: Config): Promise<void> {
  const registry = loadRegistry();
  const db = await connect(config.dbUrl);
  try {
    await bootstrap({ config, db, registry, hooks: typeHooks(registry) });
  } finally {
    await db.close();
  }
}

/**
 * How far V8 lets the heap grow past what its last full collection kept before it collects again.
 * V8 picks a factor of up to 4 when allocation is fast (a bulk load, an import, concurrent large
 * answers), so a server whose live data is 80 MB reached 350 MB and kept it; at 1.3 the same bulk
 * load peaked near 250 MB at the same rate (bench/write-profile.ts). The flag is read at every
 * full collection, so setting it once the process runs takes effect; it holds for the whole
 * process (the index thread too). 0 leaves V8's own choice.
 */
function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** Connects, migrates and loads the registry: everything the app and the CLI verbs share. */
export async function openServices(config: Config, generatedDir?: string): Promise<Services> {
  applyHeapGrowth(config.heapGrowthPercent);
  const registry = loadRegistry(generatedDir);
  const db = await connect(config.dbUrl);
  const hooks = typeHooks(registry);
  setHistoryPolicy(db, config.history);
  let services: Services;
  try {
    services = await bootstrap({ config, db, registry, hooks });
  } catch (err) {
    // A verb that fails here must still exit: an open pool would keep the process alive.
    await db.close();
    throw err;
  }
  services.search = openSearch(services);
  services.jobs = openJobs(services);
  services.webhooks = openWebhooks(services);
  if (config.jobs.run) services.historyUpkeep = startHistoryUpkeep(services);
  if (config.search.inProcessIndexer) services.search.indexer.start();
  return services;
}
