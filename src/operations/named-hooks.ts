import type { TypeHooks } from './context';
import { topContainerHooks } from './containers';
import { groupHooks } from './groups';
import { locationHooks } from './locations';
import { repositoryHooks } from './repositories';
import { userHooks } from './users';

/** Domain rules a schema can name (x-archive.hooks): the few types whose rules are code. */
export const NAMED_HOOKS: Record<string, TypeHooks> = {
  repository: repositoryHooks, group: groupHooks, user: userHooks, location: locationHooks, top_container: topContainerHooks,
};
