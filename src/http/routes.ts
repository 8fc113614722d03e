/**
 * Routing of the endpoint table. A request is matched only against the rows that could answer
 * it: the rows are grouped by method, number of path segments, first segment and third segment
 * (`/repositories/:repo_id/<type>/...`); in its group the first row (in table order) whose
 * path matches answers. Each row's path is compiled once by path-to-regexp with the options
 * Express's router gives a route under strict, case-sensitive routing, so what matches and the
 * parameters' decoding (a malformed escape is a 400) are Express's; what is saved is a router,
 * a layer and a route dispatch per request. The row is found before the body is read, so the
 * body is read only up to the row's own limit.
 */
import { match, type MatchFunction } from 'path-to-regexp';

/** What the router reads of a row; the rest of it (its handler, its body reader) it hands back (http/app.ts). */
export interface RoutedRow {
  method: string;
  path: string;
}

interface Shape<R extends RoutedRow> {
  route: R;
  segments: string[];
  matches: MatchFunction<Record<string, string>>;
}

/** The segments a group is keyed on: the first, and the third (`/repositories/:repo_id/<type>`). */
const KEYED = [0, 2];

/** What a request segment no row names literally becomes in the key (no path segment holds it). */
const FOLDED = '\u0000';

/** Bound on the groups kept (keys come from requests, after unknown segments are folded). */
const MAX_GROUPS = 5_000;

function isParam(segment: string | undefined): boolean {
  return segment !== undefined && segment.includes(':');
}

/** A path parameter as Express decodes it: a malformed escape is the client's error. */
function decodeParam(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw Object.assign(new Error(`Failed to decode param '${value}'`), { status: 400 });
  }
}

/** The row that answers a request's method and path, with the path's parameters; undefined when none does. */
export type RouteFinder<R extends RoutedRow> = (method: string, path: string) => { route: R; params: Record<string, string> } | undefined;

export function routeGroups<R extends RoutedRow>(routes: R[]): RouteFinder<R> {
  for (const route of routes) {
    if (/[*{(?]/.test(route.path)) throw new Error(`route ${route.path}: only :name parameters are supported`);
  }
  const shapes: Array<Shape<R>> = routes.map((route) => ({
    route,
    segments: route.path.split('/').slice(1),
    matches: match<Record<string, string>>(route.path, { sensitive: true, end: true, trailing: false, decode: decodeParam }),
  }));
  // Literal values at the keyed positions; any other request segment is folded.
  const literals = new Map(KEYED.map((i) => [i, new Set(shapes.filter((s) => !isParam(s.segments[i])).map((s) => s.segments[i]))]));
  const groups = new Map<string, Array<Shape<R>>>();

  const fits = (shape: Shape<R>, method: string, segments: string[]): boolean => {
    const m = shape.route.method;
    if (m !== method && !(method === 'head' && m === 'get')) return false;
    if (shape.segments.length !== segments.length) return false;
    return KEYED.every((i) => isParam(shape.segments[i]) || shape.segments[i] === segments[i]);
  };

  return (requestMethod: string, path: string) => {
    const method = requestMethod.toLowerCase();
    const segments = path.split('/').slice(1);
    // A folded segment matches only the rows with a parameter there (the same rows for every folded value).
    const probe = segments.map((seg, i) => (literals.get(i)?.has(seg) === false ? FOLDED : seg));
    const key = `${method} ${segments.length} ${KEYED.map((i) => probe[i]).join(' ')}`;
    let group = groups.get(key);
    if (!group) {
      group = shapes.filter((shape) => fits(shape, method, probe));
      if (groups.size < MAX_GROUPS) groups.set(key, group);
    }
    for (const shape of group) {
      const found = shape.matches(path);
      if (found) return { route: shape.route, params: found.params };
    }
    return undefined;
  };
}
