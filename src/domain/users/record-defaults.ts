import type { Obj } from '../../json';
import { GLOBAL_REPO_ID } from '../../registry';
import type { Services } from '../../records/context';
import { effectiveDefaults } from './preferences';

/**
 * Preference defaults that are also record fields: a record saved without `publish` takes the
 * caller's preferred one (ArchivesSpace's Publishable reads Preference.defaults['publish'], false
 * unless an installation, repository or user preference says otherwise). The other preference
 * defaults only steer the staff interface.
 */
const RECORD_FIELD_DEFAULTS = ['publish'];

/** The caller's preferred values of those fields, for prepareRecord; {} when no preference sets them. */
export async function preferredFieldDefaults(s: Services, repoId: number | undefined, username: string | undefined): Promise<Obj> {
  const defaults = await effectiveDefaults(s, repoId ?? GLOBAL_REPO_ID, username);
  return Object.fromEntries(RECORD_FIELD_DEFAULTS.filter((k) => typeof defaults[k] === 'boolean').map((k) => [k, defaults[k]]));
}
