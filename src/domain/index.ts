import { combineHooks, type TypeHooks } from '../records/context';
import { topContainerHooks } from './containers/containers';
import { groupHooks, repositoryGroupHooks } from './users/groups';
import { locationHooks } from './containers/locations';
import { repositoryHooks } from './repositories/repositories';
import { userHooks } from './users/users';
import { digitalObjectHooks } from './digital-objects/hooks';
import { preferenceHooks } from './users/preferences';

/**
 * Domain rules a schema can name (x-archive.hooks): the few types whose rules are code. Each area
 * declares its own; where two areas have rules for one type (a repository's records and its
 * groups), they are combined here, so that no area imports another.
 */
export const NAMED_HOOKS: Record<string, TypeHooks> = {
  repository: combineHooks(repositoryHooks, repositoryGroupHooks), group: groupHooks, user: userHooks, location: locationHooks, top_container: topContainerHooks,
  digital_object: digitalObjectHooks, preference: preferenceHooks,
};
