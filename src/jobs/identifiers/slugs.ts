import type { Obj } from '../../json';

/**
 * ArchivesSpace's name-based slugs (SlugHelpers): a record's human-readable URL part made from
 * its title (a repository's from its repo_code, an agent's from its name), cleaned to what a URL
 * may hold, and made unique with `_1`, `_2`... against the slugs already taken.
 */

/** Rails' String#parameterize on ASCII text: runs of anything but letters, digits, `-` and `_` become one `-`. */
function parameterize(text: string): string {
  return text.replace(/[^a-z0-9\-_]+/gi, '-').replace(/-{2,}/g, '-').replace(/^-|-$/g, '').toLowerCase();
}

/** SlugHelpers.clean_slug: ASCII only, no markup, lower case, `_` for spaces, no URL-reserved characters, 50 characters at most. */
export function cleanSlug(raw: string | undefined): string {
  if (raw === undefined || raw === null) return '';
  // eslint-disable-next-line no-control-regex
  let slug = String(raw).replace(/[^\x00-\x7f]/g, '');
  // A name that is itself an address (two slashes, or a backslash) makes no slug: the record keeps its URI.
  if (/\/\//.test(slug) || /\\/.test(slug)) slug = '';
  slug = slug.replace(/<\/?[^>]*>/g, '').toLowerCase().replaceAll(' ', '_').replaceAll('--', '').replaceAll("'", '');
  slug = slug.replace(/[&;?$<>#%{}|\\^~[\]`/*()@=:+,!.]/g, '').slice(0, 50);
  slug = slug.replace(/_[_]+/g, '_').replace(/^_/, '').replace(/_$/, '');
  // A slug of digits alone would be read as an id.
  if (/^\d+$/.test(slug)) slug = `__${slug}`;
  return parameterize(slug);
}

/** The agent's name as its slug is made from: its display name (else its first), by agent kind. */
function agentNameText(type: string, agent: Obj): string {
  const names: Obj[] = Array.isArray(agent.names) ? agent.names : [];
  const name = names.find((n) => n.is_display_name) ?? names.find((n) => n.authorized) ?? names[0];
  if (!name) return '';
  const join = (...parts: unknown[]) => parts.filter((p) => typeof p === 'string' && p !== '').join('_');
  switch (type) {
    case 'agent_person':
      if (name.name_order === 'inverted') return join(name.primary_name, name.rest_of_name);
      if (name.name_order === 'direct') return join(name.rest_of_name, name.primary_name);
      return String(name.primary_name ?? '');
    case 'agent_family': return String(name.family_name ?? '');
    case 'agent_corporate_entity': return join(name.primary_name, name.subordinate_name_1, name.subordinate_name_2);
    case 'agent_software': return String(name.software_name ?? '');
    default: return '';
  }
}

/** The text a record's slug is made from (SlugHelpers.name_based_slug_for). */
export function slugSource(type: string, record: Obj): string {
  if (type === 'repository') return String(record.repo_code ?? '');
  if (type.startsWith('agent_')) return agentNameText(type, record);
  if (typeof record.title === 'string' && record.title !== '') return record.title;
  return typeof record.name === 'string' ? record.name : '';
}

/** SlugHelpers.run_dedupe_slug: `slug`, or `slug_N` with the first N not taken; the answer is taken from then on. */
export function dedupeSlug(slug: string, taken: Set<string>): string {
  let unique = slug;
  if (slug !== '' && taken.has(slug)) {
    let n = 1;
    while (taken.has(`${slug}_${n}`)) n++;
    unique = `${slug}_${n}`;
  }
  taken.add(unique);
  return unique;
}
