/**
 * What may be harvested: the repositories a harvester sees (published, not withdrawn from OAI,
 * with the levels each offers), every archival level, and the sets: the configured repository and
 * sponsor sets, each repository, each level offered. A set says which records it keeps as data
 * (HarvestSet); the store turns that into its query.
 */
import type { Services } from '../../records/context';
import { GLOBAL_REPO_ID, TypeInfo } from '../../registry';
import { type HarvestSet, repositoryRecords, valueListEntries } from '../../store/harvest';
import type { Archival } from '../export/common';
import { OaiSettings, oaiSettings } from './config';

const LEVEL_ENUM = 'archival_record_level';

/** A repository whose records may be harvested, and the levels it limits them to (null: all). */
export interface HarvestRepo {
  id: number;
  code: string;
  name: string;
  levels: string[] | null;
}

export interface Context {
  s: Services;
  settings: OaiSettings;
  repos: HarvestRepo[];
  /** Every archival level value. */
  levels: string[];
}

/** A set spec from a configured name: characters a setSpec cannot hold become `_`. */
export const asSetSpec = (name: string) => name.replace(/[^A-Za-z0-9\-_.!~*'()]/g, '_');

export async function harvestContext(s: Services): Promise<Context> {
  const settings = await oaiSettings(s);
  const levelRows = await valueListEntries(s.db, LEVEL_ENUM);
  const levelById = new Map(levelRows.map((r) => [String(r.id), r.value]));
  // The global repository holds no archival records (and is no repository a harvester knows).
  const repos: HarvestRepo[] = [];
  for (const { id, record: repo } of await repositoryRecords(s.db, GLOBAL_REPO_ID)) {
    if (repo.publish === false || repo.oai_is_disabled === true) continue;
    let offered: string[];
    try {
      offered = repo.oai_sets_available ? JSON.parse(repo.oai_sets_available) : [];
    } catch {
      offered = [];
    }
    const levels = Array.isArray(offered) && offered.length ? offered.map((id) => levelById.get(String(id)) ?? String(id)) : null;
    repos.push({ id, code: String(repo.repo_code ?? ''), name: String(repo.name ?? repo.repo_code ?? id), levels });
  }
  return { s, settings, repos, levels: levelRows.map((r) => r.value) };
}

export interface SetDef {
  spec: string;
  name: string;
  description?: string;
  /** The set's records of a type. */
  members(type: TypeInfo): HarvestSet;
  /** Deletions in the set, by URI (unknown for level sets: every deletion is reported). */
  deletion?(uri: string): boolean;
}

export function repoOfUri(uri: string): number | undefined {
  const m = /^\/repositories\/(\d+)\//.exec(uri);
  return m ? Number(m[1]) : undefined;
}

export function setDefinitions(ctx: Context): SetDef[] {
  const { settings } = ctx;
  const sets: SetDef[] = [];
  if (settings.repoSetCodes.length && settings.repoSetName && !ctx.levels.includes(settings.repoSetName)) {
    const ids = ctx.repos.filter((r) => settings.repoSetCodes.includes(r.code)).map((r) => r.id);
    sets.push({
      spec: asSetSpec(settings.repoSetName), name: settings.repoSetName, description: settings.repoSetDescription,
      members: () => ({ repoIds: ids }),
      deletion: (uri) => ids.includes(repoOfUri(uri) ?? -1),
    });
  }
  if (settings.sponsorSetNames.length && settings.sponsorSetName && !ctx.levels.includes(settings.sponsorSetName)) {
    sets.push({
      spec: asSetSpec(settings.sponsorSetName), name: settings.sponsorSetName, description: settings.sponsorSetDescription,
      // Finding aids of these sponsors, and the records in their trees.
      members: (type) => {
        if (type.props.finding_aid_sponsor) return { jsonPath: '$.finding_aid_sponsor', values: settings.sponsorSetNames };
        if (type.tree) {
          return { treesOf: { rootType: type.tree.root, rootProperty: type.tree.rootProperty, path: '$.finding_aid_sponsor', values: settings.sponsorSetNames } };
        }
        return { nothing: true };
      },
    });
  }
  for (const repo of ctx.repos) {
    sets.push({
      spec: `repository:${repo.id}`, name: repo.name,
      members: () => ({ repoIds: [repo.id] }),
      deletion: (uri) => repoOfUri(uri) === repo.id,
    });
  }
  // A level is a set when some harvested repository offers it.
  for (const level of ctx.levels) {
    if (!ctx.repos.some((r) => !r.levels || r.levels.includes(level))) continue;
    sets.push({ spec: level, name: level, members: () => ({ jsonPath: '$.level', values: [level] }) });
  }
  return sets;
}

export function setSpecsOf(ctx: Context, record: Archival): string[] {
  const specs: string[] = [];
  const repoId = repoOfUri(String(record.uri));
  const repo = ctx.repos.find((r) => r.id === repoId);
  if (record.level && ctx.levels.includes(record.level)) specs.push(record.level);
  if (repo) specs.push(`repository:${repo.id}`);
  if (repo && ctx.settings.repoSetName && ctx.settings.repoSetCodes.includes(repo.code)) specs.push(asSetSpec(ctx.settings.repoSetName));
  return specs;
}
