import type { Registry } from '../registry';
import { errors } from '../errors';
import type { RecordQueries, RefRow } from '../store/records';
import { isPlainObject, Obj } from '../json';
import { planOf, walkShapes } from '../validation/walk';

/** Every outgoing reference of a record (links, uri properties, relationship subrecords). */
export function collectRefs(registry: Registry, typeName: string, record: Obj): RefRow[] {
  const refs: RefRow[] = [];
  walkShapes(registry, { typeName, props: registry.type(typeName).props, obj: record, path: '' }, (shape) => {
    for (const [name, info] of planOf(shape.props).referencing) {
      if (name === 'repository') continue;
      const value = shape.obj[name];
      const items = Array.isArray(value) ? value : value === undefined ? [] : [value];
      for (const item of items) {
        if (typeof item === 'string') refs.push({ property: name, uri: item });
        else if (info.kind === 'link' && isPlainObject(item) && typeof item.ref === 'string') {
          refs.push({ property: name, uri: item.ref });
        }
      }
    }
  });
  return refs;
}

/** The records checkRefs asks for: the links' targets but the record itself and its tree. */
export function linkTargets(refs: RefRow[], self: string): string[] {
  return [...new Set(refs.map((r) => r.uri).filter((u) => u !== self && !u.endsWith('/tree')))];
}

/**
 * Links must name records that exist, and repository-scoped targets must live in the active
 * repository (errors.md section 2). One query for all of a record's links.
 */
export async function checkRefs(q: RecordQueries, registry: Registry, refs: RefRow[], activeRepo: number | undefined, self: string) {
  const uris = linkTargets(refs, self);
  const found = new Map((await q.existing(uris)).map((row) => [row.uri, row]));
  for (const uri of uris) {
    const row = found.get(uri);
    if (!row) throw errors.missingLinkTarget(uri);
    const scoped = registry.types[row.type]?.scope === 'repository';
    if (scoped && activeRepo !== undefined && row.repo_id !== activeRepo) {
      throw errors.foreignRepositoryLink(activeRepo, uri);
    }
  }
}

/**
 * Removes every link to `uri` from a record: a link inside an array element removes that element
 * (a subject link, a linked agent, an instance whose container is gone); a single link property
 * is removed. Returns true when something changed.
 */
export function unlink(record: Obj, uri: string): boolean {
  let changed = false;
  const mentions = (value: unknown): boolean =>
    value === uri ||
    (Array.isArray(value) ? value.some(mentions) : isPlainObject(value) && Object.entries(value).some(([k, v]) => k !== '_resolved' && mentions(v)));
  const visit = (obj: Obj) => {
    for (const [key, value] of Object.entries(obj)) {
      if (key === 'uri' || key === 'repository') continue;
      if (Array.isArray(value)) {
        const kept = value.filter((item) => !mentions(item));
        if (kept.length !== value.length) {
          obj[key] = kept;
          changed = true;
        }
      } else if (isPlainObject(value)) {
        if (value.ref === uri) {
          delete obj[key];
          changed = true;
        } else visit(value);
      }
    }
  };
  visit(record);
  return changed;
}

/**
 * Points every link of `record` to `from` at `to` instead (a merge), leaving one link where the
 * record then names `to` twice in a list (a subject listed before and merged in). True if changed.
 */
export function repoint(record: Obj, from: string, to: string): boolean {
  let changed = false;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (!isPlainObject(value)) return;
    for (const [key, v] of Object.entries(value)) {
      if (key === '_resolved' || key === 'uri' || key === 'repository') continue;
      if (key === 'ref' && v === from) {
        value.ref = to;
        changed = true;
      } else if (Array.isArray(v)) {
        visit(v);
        // Plain links ({ref}) to the same record once only.
        const seen = new Set<string>();
        const kept = v.filter((item) => {
          if (!isPlainObject(item) || typeof item.ref !== 'string' || Object.keys(item).some((k) => k !== 'ref' && k !== '_resolved')) return true;
          if (seen.has(item.ref)) return false;
          seen.add(item.ref);
          return true;
        });
        if (kept.length !== v.length) value[key] = kept;
      } else visit(v);
    }
  };
  visit(record);
  return changed;
}
