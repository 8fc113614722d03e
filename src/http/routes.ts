/**
 * Routing in front of Express's router: a request is matched only against the rows that could
 * answer it. Express tries every route in registration order (over 300 rows, 200 of them under
 * /repositories); here the rows are grouped by method, number of path segments, first segment
 * and third segment (`/repositories/:repo_id/<type>/...`), each group an Express router of its
 * own with the rows in table order, so the match itself and its order are Express's.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

export interface Route {
  method: string;
  path: string;
  handler: RequestHandler;
}

interface Shape {
  route: Route;
  segments: string[];
  /** Optional or wildcard parts: the row may match any number of segments. */
  loose: boolean;
}

/** The segments a group is keyed on: the first, and the third (`/repositories/:repo_id/<type>`). */
const KEYED = [0, 2];

/** What a request segment no row names literally becomes in the key (no path segment holds it). */
const FOLDED = '\u0000';

/** Bound on the groups kept (keys come from requests, after unknown segments are folded). */
const MAX_GROUPS = 5_000;

function isParam(segment: string | undefined): boolean {
  return segment !== undefined && /[:*{(]/.test(segment);
}

export function routeGroups(routes: Route[]): RequestHandler {
  const shapes: Shape[] = routes.map((route) => ({ route, segments: route.path.split('/').slice(1), loose: /[*{(?]/.test(route.path) }));
  // Literal values at the keyed positions; any other request segment is folded into '*'.
  const literals = new Map(KEYED.map((i) => [i, new Set(shapes.filter((s) => !s.loose && !isParam(s.segments[i])).map((s) => s.segments[i]))]));
  const groups = new Map<string, RequestHandler>();

  const fits = (shape: Shape, method: string, segments: string[]): boolean => {
    const m = shape.route.method;
    if (m !== method && !(method === 'head' && m === 'get')) return false;
    if (shape.loose) return true;
    if (shape.segments.length !== segments.length) return false;
    return KEYED.every((i) => isParam(shape.segments[i]) || shape.segments[i] === segments[i]);
  };

  return (req: Request, res: Response, next: NextFunction) => {
    const method = req.method.toLowerCase();
    const segments = req.path.split('/').slice(1);
    // A folded segment matches only the rows with a parameter there (the same rows for every folded value).
    const probe = segments.map((seg, i) => (literals.get(i)?.has(seg) === false ? FOLDED : seg));
    const key = `${method} ${segments.length} ${KEYED.map((i) => probe[i]).join(' ')}`;
    let group = groups.get(key);
    if (!group) {
      const router = express.Router({ strict: true, caseSensitive: true });
      for (const shape of shapes) if (fits(shape, method, probe)) (router as any)[shape.route.method](shape.route.path, shape.route.handler);
      group = router;
      if (groups.size < MAX_GROUPS) groups.set(key, group);
    }
    group(req, res, next);
  };
}
