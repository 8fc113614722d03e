import type { TypeHooks } from './context';
import { topContainerHooks } from './containers';
import { groupHooks } from './groups';
import { locationHooks } from './locations';
import { repositoryHooks } from './repositories';
import { userHooks } from './users';
import { digitalObjectHooks } from './digital-objects';
import { preferenceHooks } from './preferences';

/** Domain rules a schema can name (x-archive.hooks): the few types whose rules are code. */
export const NAMED_HOOKS: Record<string, TypeHooks> = {
  repository: repositoryHooks, group: groupHooks, user: userHooks, location: locationHooks, top_container: topContainerHooks,
  digital_object: digitalObjectHooks, preference: preferenceHooks,
};

/**
 * One set of hooks doing what both do, for a tree root with domain rules of its own (digital
 * objects): read-time fields add up; a write hook may come from one of them only.
 */
export function combineHooks(a: TypeHooks, b: TypeHooks): TypeHooks {
  for (const key of ['beforeSave', 'afterSave', 'derive', 'beforeDelete', 'beforeMerge', 'wholeTree'] as const) {
    if (a[key] && b[key]) throw new Error(`two hook sets of one type both define ${key}: merge them into one`);
  }
  const decorate: TypeHooks['decorate'] = a.decorate && b.decorate
    ? async (db, s, records) => { await a.decorate!(db, s, records); await b.decorate!(db, s, records); }
    : a.decorate ?? b.decorate;
  return { ...a, ...b, decorate, derivedFields: [...(a.derivedFields ?? []), ...(b.derivedFields ?? [])] };
}
